/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tracepoint probe registration: the RCU-protected probe arrays behind
 * trace_<name>(), and the static key that guards them.
 *
 * Updaters copy the array, insert or remove one probe, publish the copy with
 * rcu_assign_pointer() and free the old array after a grace period. Readers
 * (__traceiter_<name>, generated in the user's CREATE_TRACE_POINTS file) walk
 * whatever array they loaded inside an RCU read section (docs/rcu.md): they never block
 * and never see a half-built array. All updaters hold tp_mutex.
 * The jump label sites of a tracepoint (jump_label.c) jump from before its
 * first probe is published until after its last one is gone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <trev/tracepoint.h>

#include "base/abi_hdr.h"
#include "base/abi_v0.h"
#include "base/rcu.h"
#include "tracepoint/tracepoint_internal.h"

static pthread_mutex_t tp_mutex = PTHREAD_MUTEX_INITIALIZER;

int trev__tp_ref(struct trev_tracepoint *tp, struct trev__tp_ref *ref)
{
	unsigned int abi;
	int ret = trev__abi_of(tp, sizeof(*tp), &abi);

	if (ret)
		return ret;
	if (abi == 0) {
		struct trev_v0_tracepoint *v0 = (void *)tp;

		*ref = (struct trev__tp_ref){ v0->name, &v0->key.enabled,
					      (struct trev_tracepoint_func **)&v0->funcs,
					      v0->regfunc, v0->unregfunc, v0->iterator };
	} else {
		*ref = (struct trev__tp_ref){ tp->name, &tp->key.enabled, &tp->funcs,
					      tp->regfunc, tp->unregfunc, tp->iterator };
	}
	return 0;
}

static int tp_nr_funcs(const struct trev_tracepoint_func *funcs)
{
	int n = 0;

	while (funcs && funcs[n].func)
		n++;
	return n;
}

/*
 * Set the lower half of a key word (trev/usdt.h) to @n probes, at most
 * 0x7fff, and leave the upper half, the USDT semaphore, as it is. The kernel
 * changes that half with a plain 16-bit read-modify-write from another
 * task (uprobes' reference counter); a compare-and-swap of the whole word
 * that carries over the half it read cannot undo such a write: the write
 * either lands before the swap (which then fails and retries) or after it
 * (and only touches its own half).
 */
static void tp_key_set_probes(int *word, int n)
{
	int old = __atomic_load_n(word, __ATOMIC_RELAXED), new;

	if (n > 0x7fff)
		n = 0x7fff;
	do {
		new = (old & ~TREV_KEY_PROBES_MASK) | n;
	} while (!__atomic_compare_exchange_n(word, &old, new, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

/* Publish @new as @tp's array and free @old once no reader can hold it. */
static void tp_publish(struct trev_tracepoint *tp, const struct trev__tp_ref *ref,
		       struct trev_tracepoint_func *old, struct trev_tracepoint_func *new)
{
	int n = tp_nr_funcs(new);

	(void)tp;	/* only TSan's pairing names it */
	__atomic_store_n(ref->funcs, new, __ATOMIC_RELEASE);	/* rcu_assign_pointer() */
	/*
	 * The key goes on after the array is there and off before it goes; a
	 * reader that sees the key on with a NULL array just does nothing.
	 */
	tp_key_set_probes(ref->enabled, n);
	if (old) {
		trev__rcu_synchronize();
		trev_tsan_acquire(tp);
		free(old);
	}
}

int trev_tracepoint_probe_register_prio(struct trev_tracepoint *tp, void *probe, void *data,
					int prio)
{
	struct trev_tracepoint_func *old, *new;
	struct trev__tp_ref ref;
	int n, pos, ret = 0;

	if (!tp || !probe)
		return -EINVAL;
	ret = trev__tp_ref(tp, &ref);
	if (ret)
		return ret;
	pthread_mutex_lock(&tp_mutex);
	old = *ref.funcs;
	n = tp_nr_funcs(old);
	for (int i = 0; i < n; i++) {
		if (old[i].func == probe && old[i].data == data) {
			ret = -EEXIST;
			goto out_unlock;
		}
	}
	if (n == 0 && ref.regfunc) {
		ret = ref.regfunc();
		if (ret)
			goto out_unlock;
	}
	new = calloc((size_t)n + 2, sizeof(*new));
	if (!new) {
		ret = -ENOMEM;
		goto out_unreg;
	}
	/*
	 * The jump label sites jump before the array is there: a thread that
	 * takes a jmp early finds no probes. If they cannot be patched, no
	 * probe is added.
	 */
	if (n == 0) {
		ret = trev__jl_set(tp, true);
		if (ret)
			goto out_free_new;
	}
	/* Higher priority first; among equals, the older probe first. */
	for (pos = 0; pos < n && old[pos].prio >= prio; pos++)
		;
	if (n)
		memcpy(new, old, (size_t)pos * sizeof(*new));
	new[pos] = (struct trev_tracepoint_func){ probe, data, prio };
	if (n)
		memcpy(new + pos + 1, old + pos, (size_t)(n - pos) * sizeof(*new));
	tp_publish(tp, &ref, old, new);
	pthread_mutex_unlock(&tp_mutex);
	return 0;

out_free_new:
	free(new);
out_unreg:
	if (n == 0 && ref.unregfunc)
		ref.unregfunc();
out_unlock:
	pthread_mutex_unlock(&tp_mutex);
	return ret;
}

int trev_tracepoint_probe_register(struct trev_tracepoint *tp, void *probe, void *data)
{
	return trev_tracepoint_probe_register_prio(tp, probe, data,
						   TREV_TRACEPOINT_DEFAULT_PRIO);
}

int trev_tracepoint_probe_unregister(struct trev_tracepoint *tp, void *probe, void *data)
{
	struct trev_tracepoint_func *old, *new = NULL;
	struct trev__tp_ref ref;
	int n, at = -1;

	if (!tp || !probe)
		return -EINVAL;
	if (trev__tp_ref(tp, &ref))
		return -ENOENT;
	pthread_mutex_lock(&tp_mutex);
	old = *ref.funcs;
	n = tp_nr_funcs(old);
	for (int i = 0; i < n && at < 0; i++)
		if (old[i].func == probe && old[i].data == data)
			at = i;
	if (at < 0) {
		pthread_mutex_unlock(&tp_mutex);
		return -ENOENT;
	}
	if (n > 1) {
		new = calloc((size_t)n, sizeof(*new));
		if (!new) {
			/*
			 * No memory for the smaller copy: stub the probe out in
			 * place instead (the kernel does the same with tp_stub_func).
			 */
			__atomic_store_n(&old[at].func, (void *)trev__tp_stub_func,
					 __ATOMIC_RELEASE);
			pthread_mutex_unlock(&tp_mutex);
			return 0;
		}
		for (int i = 0, j = 0; i < n; i++)
			if (i != at)
				new[j++] = old[i];
	}
	tp_publish(tp, &ref, old, new);
	if (!new) {
		trev__jl_set(tp, false);
		if (ref.unregfunc)
			ref.unregfunc();
	}
	pthread_mutex_unlock(&tp_mutex);
	return 0;
}

void trev__tp_stub_func(void)
{
}

void trev_tracepoint_synchronize_unregister(void)
{
	trev__rcu_synchronize();
}

int trev_tracepoint_probe_count(struct trev_tracepoint *tp)
{
	struct trev__tp_ref ref;

	if (trev__tp_ref(tp, &ref))
		return 0;
	return __atomic_load_n(ref.enabled, __ATOMIC_ACQUIRE) & TREV_KEY_PROBES_MASK;
}

void trev__tp_remove_all(struct trev_tracepoint *tp)
{
	struct trev_tracepoint_func *old;
	struct trev__tp_ref ref;

	if (trev__tp_ref(tp, &ref))
		return;
	pthread_mutex_lock(&tp_mutex);
	old = *ref.funcs;
	if (old) {
		tp_publish(tp, &ref, old, NULL);
		trev__jl_set(tp, false);
		if (ref.unregfunc)
			ref.unregfunc();
	}
	pthread_mutex_unlock(&tp_mutex);
}
