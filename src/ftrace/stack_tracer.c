/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stack tracer (the kernel's trace_stack.c): at each traced function's
 * entry while it is on, the depth of the thread's stack, from its top (the
 * thread's stack bounds, read once per thread) down to the function's frame;
 * a depth past stack_max_size is the new maximum, and its frames are saved
 * with where each one is on the stack, so stack_trace can show each one's
 * depth and size. docs/function-tracer.md, "The stack tracer".
 *
 * The frames are libgcc's unwinder's (_Unwind_Backtrace(), what glibc's
 * backtrace() and the stacktrace records use), each with the CFA of the
 * frame it called: the word that holds a frame's return address is the one
 * below that CFA, so each one's place is exact, where the kernel's check_stack()
 * looks for the addresses on the stack (and can take a stale copy of one in
 * a frame's uninitialised array for it). The depth of a frame is the
 * distance from the stack's top to that word, its size the distance to the
 * next frame's. Without libgcc_s's entry points, the kernel's way.
 *
 *   stack top (high) ...... [caller's return address]  depth of entry 2
 *                           caller's locals               size of entry 1
 *   slot ->                 [parent_ip]                 depth of entry 1
 *   slot - 1                [traced function's site + 5] depth of entry 0
 *
 * Entry 0 is the traced function (its site's return address, the kernel's
 * ip + MCOUNT_INSN_SIZE), entry 1 its caller (@parent_ip, at @slot).
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unwind.h>

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

/* libgcc_s's unwinder, found by trev__st_prepare() (NULL: look for the addresses instead). */
typedef _Unwind_Reason_Code (*st_backtrace_fn)(_Unwind_Trace_Fn fn, void *arg);
typedef _Unwind_Ptr (*st_getip_fn)(struct _Unwind_Context *ctx);
typedef _Unwind_Word (*st_getcfa_fn)(struct _Unwind_Context *ctx);
static _Atomic(st_backtrace_fn) st_unwind;	/* set last, with release: the others first */
static st_getip_fn st_getip;
static st_getcfa_fn st_getcfa;

/* The thread's stack, [st_lo, st_hi); st_state: 0 not read, 1 reading, 2 known, 3 unknown. */
static __thread uintptr_t st_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t st_hi __attribute__((tls_model("initial-exec")));
static __thread unsigned char st_state __attribute__((tls_model("initial-exec")));

/* The outermost frame's CFA in [st_lo, st_hi] (the callbacks see each frame's callee's). */
static _Unwind_Reason_Code st_top_frame(struct _Unwind_Context *ctx, void *arg)
{
	uintptr_t *top = arg, cfa = (uintptr_t)st_getcfa(ctx);

	if (cfa > *top && cfa > st_lo && cfa <= st_hi)
		*top = cfa;
	return _URC_NO_REASON;
}

/*
 * Read the thread's stack bounds: once per thread, the first time it is
 * checked. The top is the outermost frame's CFA (start_thread()'s or
 * _start's) when the unwinder finds it: above it are a thread's TLS and
 * descriptor (a sanitizer's TLS is large) or the program's arguments and
 * environment, which are not frames.
 */
static __attribute__((noinline, cold)) void st_bounds(void)
{
	st_backtrace_fn unwind = atomic_load_explicit(&st_unwind, memory_order_acquire);
	pthread_attr_t attr;
	uintptr_t top = 0;
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
	if (st_hi && unwind) {
		unwind(st_top_frame, &top);
		if (top)
			st_hi = top;
	}
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

/* What st_frame() carries from one frame to the next. */
struct st_walk {
	unsigned long parent_ip;	/* the traced function's caller: entry 1 */
	unsigned long *slot;		/* where its return address is */
	bool started;			/* entry 1 was met: the frames count from here */
	unsigned int x;			/* entries saved */
};

/*
 * One frame of _Unwind_Backtrace(), innermost first. When it calls us, the
 * context's IP is the frame's return address and its CFA still the frame's
 * callee's (libgcc moves it after the call): the return address is the word
 * below that CFA.
 */
static _Unwind_Reason_Code st_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct st_walk *w = arg;
	unsigned long ra = (unsigned long)st_getip(ctx);
	uintptr_t at = (uintptr_t)st_getcfa(ctx) - sizeof(unsigned long);

	if (!w->started) {
		/* The caller's frame, its return address where the trampoline found it. */
		w->started = ra == w->parent_ip && at == (uintptr_t)w->slot;
		return _URC_NO_REASON;	/* entry 1 is saved already */
	}
	if (!ra || at <= (uintptr_t)w->slot || at >= st_hi || w->x == ST_ENTRIES)
		return _URC_END_OF_STACK;
	st_addr[w->x] = ra;
	st_depth[w->x++] = (unsigned int)(st_hi - at);
	return _URC_NO_REASON;
}

/* A new maximum of @size bytes: save its frames (the kernel's check_stack()). */
static __attribute__((noinline, cold)) void st_save(unsigned long ip, unsigned long parent_ip,
						    unsigned long *slot, unsigned long size)
{
	const unsigned long *end = (const unsigned long *)st_hi, *p = slot + 1;
	st_backtrace_fn unwind = atomic_load_explicit(&st_unwind, memory_order_acquire);
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
	if (unwind) {
		struct st_walk w = { .parent_ip = parent_ip, .slot = slot, .x = x };

		unwind(st_frame, &w);
		/* The caller's frame not met (another unwinder's view): the kernel's way below. */
		if (w.started) {
			st_nr = w.x;
			goto out_unlock;
		}
	}
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
	void *prime[2], *gcc_s;

	backtrace(prime, 2);	/* loads libgcc_s */
	if (atomic_load_explicit(&st_unwind, memory_order_relaxed))
		return;
	gcc_s = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!gcc_s)
		return;
	st_getip = (st_getip_fn)dlsym(gcc_s, "_Unwind_GetIP");
	st_getcfa = (st_getcfa_fn)dlsym(gcc_s, "_Unwind_GetCFA");
	if (st_getip && st_getcfa)
		atomic_store_explicit(&st_unwind,
				      (st_backtrace_fn)dlsym(gcc_s, "_Unwind_Backtrace"),
				      memory_order_release);
	/* libgcc_s stays: backtrace() holds it too. */
	dlclose(gcc_s);
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
