/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Jump labels (docs/jump-labels.md), built with -DTREV_JUMP_LABEL=1: the
 * sites follow the event's state; 8 threads call trace_jl_tick() while the
 * event and a probe go on and off, and every quiet phase after a change
 * records exactly its calls or none; a thread that blocks SIGTRAP refuses
 * an enable (EBUSY, error_log, nothing changed) but not TREV_EVENTS at
 * start-up; fork after enabling; a dlopen()ed module's sites, for its own
 * event and for the program's, and dlclose while enabled.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
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

#define CREATE_TRACE_POINTS
#include "jl_events.h"

#ifndef TREV_JUMP_LABEL_ON
#error "built without jump labels: tests/CMakeLists.txt passes -DTREV_JUMP_LABEL=1"
#endif
#ifndef JL_MOD
#error "JL_MOD must name the path of the test module (tests/CMakeLists.txt)"
#endif

#define NR_THREADS	8
#define ROUNDS		200	/* changes in the hammer test */
#define QUIET_CALLS	64	/* counted calls of a quiet phase */
#define ENV_CHILD_ARG	"--env-child"
#define JL_ENABLE	"events/jl_test/jl_tick/enable"
#define JL_MOD_ENABLE	"events/jl_mod/jl_mod_ev/enable"

void jl_fire_cxx(int n);	/* jl_cxx.cpp: the same, from C++ */

/* Calls trace_jl_tick() @n times. __attribute__((noinline)): its site is one of the table's. */
static __attribute__((noinline)) void fire(int n)
{
	for (int i = 0; i < n; i++)
		trace_jl_tick(i);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

/* The trace text, malloc'd. */
static char *trace_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(trev_trace_print(f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* How many records of event @name ("jl_tick") the trace holds. */
static int count_records(const char *name)
{
	char *text = trace_text(), pat[64];
	int n = 0;

	snprintf(pat, sizeof(pat), " %s: n=", name);
	for (const char *p = text; (p = strstr(p, pat)); p++)
		n++;
	free(text);
	return n;
}

/* The first byte of each of the program's jl_tick sites: all @byte? */
static bool sites_are(uint8_t byte)
{
	int n = 0;

	for (const struct trev_jump_entry *e = __start___trev_jump_table;
	     e < __stop___trev_jump_table; e++) {
		const uint8_t *code = (const uint8_t *)&e->code + e->code;

		if (e->tp != &__tracepoint_jl_tick)
			continue;
		if (*code != byte)
			return false;
		n++;
	}
	return n > 0;
}

static atomic_long probe_hits;

static void count_probe(void *data, int n)
{
	(void)data;
	(void)n;
	atomic_fetch_add(&probe_hits, 1);
}

/* ------------------------------------------------------------------ */
/* The sites follow the event                                           */

static void test_sites_follow_state(void **state)
{
	(void)state;
	assert_int_equal(trev_trace_reset(), 0);
	assert_true(sites_are(0x0f));		/* nopl */
	fire(QUIET_CALLS);
	assert_int_equal(count_records("jl_tick"), 0);

	jl_fire_cxx(QUIET_CALLS);
	assert_int_equal(count_records("jl_tick"), 0);

	assert_int_equal(trev_write(JL_ENABLE, "1"), 0);
	assert_true(sites_are(0xe9));		/* jmp */
	fire(QUIET_CALLS);
	assert_int_equal(count_records("jl_tick"), QUIET_CALLS);
	jl_fire_cxx(QUIET_CALLS);
	assert_int_equal(count_records("jl_tick"), 2 * QUIET_CALLS);

	assert_int_equal(trev_write(JL_ENABLE, "0"), 0);
	assert_true(sites_are(0x0f));
	assert_int_equal(trev_trace_reset(), 0);
	fire(QUIET_CALLS);
	assert_int_equal(count_records("jl_tick"), 0);
}

/* ------------------------------------------------------------------ */
/* The hammer                                                           */

static atomic_bool hammer_stop, hammer_park;
static atomic_int hammer_parked;
static atomic_long hammer_calls[NR_THREADS];

static void *hammer_main(void *arg)
{
	atomic_long *calls = arg;

	while (!atomic_load(&hammer_stop)) {
		if (atomic_load(&hammer_park)) {
			atomic_fetch_add(&hammer_parked, 1);
			while (atomic_load(&hammer_park) && !atomic_load(&hammer_stop))
				sched_yield();
			atomic_fetch_sub(&hammer_parked, 1);
			continue;
		}
		trace_jl_tick((int)atomic_fetch_add_explicit(calls, 1, memory_order_relaxed));
	}
	return NULL;
}

/* Stop the threads between two calls; a quiet phase follows. */
static void hammer_pause(void)
{
	atomic_store(&hammer_park, true);
	while (atomic_load(&hammer_parked) != NR_THREADS)
		sched_yield();
}

static void hammer_resume(void)
{
	atomic_store(&hammer_park, false);
	while (atomic_load(&hammer_parked) != 0)
		sched_yield();
}

static void test_hammer(void **state)
{
	pthread_t th[NR_THREADS];
	bool event_on = false, probe_on = false;
	long total = 0;

	(void)state;
	for (int i = 0; i < NR_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer_main, &hammer_calls[i]), 0);
	for (int r = 0; r < ROUNDS; r++) {
		long hits;

		/*
		 * The change, while the threads run the sites: the event and
		 * the probe each come first and go last in turn, so that both
		 * turn the sites on and off.
		 */
		static const char order[] = "EPepPEpe";	/* upper: on, lower: off */
		char c = order[r % 8];

		if (c == 'E' || c == 'e') {
			assert_int_equal(trev_write(JL_ENABLE, c == 'E' ? "1" : "0"), 0);
			event_on = c == 'E';
		} else if (c == 'P') {
			assert_int_equal(register_trace_jl_tick(count_probe, NULL), 0);
			probe_on = true;
		} else {
			assert_int_equal(unregister_trace_jl_tick(count_probe, NULL), 0);
			tracepoint_synchronize_unregister();
			probe_on = false;
		}
		/* The quiet phase: exactly its calls, or none. */
		hammer_pause();
		assert_int_equal(trev_trace_reset(), 0);
		hits = atomic_load(&probe_hits);
		fire(QUIET_CALLS);
		assert_int_equal(count_records("jl_tick"), event_on ? QUIET_CALLS : 0);
		assert_int_equal(atomic_load(&probe_hits) - hits, probe_on ? QUIET_CALLS : 0);
		assert_true(sites_are(event_on || probe_on ? 0xe9 : 0x0f));
		hammer_resume();
	}
	atomic_store(&hammer_stop, true);
	for (int i = 0; i < NR_THREADS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		total += atomic_load(&hammer_calls[i]);
	}
	assert_true(total > 0);
	print_message("hammer: %d changes, %ld calls by %d threads\n", ROUNDS, total, NR_THREADS);
	assert_false(event_on || probe_on);
	assert_true(sites_are(0x0f));
}

/* ------------------------------------------------------------------ */
/* A thread that blocks SIGTRAP                                         */

static pthread_mutex_t blocker_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t blocker_cond = PTHREAD_COND_INITIALIZER;
static bool blocker_ready, blocker_go;

static void *blocker_main(void *arg)
{
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_lock(&blocker_mutex);
	blocker_ready = true;
	pthread_cond_broadcast(&blocker_cond);
	while (!blocker_go)
		pthread_cond_wait(&blocker_cond, &blocker_mutex);
	pthread_mutex_unlock(&blocker_mutex);
	return NULL;
}

static void blocker_start(pthread_t *th)
{
	blocker_ready = blocker_go = false;
	assert_int_equal(pthread_create(th, NULL, blocker_main, NULL), 0);
	pthread_mutex_lock(&blocker_mutex);
	while (!blocker_ready)
		pthread_cond_wait(&blocker_cond, &blocker_mutex);
	pthread_mutex_unlock(&blocker_mutex);
}

static void blocker_stop(pthread_t th)
{
	pthread_mutex_lock(&blocker_mutex);
	blocker_go = true;
	pthread_cond_broadcast(&blocker_cond);
	pthread_mutex_unlock(&blocker_mutex);
	assert_int_equal(pthread_join(th, NULL), 0);
}

static void test_refused_enable(void **state)
{
	char buf[4096];
	ssize_t n;
	pthread_t th;

	(void)state;
	assert_int_equal(trev_write("error_log", ""), 0);
	blocker_start(&th);
	assert_int_equal(trev_write(JL_ENABLE, "1"), -EBUSY);
	n = trev_read("error_log", buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "A thread blocks SIGTRAP: patching could kill it"));
	assert_non_null(strstr(buf, "enable"));
	/* Nothing changed: the event, its probes, its sites. */
	n = trev_read(JL_ENABLE, buf, sizeof(buf) - 1);
	assert_int_equal(n, 2);
	assert_memory_equal(buf, "0\n", 2);
	assert_int_equal(trev_tracepoint_probe_count(&__tracepoint_jl_tick), 0);
	assert_true(sites_are(0x0f));
	assert_int_equal(trev_write("set_event", "jl_test:jl_tick"), -EBUSY);
	assert_int_equal(trev_trace_reset(), 0);
	fire(QUIET_CALLS);
	assert_int_equal(count_records("jl_tick"), 0);
	blocker_stop(th);

	/* Without the blocker, it works. */
	assert_int_equal(trev_write(JL_ENABLE, "1"), 0);
	fire(QUIET_CALLS);
	assert_int_equal(count_records("jl_tick"), QUIET_CALLS);
	assert_int_equal(trev_write(JL_ENABLE, "0"), 0);
}

/*
 * Run with TREV_EVENTS=jl_test:jl_tick: the event went on in the
 * constructors, before any thread could block SIGTRAP, so a blocker
 * started now changes nothing.
 */
static int env_child(void)
{
	pthread_t th;
	int n;

	blocker_start(&th);
	if (!sites_are(0xe9)) {
		fprintf(stderr, "env child: the sites are not jmps\n");
		return 1;
	}
	fire(QUIET_CALLS);
	n = count_records("jl_tick");
	blocker_stop(th);
	if (n != QUIET_CALLS) {
		fprintf(stderr, "env child: %d records, want %d\n", n, QUIET_CALLS);
		return 1;
	}
	return 0;
}

static void test_env_at_startup(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char exe[4096];
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (len <= 0)
			_exit(127);
		exe[len] = '\0';
		setenv("TREV_EVENTS", "jl_test:jl_tick", 1);
		execl(exe, exe, ENV_CHILD_ARG, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ------------------------------------------------------------------ */
/* fork                                                                 */

static void test_fork_after_enable(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(trev_write(JL_ENABLE, "1"), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The child's text is the parent's: jmps; and it patches its own. */
		int bad = 0;

		bad |= !sites_are(0xe9);
		bad |= trev_trace_reset() != 0;
		fire(QUIET_CALLS);
		bad |= (count_records("jl_tick") != QUIET_CALLS) << 1;
		bad |= (trev_write(JL_ENABLE, "0") != 0) << 2;
		bad |= !sites_are(0x0f) << 3;
		bad |= trev_trace_reset() != 0;
		fire(QUIET_CALLS);
		bad |= (count_records("jl_tick") != 0) << 4;
		_exit(bad);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The parent's sites are its own. */
	assert_true(sites_are(0xe9));
	assert_int_equal(trev_write(JL_ENABLE, "0"), 0);
	assert_true(sites_are(0x0f));
}

/* ------------------------------------------------------------------ */
/* A dlopen()ed module                                                  */

typedef void (*mod_fire_fn)(int n);

static void *mod_open(mod_fire_fn *fn)
{
	void *m = dlopen(JL_MOD, RTLD_NOW | RTLD_LOCAL);

	if (!m)
		print_error("dlopen: %s\n", dlerror());
	assert_non_null(m);
	*fn = (mod_fire_fn)dlsym(m, "jl_mod_fire");
	assert_non_null(*fn);
	return m;
}

static void mod_check(mod_fire_fn fn, int want_tick, int want_mod)
{
	assert_int_equal(trev_trace_reset(), 0);
	fn(QUIET_CALLS);
	assert_int_equal(count_records("jl_tick"), want_tick);
	assert_int_equal(count_records("jl_mod_ev"), want_mod);
}

static void test_dlopen(void **state)
{
	mod_fire_fn fn;
	void *m;

	(void)state;
	/* The program's event is on before the module comes: its sites start as jmps. */
	assert_int_equal(trev_write(JL_ENABLE, "1"), 0);
	m = mod_open(&fn);
	mod_check(fn, QUIET_CALLS, 0);
	assert_int_equal(trev_write(JL_MOD_ENABLE, "1"), 0);
	mod_check(fn, QUIET_CALLS, QUIET_CALLS);
	assert_int_equal(trev_write(JL_ENABLE, "0"), 0);
	mod_check(fn, 0, QUIET_CALLS);
	/* dlclose while the module's own event is on. */
	assert_int_equal(dlclose(m), 0);
	assert_null(dlopen(JL_MOD, RTLD_NOW | RTLD_NOLOAD));

	m = mod_open(&fn);
	mod_check(fn, 0, 0);
	assert_int_equal(trev_write(JL_ENABLE, "1"), 0);
	mod_check(fn, QUIET_CALLS, 0);
	assert_int_equal(trev_write(JL_MOD_ENABLE, "1"), 0);
	/* Both on, while a probe of the program's event is attached too. */
	assert_int_equal(register_trace_jl_tick(count_probe, NULL), 0);
	mod_check(fn, QUIET_CALLS, QUIET_CALLS);
	assert_int_equal(dlclose(m), 0);
	assert_int_equal(unregister_trace_jl_tick(count_probe, NULL), 0);
	assert_int_equal(trev_write(JL_ENABLE, "0"), 0);
	assert_true(sites_are(0x0f));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sites_follow_state),
		cmocka_unit_test(test_hammer),
		cmocka_unit_test(test_refused_enable),
		cmocka_unit_test(test_env_at_startup),
		cmocka_unit_test(test_fork_after_enable),
		cmocka_unit_test(test_dlopen),
	};

	if (argc > 1 && strcmp(argv[1], ENV_CHILD_ARG) == 0)
		return env_child();
	if (getenv("TREV_EVENTS") || getenv("TREV_OUTPUT")) {
		fprintf(stderr, "run without TREV_EVENTS/TREV_OUTPUT set\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
