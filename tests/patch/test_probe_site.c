// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Probe sites (src/patch/probe_site.c): handlers at functions built without
 * trev's flags (ps_funcs.S, a shared library), and at libc's; both paths;
 * registers as the probed code had them and left as they were; 8 threads
 * calling a function while it is attached and detached; signal handlers;
 * fork; the original bytes put back exactly; the relocator's output.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "patch/probe_site.h"
#include "patch/text_patch.h"

/*
 * In a ThreadSanitizer build every site takes int3 (probe_site.c: TSan runs
 * the handler of the signal that moves threads late, on a copy of the
 * context), and its signal handlers run with SIGTRAP blocked, where an int3
 * ends the process: no probed calls inside handlers there.
 */
#if defined(__SANITIZE_THREAD__)
#define PS_TSAN		1
#define RELOCATED	TREV_SITE_INT3
#else
#define RELOCATED	TREV_SITE_RELOCATED
#endif

long ps_push_rbp(long a, long b);
long ps_rip_load(long a);
long ps_short(long a);
long ps_jump_back(long n, long b);
long ps_call_first(long a);
long ps_jcc_first(long a);
long ps_flags(long a, long b);
double ps_fadd(double a, double b);
void ps_ymm_add(double *out, const double *a, const double *b);
extern const uint64_t ps_offsets[3];

/* What a handler saw, for the test that attached it. */
struct seen {
	atomic_ulong hits;
	unsigned long ip, di, si, sp, flags;
	int clobber;		/* the handler changes flags and vector registers */
};

static void on_hit(struct trev_regs *regs, void *data)
{
	struct seen *s = data;

	s->ip = regs->ip;
	s->di = regs->di;
	s->si = regs->si;
	s->sp = regs->sp;
	s->flags = regs->flags;
	if (s->clobber) {
		/* What C code may leave behind: other flags, other vector registers. */
		__asm__ volatile("xorpd %%xmm0, %%xmm0\n\t"
				 "pcmpeqd %%xmm1, %%xmm1\n\t"
				 "pcmpeqd %%xmm2, %%xmm2\n\t"
				 "cmpq %%rsp, %%rsp\n\t"
				 ::: "xmm0", "xmm1", "xmm2", "cc");
		if (s->clobber > 1)
			__asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\t"
					 "vpcmpeqd %%ymm1, %%ymm1, %%ymm1\n\t"
					 "vzeroupper\n\t"
					 ::: "xmm0", "xmm1");
	}
	atomic_fetch_add(&s->hits, 1);
}

struct probe {
	struct trev_site *site;
	uint8_t before[16];
	uintptr_t addr;
	const char *why;
};

static enum trev_site_kind attach(struct probe *p, const void *fn, uintptr_t off,
				  struct seen *s)
{
	int ret;

	p->addr = (uintptr_t)fn + off;
	memcpy(p->before, (const void *)p->addr, sizeof(p->before));
	ret = trev__site_attach(p->addr, on_hit, s, &p->site, &p->why);
	if (ret)
		print_error("attach %#lx: %d %s\n", (unsigned long)p->addr, ret,
			    p->why ? p->why : "");
	assert_int_equal(ret, 0);
	assert_memory_not_equal(p->before, (const void *)p->addr, 1);
	return trev__site_kind(p->site);
}

static void detach(struct probe *p)
{
	assert_int_equal(trev__site_detach(p->site), 0);
	/* The original bytes, exactly. */
	assert_memory_equal(p->before, (const void *)p->addr, sizeof(p->before));
}

/* Calls through a pointer the compiler cannot see through. */
static long (*volatile call2)(long, long);
static long (*volatile call1)(long);

static void test_push_rbp(void **state)
{
	struct seen s = { 0 };
	struct probe p;

	(void)state;
	assert_int_equal(attach(&p, ps_push_rbp, 0, &s), RELOCATED);
#ifndef PS_TSAN
	assert_null(p.why);
#endif
	call2 = ps_push_rbp;
	assert_int_equal(call2(3, 4), 7);
	assert_int_equal(atomic_load(&s.hits), 1);
	assert_int_equal(s.ip, (unsigned long)(uintptr_t)ps_push_rbp);
	assert_int_equal(s.di, 3);
	assert_int_equal(s.si, 4);
	/* At a function's entry: the return address on top, the ABI's misalignment. */
	assert_int_equal(s.sp % 16, 8);
	detach(&p);
	assert_int_equal(call2(5, 6), 11);
	assert_int_equal(atomic_load(&s.hits), 1);
}

static void test_rip_relative(void **state)
{
	struct seen s = { 0 };
	struct probe p;

	(void)state;
	assert_int_equal(attach(&p, ps_rip_load, 0, &s), RELOCATED);
	call1 = ps_rip_load;
	assert_int_equal(call1(5), 1005);
	assert_int_equal(atomic_load(&s.hits), 1);
	assert_int_equal(s.ip, (unsigned long)(uintptr_t)ps_rip_load);
	assert_int_equal(s.di, 5);
	detach(&p);
	assert_int_equal(call1(6), 1006);
}

static void test_short_takes_int3(void **state)
{
	struct seen s = { 0 };
	struct probe p;

	(void)state;
	assert_int_equal(attach(&p, ps_short, 0, &s), TREV_SITE_INT3);
	assert_non_null(p.why);
	call1 = ps_short;
	assert_int_equal(call1(9), 0);
	assert_int_equal(atomic_load(&s.hits), 1);
	assert_int_equal(s.ip, (unsigned long)(uintptr_t)ps_short);
	assert_int_equal(s.di, 9);
	assert_int_equal(s.sp % 16, 8);
	detach(&p);
	assert_int_equal(call1(9), 0);
	assert_int_equal(atomic_load(&s.hits), 1);
}

static void test_jump_back_takes_int3(void **state)
{
	struct seen s = { 0 };
	struct probe p;

	(void)state;
	assert_int_equal(attach(&p, ps_jump_back, 0, &s), TREV_SITE_INT3);
#ifndef PS_TSAN
	assert_non_null(strstr(p.why, "jump"));
#endif
	call2 = ps_jump_back;
	assert_int_equal(call2(6, 7), 42);
	assert_int_equal(atomic_load(&s.hits), 1);
	assert_int_equal(s.di, 6);
	assert_int_equal(s.si, 7);
	detach(&p);
	assert_int_equal(call2(3, 7), 21);
}

static void test_call_and_jcc_first(void **state)
{
	struct seen s = { 0 }, t = { 0 };
	struct probe p, q;

	(void)state;
	assert_int_equal(attach(&p, ps_call_first, 0, &s), RELOCATED);
	assert_int_equal(attach(&q, ps_jcc_first, 0, &t), RELOCATED);
	call1 = ps_call_first;
	assert_int_equal(call1(10), 17);
	call1 = ps_jcc_first;
	assert_int_equal(call1(10), 10);
	assert_int_equal(call1(0), -1);
	assert_int_equal(atomic_load(&s.hits), 1);
	assert_int_equal(atomic_load(&t.hits), 2);
	assert_int_equal(t.di, 0);
	detach(&q);
	detach(&p);
}

/* Probes between a cmp and the jl that reads it, and with xmm and ymm registers live. */
static void test_registers_kept(void **state)
{
	struct seen s = { .clobber = 1 }, t = { .clobber = 1 };
	struct probe p, q;
	int avx = __builtin_cpu_supports("avx");

	(void)state;
	assert_int_equal(attach(&p, ps_flags, ps_offsets[0], &s), RELOCATED);
	call2 = ps_flags;
	assert_int_equal(call2(1, 2), 1);
	assert_int_equal(call2(2, 1), 2);
	assert_int_equal(call2(-5, 3), 1);
	assert_int_equal(atomic_load(&s.hits), 3);
	assert_int_equal(s.ip, (unsigned long)(uintptr_t)ps_flags + ps_offsets[0]);
	assert_int_equal(attach(&q, ps_fadd, ps_offsets[1], &t), RELOCATED);
	{
		double (*volatile f)(double, double) = ps_fadd;

		assert_true(f(1.5, 2.25) == 3.75);
	}
	assert_int_equal(atomic_load(&t.hits), 1);
	detach(&q);
	detach(&p);
	if (avx) {
		struct seen u = { .clobber = 2 };
		struct probe r;
		double a[4] = { 1, 2, 3, 4 }, b[4] = { 10, 20, 30, 40 }, out[4] = { 0 };
		void (*volatile g)(double *, const double *, const double *) = ps_ymm_add;

		assert_int_equal(attach(&r, ps_ymm_add, ps_offsets[2], &u), RELOCATED);
		g(out, a, b);
		assert_int_equal(atomic_load(&u.hits), 1);
		assert_true(out[0] == 11 && out[1] == 22 && out[2] == 33 && out[3] == 44);
		detach(&r);
	}
}

static void test_libc(void **state)
{
	struct seen s = { 0 }, t = { 0 };
	struct probe p, q;
	pid_t (*volatile gp)(void) = (pid_t (*)(void))dlsym(RTLD_DEFAULT, "getpid");
	size_t (*volatile sl)(const char *) = (size_t (*)(const char *))dlsym(RTLD_DEFAULT, "strlen");
	static const char hello[] = "hello, probes";

	(void)state;
	assert_non_null(gp);
	assert_non_null(sl);
	attach(&p, (const void *)gp, 0, &s);
	assert_int_equal(gp(), (pid_t)syscall(SYS_getpid));
	assert_true(atomic_load(&s.hits) >= 1);
	assert_int_equal(s.ip, (unsigned long)(uintptr_t)gp);
	detach(&p);
	attach(&q, (const void *)sl, 0, &t);
	assert_int_equal(sl(hello), strlen(hello));
	assert_true(atomic_load(&t.hits) >= 1);
	assert_int_equal(t.ip, (unsigned long)(uintptr_t)sl);
	detach(&q);
	print_message("getpid: %s, strlen: %s\n",
		      trev__site_kind(p.site) == TREV_SITE_RELOCATED ? "relocated" : "int3",
		      trev__site_kind(q.site) == TREV_SITE_RELOCATED ? "relocated" : "int3");
}

/* An address inside an instruction is refused, whichever path it would take. */
static void test_not_a_boundary(void **state)
{
	struct trev_site *site;
	const char *why = NULL;
	uint8_t before[8];

	(void)state;
	memcpy(before, (const void *)(uintptr_t)ps_push_rbp, sizeof(before));
	/* Byte 2 of mov %rsp,%rbp (48 89 e5) */
	assert_int_equal(trev__site_attach((uintptr_t)ps_push_rbp + 2, on_hit, NULL, &site, &why),
			 -EINVAL);
	assert_non_null(why);
	assert_non_null(strstr(why, "boundary"));
	/* Byte 1 of ps_short's xor %eax,%eax (31 c0): an int3 there would be a different instruction. */
	assert_int_equal(trev__site_attach((uintptr_t)ps_short + 1, on_hit, NULL, &site, &why),
			 -EINVAL);
	assert_memory_equal(before, (const void *)(uintptr_t)ps_push_rbp, sizeof(before));
}

/* A probed call made inside a handler is not handled again (and does not recurse). */
static struct probe nest_p;
static atomic_ulong nest_hits;

static void on_hit_nesting(struct trev_regs *regs, void *data)
{
	(void)regs;
	(void)data;
	atomic_fetch_add(&nest_hits, 1);
	assert_int_equal(call2(1, 1), 2);
}

static void test_nested(void **state)
{
	const char *why;

	(void)state;
#ifdef PS_TSAN
	skip();		/* the nested hit would be an int3 inside the SIGTRAP handler */
#endif
	nest_p.addr = (uintptr_t)ps_push_rbp;
	assert_int_equal(trev__site_attach(nest_p.addr, on_hit_nesting, NULL, &nest_p.site, &why), 0);
	call2 = ps_push_rbp;
	assert_int_equal(call2(2, 3), 5);
	assert_int_equal(atomic_load(&nest_hits), 1);
	assert_int_equal(trev__site_missed(nest_p.site), 1);
	assert_int_equal(trev__site_detach(nest_p.site), 0);
}

/* ---- signal handlers and fork ---- */

static volatile long sig_result;

static void on_usr1(int sig)
{
	(void)sig;
	sig_result = call2(20, 22);
}

static void test_signal_handler(void **state)
{
	const void *fns[2] = { ps_push_rbp, ps_jump_back };
	long want[2] = { 42, 440 };

	(void)state;
#ifdef PS_TSAN
	skip();
#endif
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 2; i++) {
		struct seen s = { 0 };
		struct probe p;

		attach(&p, fns[i], 0, &s);
		call2 = (long (*)(long, long))(uintptr_t)fns[i];
		sig_result = 0;
		raise(SIGUSR1);
		assert_int_equal(sig_result, want[i]);
		assert_int_equal(atomic_load(&s.hits), 1);
		assert_int_equal(s.di, 20);
		detach(&p);
	}
	signal(SIGUSR1, SIG_DFL);
}

/* The child has the patched text and the trampolines: its calls are handled too. */
static void test_fork(void **state)
{
	struct seen s = { 0 };
	struct probe p, q;
	struct seen t = { 0 };
	pid_t pid;
	int st;

	(void)state;
	attach(&p, ps_push_rbp, 0, &s);
	attach(&q, ps_short, 0, &t);
	call2 = ps_push_rbp;
	call1 = ps_short;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok = call2(1, 2) == 3 && call1(0) == 0 && atomic_load(&s.hits) == 1 &&
			 atomic_load(&t.hits) == 1;

		/* The child unpatches its own copy. */
		ok = ok && trev__site_detach(p.site) == 0 && trev__site_detach(q.site) == 0 &&
		     call2(1, 2) == 3 && atomic_load(&s.hits) == 1;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* The parent's text is still patched. */
	assert_int_equal(call2(1, 2), 3);
	assert_int_equal(atomic_load(&s.hits), 1);
	detach(&q);
	detach(&p);
}

/* ---- 8 threads calling while the site is attached and detached ---- */

#define HAMMER_THREADS	8

struct hammer {
	long (*fn)(long, long);
	long want_add;			/* fn(i, 1) returns i + want_add */
	_Atomic int armed;		/* attach done, detach not started */
	atomic_int stop;
	atomic_ulong hits[HAMMER_THREADS];
	atomic_ulong windowed[HAMMER_THREADS];	/* calls made entirely inside a window */
	atomic_ulong calls[HAMMER_THREADS];	/* every call */
	atomic_int failed;
	int cycles;
};

static struct hammer hm;

static void on_hammer(struct trev_regs *regs, void *data)
{
	(void)data;
	if (regs->di >= 1 && regs->di <= HAMMER_THREADS)
		atomic_fetch_add(&hm.hits[regs->di - 1], 1);
}

static void *hammer_thread(void *arg)
{
	long idx = (long)(intptr_t)arg;

	while (!atomic_load(&hm.stop)) {
		int a = atomic_load(&hm.armed);
		unsigned long h0 = atomic_load(&hm.hits[idx - 1]);
		long r = hm.fn(idx, 1);
		unsigned long h1 = atomic_load(&hm.hits[idx - 1]);
		int b = atomic_load(&hm.armed);

		if (r != idx + hm.want_add)
			atomic_store(&hm.failed, 1);
		else if (h1 - h0 > 1)
			atomic_store(&hm.failed, 2);
		else if (a && b && h1 - h0 != 1)
			atomic_store(&hm.failed, 3);
		if (a && b)
			atomic_fetch_add(&hm.windowed[idx - 1], 1);
		atomic_fetch_add(&hm.calls[idx - 1], 1);
	}
	return NULL;
}

/* Until every thread made one more call of those @count counts (or one failed). */
static void hammer_wait_calls(atomic_ulong *count)
{
	unsigned long base[HAMMER_THREADS];

	for (int i = 0; i < HAMMER_THREADS; i++)
		base[i] = atomic_load(&count[i]);
	for (int i = 0; i < HAMMER_THREADS; i++)
		while (atomic_load(&count[i]) <= base[i] && !atomic_load(&hm.failed))
			sched_yield();
}

static void hammer(long (*fn)(long, long), long want_add, int cycles, enum trev_site_kind kind)
{
	pthread_t th[HAMMER_THREADS];

	memset(&hm, 0, sizeof(hm));
	hm.fn = fn;
	hm.want_add = want_add;
	for (long i = 0; i < HAMMER_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer_thread, (void *)(intptr_t)(i + 1)), 0);
	for (int c = 0; c < cycles && !atomic_load(&hm.failed); c++) {
		struct trev_site *site;
		const char *why;
		uint8_t before[8];

		memcpy(before, (const void *)(uintptr_t)fn, sizeof(before));
		assert_int_equal(trev__site_attach((uintptr_t)fn, on_hammer, NULL, &site, &why), 0);
		assert_int_equal(trev__site_kind(site), kind);
		atomic_store(&hm.armed, 1);
		hammer_wait_calls(hm.windowed);
		atomic_store(&hm.armed, 0);
		assert_int_equal(trev__site_detach(site), 0);
		assert_memory_equal(before, (const void *)(uintptr_t)fn, sizeof(before));
		/* Detached: calls go on, unseen. */
		hammer_wait_calls(hm.calls);
	}
	atomic_store(&hm.stop, 1);
	for (int i = 0; i < HAMMER_THREADS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&hm.failed), 0);
}

static void test_hammer_relocated(void **state)
{
	(void)state;
	hammer(ps_push_rbp, 1, 30, RELOCATED);	/* ps_push_rbp(i, 1) = i + 1 */
}

static void test_hammer_int3(void **state)
{
	(void)state;
	hammer(ps_jump_back, 0, 30, TREV_SITE_INT3);		/* ps_jump_back(i, 1) = i */
}

/* ---- the relocator ---- */

struct reloc_case {
	const char *name;
	uint8_t in[16];
	size_t in_size;
	size_t min_len;
	int ret;			/* 0 or -errno */
	uint8_t out[32];		/* for addr 0x100000, dest 0x200000 */
	size_t out_len;
	size_t in_len;
};

static const struct reloc_case reloc_cases[] = {
	{ "push rbp; mov rsp,rbp; sub $16,rsp",
	  { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10 }, 8, 5, 0,
	  { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10,
	    0xe9, 0xfb, 0xff, 0xef, 0xff }, 13, 8 },	/* jmp 0x100008 from 0x20000d */
	{ "jmp rel8 becomes rel32", { 0xeb, 0x10, 0x90, 0x90, 0x90 }, 5, 1, 0,
	  { 0xe9, 0x0d, 0x00, 0xf0, 0xff,		/* jmp 0x100012 from 0x200005 */
	    0xe9, 0xf8, 0xff, 0xef, 0xff }, 10, 2 },	/* jmp 0x100002 from 0x20000a */
	{ "jz rel8 becomes jz rel32", { 0x74, 0x02, 0x90, 0x90, 0x90 }, 5, 1, 0,
	  { 0x0f, 0x84, 0xfe, 0xff, 0xef, 0xff,		/* jz 0x100004 from 0x200006 */
	    0xe9, 0xf7, 0xff, 0xef, 0xff }, 11, 2 },	/* jmp 0x100002 from 0x20000b */
	{ "mov disp(%rip),%rax re-aimed", { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00 }, 7, 5, 0,
	  { 0x48, 0x8b, 0x05, 0x00, 0x01, 0xf0, 0xff,	/* 0x100107 - 0x200007 */
	    0xe9, 0xfb, 0xff, 0xef, 0xff }, 12, 7 },
	{ "call rel32: push the return address, jmp", { 0xe8, 0x00, 0x10, 0x00, 0x00 }, 5, 5, 0,
	  { 0xff, 0x35, 0x0a, 0x00, 0x00, 0x00,		/* push 0x200010(%rip) */
	    0xe9, 0xfa, 0x0f, 0xf0, 0xff,		/* jmp 0x101005 from 0x20000b */
	    0xe9, 0xf5, 0xff, 0xef, 0xff,		/* jmp 0x100005 from 0x200010 */
	    0x05, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00 }, 24, 5 },
	{ "call that returns inside the 5 bytes", { 0xff, 0xd0, 0x90, 0x90, 0x90 }, 5, 5, -EINVAL, { 0 }, 0, 0 },
	{ "ret before the 5 bytes", { 0x31, 0xc0, 0xc3, 0x90, 0x90 }, 5, 5, -EINVAL, { 0 }, 0, 0 },
	{ "loop has no rel32 form", { 0xe2, 0xfe, 0x90, 0x90, 0x90 }, 5, 1, -EINVAL, { 0 }, 0, 0 },
	{ "an int3 already there", { 0xcc, 0x90, 0x90, 0x90, 0x90 }, 5, 1, -EINVAL, { 0 }, 0, 0 },
	{ "truncated instruction", { 0x48, 0x8b }, 2, 1, -EINVAL, { 0 }, 0, 0 },
};

static void test_relocator(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(reloc_cases) / sizeof(reloc_cases[0]); i++) {
		const struct reloc_case *c = &reloc_cases[i];
		uint8_t out[TREV_SITE_RELOC_MAX];
		struct trev_site_reloc r;
		const char *why = NULL;
		int ret = trev__site_relocate(c->in, c->in_size, 0x100000, c->min_len, 0x200000,
					      out, &r, &why);

		print_message("%s: %d %s\n", c->name, ret, why ? why : "");
		assert_int_equal(ret, c->ret);
		if (ret) {
			assert_non_null(why);
			continue;
		}
		assert_int_equal(r.in_len, c->in_len);
		assert_int_equal(r.out_len, c->out_len);
		assert_memory_equal(out, c->out, c->out_len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relocator),
		cmocka_unit_test(test_push_rbp),
		cmocka_unit_test(test_rip_relative),
		cmocka_unit_test(test_short_takes_int3),
		cmocka_unit_test(test_jump_back_takes_int3),
		cmocka_unit_test(test_call_and_jcc_first),
		cmocka_unit_test(test_registers_kept),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_not_a_boundary),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_signal_handler),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_hammer_relocated),
		cmocka_unit_test(test_hammer_int3),
	};

	if (getenv("PS_TEST"))
		cmocka_set_test_filter(getenv("PS_TEST"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
