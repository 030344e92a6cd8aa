// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Probe events at any instruction of any loaded object (src/probe/,
 * docs/probes.md "Targets"), in a program built without trev's function
 * flags: libc's malloc() and open() with their arguments, SYMBOL+OFFS in a
 * function of tests/patch/ps_funcs.S (its bytes known) and a non-boundary
 * refused with the kernel's text and caret, a .symtab-only function, sites
 * in one function (one inside another's relocated prologue refused),
 * PATH:OFFSET, r: with $retval, a module's probe defined before its
 * dlopen() and kept through dlclose() and a second dlopen(), 8 threads
 * calling libc's labs() while its probe is enabled and disabled, and a
 * child of fork() recording under its own pid.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>

long ps_push_rbp(long a, long b);
long ps_call_first(long a);
long ps_rip_load(long a);

static char text[16 << 20];

/* @path's whole text: a read that fills the buffer may have been cut, and fails. */
static const char *rd(const char *path)
{
	ssize_t n = trev_read(path, text, sizeof(text));

	assert_true(n >= 0);
	assert_true((size_t)n < sizeof(text) - 1);
	return text;
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void reset(void)
{
	trev_write("events/enable", "0");
	trev_write("trace", "");
	assert_int_equal(trev_write("uprobe_events", ""), 0);
	assert_int_equal(trev_write("kprobe_events", ""), 0);
	assert_int_equal(trev_write("error_log", ""), 0);
}

static int def(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int def(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return trev_append("uprobe_events", line);
}

/* The error_log entry's message and caret column. */
static void assert_error(const char *d, const char *subsystem, const char *msg, int col)
{
	const char *log, *caret, *line;
	char want[256];

	assert_int_equal(trev_write("error_log", ""), 0);
	assert_int_equal(trev_append("uprobe_events", d), -EINVAL);
	log = rd("error_log");
	snprintf(want, sizeof(want), "%s: error: %s\n", subsystem, msg);
	if (!strstr(log, want))
		fail_msg("%s: error_log has no \"%s\":\n%s", d, want, log);
	caret = strchr(log, '^');
	assert_non_null(caret);
	for (line = caret; line > log && line[-1] != '\n'; line--)
		;
	if ((int)(caret - line) != 11 + col)
		fail_msg("%s: caret at %d, not %d:\n%s", d, (int)(caret - line) - 11, col, log);
}

/* Called through pointers: the compiler may not drop or inline them. */
static void *(*volatile call_malloc)(size_t) = malloc;
static int (*volatile call_open)(const char *, int, ...) = open;
static long (*volatile call_labs)(long) = labs;

/* libc's malloc() and open() (this program has no trev flags at all). */
static void test_libc(void **state)
{
	const char *t;
	void *p;
	int fd;

	(void)state;
	reset();
	assert_int_equal(def("p:t/malloc malloc size=%%di:u64"), 0);
	assert_int_equal(def("p:t/open libc:open path=+0(%%di):string flags=%%si:x32"), 0);
	assert_int_equal(trev_write("events/t/malloc/filter", "size == 12345"), 0);
	assert_int_equal(trev_write("events/t/enable", "1"), 0);
	p = call_malloc(12345);
	fd = call_open("/nonexistent/trev-probe-any", O_RDONLY | O_CLOEXEC);
	assert_int_equal(trev_write("events/t/enable", "0"), 0);
	assert_non_null(p);
	free(p);
	assert_int_equal(fd, -1);
	t = rd("trace");
	/* (A sanitizer's malloc is the one called, and probed: its name may differ.) */
	if (count_of(t, " malloc: (") != 1 || count_of(t, ") size=12345\n") != 1 ||
	    count_of(t, ") path=\"/nonexistent/trev-probe-any\" flags=0x80000\n") != 1)
		fail_msg("trace:\n%s", t);
	reset();
}

/* A copy of the first bytes of ps_push_rbp, to compare. */
static unsigned char code_before[16];

/* SYMBOL+OFFS at an instruction boundary; not at one: refused; r: with an offset: refused. */
static void test_offset(void **state)
{
	const char *t;

	(void)state;
	reset();
	memcpy(code_before, (const void *)ps_push_rbp, sizeof(code_before));
	assert_int_equal(def("p:t/off ps_push_rbp+1 a=%%di:s64 b=%%si:s64 bp=%%bp"), 0);
	assert_non_null(strstr(rd("uprobe_events"), "p:t/off ps_push_rbp+1 a=%di:s64"));
	/* Defined, disabled: the code is as it was. */
	assert_memory_equal(code_before, (const void *)ps_push_rbp, sizeof(code_before));
	assert_int_equal(trev_write("events/t/off/enable", "1"), 0);
	assert_memory_not_equal(code_before, (const void *)ps_push_rbp, sizeof(code_before));
	assert_int_equal(ps_push_rbp(3, -4), -1);
	assert_int_equal(trev_write("events/t/off/enable", "0"), 0);
	assert_memory_equal(code_before, (const void *)ps_push_rbp, sizeof(code_before));
	ps_push_rbp(5, 5);
	t = rd("trace");
	if (count_of(t, " off: (ps_push_rbp+0x1/0x") != 1 || !strstr(t, ") a=3 b=-4 bp=0x"))
		fail_msg("trace:\n%s", t);
	assert_error("p:t/bad ps_push_rbp+2", "trace_uprobe",
		     "Probe point is not an instruction boundary", 8);
	assert_error("p:t/bad libps_funcs:ps_push_rbp+3", "trace_uprobe",
		     "Probe point is not an instruction boundary", 8);
	assert_error("r:t/bad ps_push_rbp+1", "trace_uprobe",
		     "Retprobe address must be an function entry", 8);
	assert_error("p:t/bad ps_push_rbp+4096", "trace_uprobe",
		     "Invalid probed address or symbol", 8);
	assert_error("p:t/bad no_such_function_here", "trace_uprobe",
		     "Invalid probed address or symbol", 8);
	/* The probe before them stays. */
	assert_non_null(strstr(rd("uprobe_events"), "p:t/off ps_push_rbp+1"));

	/* ps_seven is hidden: in .symtab only. */
	assert_int_equal(def("p:t/seven ps_seven ax=%%ax"), 0);
	assert_int_equal(trev_write("events/t/seven/enable", "1"), 0);
	assert_int_equal(ps_call_first(1), 8);
	assert_int_equal(trev_write("events/t/seven/enable", "0"), 0);
	t = rd("trace");
	if (count_of(t, " seven: (ps_seven+0x0/0x") != 1)
		fail_msg("trace:\n%s", t);
	reset();
}

/*
 * Sites in one function: one defined while another is attached is checked
 * against the original bytes; one inside the other's relocated prologue is
 * refused; one past it takes its own site.
 */
static void test_overlap(void **state)
{
	const char *t;
	int c_hits = 0;

	(void)state;
	reset();
	memcpy(code_before, (const void *)ps_push_rbp, sizeof(code_before));
	assert_int_equal(def("p:t/a ps_push_rbp a=%%di:s64"), 0);
	assert_int_equal(trev_write("events/t/a/enable", "1"), 0);
	/* push %%rbp (1), mov %%rsp,%%rbp (3), lea (4): the jmp at 0 covers bytes 0-7. */
	assert_int_equal(def("p:t/b ps_push_rbp+8 ax=%%ax:s64"), 0);
	assert_int_equal(def("p:t/c ps_push_rbp+4"), 0);
	assert_error("p:t/bad ps_push_rbp+6", "trace_uprobe",
		     "Probe point is not an instruction boundary", 8);
	assert_int_equal(trev_write("events/t/b/enable", "1"), 0);
#ifdef __SANITIZE_THREAD__
	/* Every site is an int3 in a ThreadSanitizer build: nothing is relocated. */
	assert_int_equal(trev_write("events/t/c/enable", "1"), 0);
	c_hits = 1;
#else
	assert_int_equal(trev_write("events/t/c/enable", "1"), -EBUSY);
#endif
	assert_int_equal(ps_push_rbp(2, 3), 5);
	assert_int_equal(trev_write("events/t/a/enable", "0"), 0);
	assert_int_equal(trev_write("events/t/b/enable", "0"), 0);
	assert_int_equal(trev_write("events/t/c/enable", "0"), 0);
	assert_memory_equal(code_before, (const void *)ps_push_rbp, sizeof(code_before));
	t = rd("trace");
	if (count_of(t, " a: (ps_push_rbp+0x0/0x") != 1 || !strstr(t, ") a=2\n") ||
	    count_of(t, " b: (ps_push_rbp+0x8/0x") != 1 || !strstr(t, ") ax=5\n") ||
	    count_of(t, " c: ") != c_hits)
		fail_msg("trace:\n%s", t);
	reset();
}

struct seg_find {
	uintptr_t addr;
	unsigned long off;
	bool found;
};

static int seg_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct seg_find *f = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= lo && f->addr - lo < ph->p_filesz) {
			f->off = ph->p_offset + (f->addr - lo);
			f->found = true;
			return 1;
		}
	}
	return 0;
}

/* PATH:OFFSET, the uprobe form: a file offset mapped through the PT_LOAD segments; ADDRESS. */
static void test_path_offset(void **state)
{
	struct seg_find f = { .addr = (uintptr_t)ps_push_rbp + 1 };
	Dl_info di;
	const char *t;

	(void)state;
	reset();
	assert_true(dladdr((void *)ps_push_rbp, &di));
	dl_iterate_phdr(seg_cb, &f);
	assert_true(f.found);
	assert_int_equal(def("p:t/po %s:0x%lx a=%%di:s64", di.dli_fname, f.off), 0);
	assert_int_equal(trev_write("events/t/po/enable", "1"), 0);
	ps_push_rbp(21, 0);
	assert_int_equal(trev_write("events/t/po/enable", "0"), 0);
	t = rd("trace");
	if (count_of(t, " po: (ps_push_rbp+0x1/0x") != 1 || !strstr(t, ") a=21\n"))
		fail_msg("trace:\n%s", t);
	/* ADDRESS: a run-time address in a loaded object. */
	assert_int_equal(def("p:t/ad 0x%lx a=%%di:s64", (unsigned long)(uintptr_t)ps_push_rbp + 1), 0);
	assert_int_equal(trev_write("events/t/ad/enable", "1"), 0);
	ps_push_rbp(22, 0);
	assert_int_equal(trev_write("events/t/ad/enable", "0"), 0);
	t = rd("trace");
	if (count_of(t, " ad: (ps_push_rbp+0x1/0x") != 1 || !strstr(t, ") a=22\n"))
		fail_msg("trace:\n%s", t);
	/* PATH:SYMBOL+OFFS. */
	assert_int_equal(def("p:t/ps %s:ps_push_rbp+4 ax=%%ax:s64", di.dli_fname), 0);
	assert_int_equal(trev_write("events/t/ps/enable", "1"), 0);
	ps_push_rbp(1, 1);
	assert_int_equal(trev_write("events/t/ps/enable", "0"), 0);
	assert_int_equal(count_of(rd("trace"), " ps: (ps_push_rbp+0x4/0x"), 1);
	reset();
}

/* r: on a function without the flags: $retval, and where it returned to. */
static void test_return(void **state)
{
	const char *t;

	(void)state;
	reset();
	memcpy(code_before, (const void *)ps_push_rbp, sizeof(code_before));
	assert_int_equal(def("r:t/ret ps_push_rbp rv=$retval:s64"), 0);
	assert_int_equal(def("p:t/ret2 ps_rip_load%%return rv=$retval:s64"), 0);
	assert_int_equal(trev_write("events/t/enable", "1"), 0);
	assert_int_equal(ps_push_rbp(40, 2), 42);
	assert_int_equal(ps_push_rbp(-50, 3), -47);
	ps_rip_load(1);
	assert_int_equal(trev_write("events/t/enable", "0"), 0);
	assert_memory_equal(code_before, (const void *)ps_push_rbp, sizeof(code_before));
	t = rd("trace");
	if (count_of(t, " <- ps_push_rbp) rv=42\n") != 1 ||
	    count_of(t, " <- ps_push_rbp) rv=-47\n") != 1 ||
	    count_of(t, " ret: (test_return+0x") != 2 || count_of(t, " <- ps_rip_load) rv=") != 1)
		fail_msg("trace:\n%s", t);
	reset();
}

/* A module's probes defined before its dlopen(), hit, kept through dlclose(), hit again. */
static void test_dlopen(void **state)
{
	long (*f)(long, long);
	long (*g)(long);
	const char *t;
	void *h;

	(void)state;
	reset();
	assert_null(dlopen(PR_MOD_PATH, RTLD_NOW | RTLD_NOLOAD));
	assert_int_equal(def("p:t/mod libpr_mod:ps_push_rbp a=%%di:s64"), 0);
	assert_int_equal(def("p:t/modoff libpr_mod:ps_rip_load+7 b=%%di:s64"), 0);
	assert_int_equal(def("r:t/modret %s:ps_push_rbp rv=$retval:s64", PR_MOD_PATH), 0);
	assert_int_equal(trev_write("events/t/enable", "1"), 0);
	for (int round = 1; round <= 2; round++) {
		h = dlopen(PR_MOD_PATH, RTLD_NOW);
		assert_non_null(h);
		f = (long (*)(long, long))dlsym(h, "ps_push_rbp");
		assert_non_null(f);
		assert_ptr_not_equal(f, ps_push_rbp);
		assert_int_equal(f(100 * round, round), 101 * round);
		g = (long (*)(long))dlsym(h, "ps_rip_load");
		assert_non_null(g);
		g(round);
		assert_int_equal(dlclose(h), 0);
		assert_null(dlopen(PR_MOD_PATH, RTLD_NOW | RTLD_NOLOAD));
		assert_non_null(strstr(rd("uprobe_events"), "p:t/mod libpr_mod:ps_push_rbp"));
	}
	assert_int_equal(trev_write("events/t/enable", "0"), 0);
	t = rd("trace");
	/* The module is gone: its addresses are printed as numbers. */
	if (count_of(t, " mod: (0x") != 2 || !strstr(t, ") a=100\n") ||
	    !strstr(t, ") a=200\n") || count_of(t, " modoff: (0x") != 2 ||
	    !strstr(t, ") b=1\n") || !strstr(t, ") b=2\n") ||
	    count_of(t, " modret: (test_dlopen+0x") != 2 || !strstr(t, ") rv=101\n") ||
	    !strstr(t, ") rv=202\n"))
		fail_msg("trace:\n%s", t);
	/* Loaded again while disabled: the code is the file's. */
	h = dlopen(PR_MOD_PATH, RTLD_NOW);
	assert_non_null(h);
	f = (long (*)(long, long))dlsym(h, "ps_push_rbp");
	assert_int_equal(memcmp((const void *)f, (const void *)ps_push_rbp, 8), 0);
	assert_int_equal(dlclose(h), 0);
	reset();
}

/*
 * The same with a module built with trev's flags (ft_mod): the probe at its
 * function's patchable entry, the function tracer's site, which goes with
 * the module at dlclose() and comes back with it.
 */
static void test_dlopen_entry(void **state)
{
	int (*twice)(int);
	const char *t;
	void *h;

	(void)state;
	reset();
	assert_int_equal(def("p:t/fm libft_mod:ft_mod_twice x=%%di:s32"), 0);
	assert_int_equal(def("r:t/fmr libft_mod:ft_mod_twice rv=$retval:s32"), 0);
	assert_int_equal(trev_write("events/t/enable", "1"), 0);
	for (int round = 1; round <= 2; round++) {
		h = dlopen(FT_MOD, RTLD_NOW);
		assert_non_null(h);
		twice = (int (*)(int))dlsym(h, "ft_mod_twice");
		assert_non_null(twice);
		assert_int_equal(twice(10 * round), 20 * round);
		assert_int_equal(dlclose(h), 0);
	}
	assert_int_equal(trev_write("events/t/enable", "0"), 0);
	t = rd("trace");
	if (count_of(t, " fm: (0x") != 2 || !strstr(t, ") x=10\n") || !strstr(t, ") x=20\n") ||
	    count_of(t, " fmr: (test_dlopen_entry+0x") != 2 || !strstr(t, ") rv=20\n") ||
	    !strstr(t, ") rv=40\n"))
		fail_msg("trace:\n%s", t);
	reset();
}

#define HAMMER_THREADS	8

static atomic_bool hammer_stop;
static atomic_long hammer_calls;	/* calls with 41, made in phase 1 */
static atomic_int hammer_phase;		/* 1: call with 41 and count them */
static atomic_int hammer_acks;		/* threads that saw phase 2 */

static void *hammer(void *arg)
{
	bool acked = false;

	(void)arg;
	while (!atomic_load(&hammer_stop)) {
		int phase = atomic_load(&hammer_phase);

		if (phase == 1) {
			call_labs(41);
			atomic_fetch_add(&hammer_calls, 1);
			continue;
		}
		if (phase == 2 && !acked) {
			acked = true;
			atomic_fetch_add(&hammer_acks, 1);
		}
		call_labs(-7);
	}
	return NULL;
}

/* Wait (bounded: only a test that already failed waits that long) until @v reaches @n. */
static void wait_for(atomic_long *v, long n)
{
	for (int i = 0; i < 600000 && atomic_load(v) < n; i++)
		usleep(100);
	assert_true(atomic_load(v) >= n);
}

/*
 * libc's labs() probed, enabled and disabled 20 times while 8 threads call
 * it; then exactly one record for each call with 41 made between a
 * filtered probe's enable and disable.
 */
static void test_hammer(void **state)
{
	pthread_t th[HAMMER_THREADS];
	long calls;
	const char *t;

	(void)state;
	reset();
	assert_int_equal(trev_write("buffer_size_kb", "4096"), 0);
	for (int i = 0; i < HAMMER_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer, NULL), 0);
	assert_int_equal(def("p:h/x libc:labs a=%%di:s64"), 0);
	for (int round = 0; round < 20; round++) {
		assert_int_equal(trev_write("events/h/x/enable", "1"), 0);
		assert_int_equal(trev_write("events/h/x/enable", "0"), 0);
	}
	assert_int_equal(trev_write("events/h/x/filter", "a == 41"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_write("events/h/x/enable", "1"), 0);
	atomic_store(&hammer_phase, 1);
	wait_for(&hammer_calls, 2000);
	atomic_store(&hammer_phase, 2);
	for (int i = 0; i < 600000 && atomic_load(&hammer_acks) < HAMMER_THREADS; i++)
		usleep(100);
	assert_int_equal(atomic_load(&hammer_acks), HAMMER_THREADS);
	assert_int_equal(trev_write("events/h/x/enable", "0"), 0);
	atomic_store(&hammer_stop, true);
	for (int i = 0; i < HAMMER_THREADS; i++)
		pthread_join(th[i], NULL);
	calls = atomic_load(&hammer_calls);
	t = rd("trace");
	if (count_of(t, " x: (") != calls || count_of(t, ") a=41\n") != calls)
		fail_msg("%d records of %ld calls", count_of(t, " x: ("), calls);
	reset();
}

/* A child of fork() hits the probe: its record is under its own pid, in its own buffers. */
static void test_fork(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	reset();
	assert_int_equal(def("p:t/fk ps_push_rbp+1 a=%%di:s64"), 0);
	assert_int_equal(trev_write("events/t/fk/enable", "1"), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char want[64];
		const char *t;
		ssize_t n;

		ps_push_rbp(99, 0);
		n = trev_read("trace", text, sizeof(text));
		t = n > 0 ? text : "";
		snprintf(want, sizeof(want), "-%d ", (int)getpid());
		for (const char *l = strstr(t, ") a=99\n"); l; l = NULL) {
			const char *bol = l;

			while (bol > t && bol[-1] != '\n')
				bol--;
			if (strstr(bol, want) && strstr(bol, want) < l)
				_exit(0);
		}
		fprintf(stderr, "child %d: trace:\n%s", (int)getpid(), t);
		_exit(1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	ps_push_rbp(98, 0);
	assert_int_equal(trev_write("events/t/fk/enable", "0"), 0);
	assert_int_equal(count_of(rd("trace"), ") a=98\n"), 1);
	assert_int_equal(count_of(text, ") a=99\n"), 0);
	reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_offset),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_path_offset),
		cmocka_unit_test(test_return),
		cmocka_unit_test(test_dlopen),
		cmocka_unit_test(test_dlopen_entry),
		cmocka_unit_test(test_hammer),
		cmocka_unit_test(test_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
