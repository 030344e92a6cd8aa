/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stack tracer (the kernel's trace_stack.c): at each traced function's
 * entry while it is on, the depth of the thread's stack, from its top (the
 * thread's stack bounds, read once per thread) down to the function's frame;
 * a depth past stack_max_size is the new maximum, and its frames are saved
 * with where each one is on the stack, so stack_trace can show each one's
 * depth and size. docs/function-tracer.md, "The stack tracer".
 *
 * The frames are the unwinder's return addresses (glibc's backtrace(), as
 * the stacktrace records), each then looked for on the stack from the
 * traced function's frame up, as the kernel's check_stack() does: the
 * depth of a frame is the distance from the stack's top to the word that
 * holds its return address, its size the distance to the next frame's.
 *
 *   stack top (high) ...... [caller's return address]  depth of entry 2
 *                           caller's locals               size of entry 1
 *   slot ->                 [parent_ip]                 depth of entry 1
 *   slot - 1                [traced function's site + 5] depth of entry 0
 *
 * Entry 0 is the traced function (its site's return address, the kernel's
 * ip + MCOUNT_INSN_SIZE), entry 1 its caller (@parent_ip, at @slot).
 */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <trev/common.h>

#include "base/buf.h"
#include "ftrace/ftrace_internal.h"
#include "ftrace/stack_tracer.h"
#include "sym/symbols.h"

/* Frames kept at most, and unwound (the unwinder's own and the trampoline's come first). */
#define ST_ENTRIES	128
#define ST_UNWIND	(ST_ENTRIES + 16)

/*
 * The deepest stack: written by the thread that holds st_busy (a try-lock,
 * so that no thread ever waits in a traced function, nor a signal handler
 * on the thread it interrupted); read by stack_trace's reader under it.
 */
static atomic_flag st_busy = ATOMIC_FLAG_INIT;
static unsigned long st_addr[ST_ENTRIES];	/* return addresses, innermost first */
static unsigned int st_depth[ST_ENTRIES];	/* each one's depth in bytes */
static unsigned int st_nr;			/* entries */
/* stack_max_size: a relaxed load first on every call; the entries under st_busy. */
static _Atomic unsigned long st_max_size;

/* The thread's stack, [st_lo, st_hi); st_state: 0 not read, 1 reading, 2 known, 3 unknown. */
static __thread uintptr_t st_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t st_hi __attribute__((tls_model("initial-exec")));
static __thread unsigned char st_state __attribute__((tls_model("initial-exec")));

/* Read the thread's stack bounds: once per thread, the first time it is checked. */
static __attribute__((noinline, cold)) void st_bounds(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	st_state = 1;	/* a signal handler that comes now skips its check */
	if (pthread_getattr_np(pthread_self(), &attr)) {
		st_state = 3;
		return;
	}
	if (!pthread_attr_getstack(&attr, &addr, &size) && size) {
		st_lo = (uintptr_t)addr;
		st_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
	st_state = st_hi ? 2 : 3;
}

/*
 * The address of the first word in [@p, @end) holding @v, or NULL. The
 * words are the stack's, other frames' included: no sanitizer checks them.
 */
__attribute__((no_sanitize_address, no_sanitize_thread))
static const unsigned long *st_find(const unsigned long *p, const unsigned long *end,
				    unsigned long v)
{
	for (; p < end; p++)
		if (*(const volatile unsigned long *)p == v)
			return p;
	return NULL;
}

/* A new maximum of @size bytes: save its frames (the kernel's check_stack()). */
static __attribute__((noinline, cold)) void st_save(unsigned long ip, unsigned long parent_ip,
						    unsigned long *slot, unsigned long size)
{
	const unsigned long *end = (const unsigned long *)st_hi, *p = slot + 1;
	void *frames[ST_UNWIND];
	unsigned int x = 0;
	int n, i;

	if (atomic_flag_test_and_set_explicit(&st_busy, memory_order_acquire))
		return;	/* another thread (or this one, interrupted) is saving one */
	if (size <= atomic_load_explicit(&st_max_size, memory_order_relaxed))
		goto out_unlock;
	atomic_store_explicit(&st_max_size, size, memory_order_relaxed);
	st_addr[x] = ip + FT_SITE_SIZE;
	st_depth[x++] = (unsigned int)size;
	st_addr[x] = parent_ip;
	st_depth[x++] = (unsigned int)(st_hi - (uintptr_t)slot);
	n = backtrace(frames, ST_UNWIND);
	/* The frames after the caller's: past the unwinder's own, ours and the trampoline's. */
	for (i = 0; i < n && (unsigned long)frames[i] != parent_ip; i++)
		;
	for (i++; i < n && x < ST_ENTRIES; i++) {
		const unsigned long *at = st_find(p, end, (unsigned long)frames[i]);

		if (!at)
			continue;	/* not on the stack as a return address: left out */
		st_addr[x] = (unsigned long)frames[i];
		st_depth[x++] = (unsigned int)(st_hi - (uintptr_t)at);
		p = at + 1;
	}
	st_nr = x;
out_unlock:
	atomic_flag_clear_explicit(&st_busy, memory_order_release);
}

void trev__st_check(unsigned long ip, unsigned long parent_ip, unsigned long *slot)
{
	unsigned long size;

	if (trev_unlikely(st_state != 2)) {
		if (st_state)
			return;	/* reading them, or unknown */
		st_bounds();
		if (st_state != 2)
			return;
	}
	/* Not on the thread's stack (a signal handler on sigaltstack): not measured. */
	if ((uintptr_t)slot < st_lo || (uintptr_t)slot >= st_hi)
		return;
	size = st_hi - (uintptr_t)slot + sizeof(unsigned long);
	if (trev_likely(size <= atomic_load_explicit(&st_max_size, memory_order_relaxed)))
		return;
	st_save(ip, parent_ip, slot, size);
}

void trev__st_prepare(void)
{
	void *prime[2];

	backtrace(prime, 2);
}

/* Take st_busy in the control path: its holder only saves a stack, never waits. */
static void st_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&st_busy, memory_order_acquire))
		sched_yield();
}

static void st_unlock(void)
{
	atomic_flag_clear_explicit(&st_busy, memory_order_release);
}

unsigned long trev__st_max(void)
{
	return atomic_load_explicit(&st_max_size, memory_order_relaxed);
}

void trev__st_set_max(unsigned long v)
{
	st_lock();
	atomic_store_explicit(&st_max_size, v, memory_order_relaxed);
	st_unlock();
}

int trev__st_show(struct trev_buf *out, bool enabled)
{
	static unsigned long addr[ST_ENTRIES];	/* a copy: names are looked up without st_busy */
	static unsigned int depth[ST_ENTRIES];
	unsigned long max;
	unsigned int nr;
	int ret;

	/* Context: the tracefs lock serialises the readers (and so these copies). */
	st_lock();
	nr = st_nr;
	memcpy(addr, st_addr, nr * sizeof(addr[0]));
	memcpy(depth, st_depth, nr * sizeof(depth[0]));
	max = atomic_load_explicit(&st_max_size, memory_order_relaxed);
	st_unlock();
	ret = trev__buf_printf(out, "        Depth    Size   Location    (%u entries)\n"
			       "        -----    ----   --------\n", nr);
	if (!ret && !enabled && !max)
		ret = trev__buf_puts(out, "#\n"
				     "#  Stack tracer disabled\n"
				     "#\n"
				     "# To enable the stack tracer, write 1 to stack_tracer_enabled\n"
				     "# (the kernel's /proc/sys/kernel/stack_tracer_enabled)\n"
				     "#\n");
	for (unsigned int i = 0; i < nr && !ret; i++) {
		unsigned int size = i + 1 == nr ? depth[i] : depth[i] - depth[i + 1];
		char sym[512];

		if (trev__sym_snprint(sym, sizeof(sym), addr[i], TREV_SYM_OFFSET) < 0)
			snprintf(sym, sizeof(sym), "0x%lx", addr[i]);
		ret = trev__buf_printf(out, "%3u) %8u   %5u   %s\n", i, depth[i], size, sym);
	}
	return ret;
}
