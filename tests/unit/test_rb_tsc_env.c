/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * TREV_TSC (src/ring_buffer/rb_clock.c; docs/sessions.md, "Clocks"): a
 * process of a recorded run takes the recorder's TSC conversion for
 * `local`, so that all of them share one time line, when it is plausible
 * and tells the time; anything else is ignored and the process calibrates
 * its own. Each case runs in a child of its own: the conversion is made
 * once per process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ring_buffer/rb_clock.h"

#ifdef RB_HAVE_TSC
/* The conversion a child makes with TREV_TSC=@env (NULL: unset), through a pipe. */
static struct rb_tsc_calib child_calib(const char *env)
{
	struct rb_tsc_calib c = { 0 };
	int fd[2], status;
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (env)
			setenv("TREV_TSC", env, 1);
		else
			unsetenv("TREV_TSC");
		trev__clock_init();
		_exit(write(fd[1], &trev__tsc, sizeof(trev__tsc)) == sizeof(trev__tsc) ? 0 : 1);
	}
	assert_int_equal(read(fd[0], &c, sizeof(c)), sizeof(c));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd[0]);
	close(fd[1]);
	return c;
}

/* A child's own calibration, and the same passed on: taken as it is. */
static void test_taken(void **state)
{
	struct rb_tsc_calib own = child_calib(NULL), got;
	char env[64];

	(void)state;
	if (!own.usable)
		skip();	/* no invariant TSC here: local is mono, TREV_TSC means nothing */
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)own.mult,
		 (unsigned long long)own.offset);
	got = child_calib(env);
	assert_true(got.usable);
	assert_int_equal(got.mult, own.mult);
	assert_int_equal(got.offset, own.offset);
	/* 100 ms off CLOCK_MONOTONIC is inside the second it must agree within. */
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)own.mult,
		 (unsigned long long)(own.offset + 100000000ull));
	got = child_calib(env);
	assert_int_equal(got.offset, own.offset + 100000000ull);
}

/* Garbage, an absurd rate, or a conversion that does not tell the time: ignored. */
static void test_refused(void **state)
{
	struct rb_tsc_calib own = child_calib(NULL), got;
	const char *bad[] = { "", "x", "1:2:3", "12345", "1:1", "99999999999999999999:0",
			      "4294967296:0 ", "-1:0" };
	char env[64];

	(void)state;
	if (!own.usable)
		skip();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		got = child_calib(bad[i]);
		assert_true(got.usable);
		/* Its own calibration: not the value given. */
		assert_true(got.mult != 1 && got.mult != 4294967296ull);
	}
	/* 2 s off: not this time line (another boot's value, or garbage). */
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)own.mult,
		 (unsigned long long)(own.offset + 2000000000ull));
	got = child_calib(env);
	assert_true(got.offset != own.offset + 2000000000ull);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
#ifdef RB_HAVE_TSC
		cmocka_unit_test(test_taken),
		cmocka_unit_test(test_refused),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
