/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A list of thread ids, sorted and without duplicates, as set_ftrace_pid,
 * set_event_pid and their notrace twins keep them (layer 0): built whole by
 * a write, published with a release store, read by probes with a binary
 * search, freed after a grace period by its owner.
 */
#ifndef TREV_BASE_PID_LIST_H
#define TREV_BASE_PID_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct trev_pid_list {
	size_t n;
	pid_t tid[];			/* sorted, no duplicates */
};

/* @tid is in @p. Context: any, async-signal-safe; calls nothing. */
static inline bool trev__pid_list_has(const struct trev_pid_list *p, pid_t tid)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->tid[mid] == tid)
			return true;
		if (p->tid[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* qsort()/bsearch() order of two pid_t. */
int trev__pid_cmp(const void *a, const void *b);

/*
 * trev__pid_list_add() - a new list: @cur's ids (NULL: none) and those of
 * @text (@len bytes of decimal ids between white space), each once, sorted.
 * An id must be a number up to INT32_MAX, and not 0 unless @zero_ok.
 * Return: the list (malloc()ed, maybe no longer than @cur), or NULL with
 * *@err -ENOMEM, or -EINVAL and the bad word's column in *@err_pos.
 */
struct trev_pid_list *trev__pid_list_add(const struct trev_pid_list *cur, const char *text,
					 size_t len, bool zero_ok, int *err_pos, int *err);

#endif /* TREV_BASE_PID_LIST_H */
