/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev's RCU, the updater's side (layer 0, docs/rcu.md); the read side is
 * <trev/rcu.h>, inlined where events are hit.
 */
#ifndef TREV_BASE_RCU_H
#define TREV_BASE_RCU_H

#include <stdbool.h>

#include <trev/rcu.h>

/*
 * trev__rcu_synchronize() - wait until every read section that began
 * before the call has ended: trev's readers and liburcu-bp's.
 * Context: a thread outside any read section (one inside is a bug: the
 * process stops with a message rather than wait for itself); may sleep.
 */
void trev__rcu_synchronize(void);

/*
 * A read section of a thread that has a reader (trev__rcu_me is set; the
 * caller checked): no test and no call, for the function tracers' fast
 * calls, which must call nothing out of line. Returns the counter that
 * trev__rcu_unlock_known() takes.
 */
static inline __attribute__((always_inline)) unsigned int *trev__rcu_lock_known(void)
{
	unsigned int *cnt = &trev__rcu_me->cnt[__atomic_load_n(&trev__rcu_idx, __ATOMIC_RELAXED)];

	__trev_rcu_inc(cnt);
	return cnt;
}

static inline __attribute__((always_inline)) void trev__rcu_unlock_known(unsigned int *cnt)
{
	__trev_rcu_dec(cnt);
}

/* For tests: readers a grace period found inside and waited for, so far. */
unsigned long trev__rcu_waits(void);
/* For tests: the readers threads hold now (a thread's is freed when it ends). */
unsigned int trev__rcu_readers_held(void);
/* Whether threads get readers of trev's own (false: liburcu-bp, docs/rcu.md). */
bool trev__rcu_own_readers(void);

#endif /* TREV_BASE_RCU_H */
