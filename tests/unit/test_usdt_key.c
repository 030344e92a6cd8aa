/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The key word shared by trev and the USDT semaphore (docs/usdt.md, "The key
 * word: one load for trev and for USDT"), without root: the test counts in
 * the semaphore as the kernel's uprobes do (a 16-bit add at the note's
 * address) and checks that
 *
 *  - the semaphore is __tracepoint_<name> + 18, the key's upper half;
 *  - with only the semaphore set, trace_<name>_enabled() is true, the call
 *    goes through the probe site and no trev probe runs;
 *  - registering and removing trev probes changes the lower half only: the
 *    semaphore the "kernel" counted stays, and trev's probes run while it is
 *    set;
 *  - trev_tracepoint_probe_count() counts trev's probes only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define CREATE_TRACE_POINTS
#include "usdt_events.h"

#ifdef TREV_USDT
extern char __trev_usdt_sem_usdt_str[] __attribute__((weak, visibility("hidden")));
#endif

static int calls;
static int last_id;

static void probe_str(void *data, const char *name, int id)
{
	(void)name;
	*(int *)data += 1;
	last_id = id;
}

static int key_word(void)
{
	return __atomic_load_n(&__tracepoint_usdt_str.key.enabled, __ATOMIC_ACQUIRE);
}

/* What uprobes do when a consumer comes (+1) or goes (-1). */
static void semaphore_add(int d)
{
	uint16_t *sem = (uint16_t *)((char *)&__tracepoint_usdt_str.key.enabled + 2);

	__atomic_fetch_add(sem, (uint16_t)d, __ATOMIC_RELAXED);
}

static void test_semaphore_address(void **state)
{
	(void)state;
#ifdef TREV_USDT
	assert_ptr_equal(__trev_usdt_sem_usdt_str, (char *)&__tracepoint_usdt_str + 18);
	assert_int_equal(offsetof(struct trev_tracepoint, key), 16);
#else
	skip();
#endif
}

static void test_halves(void **state)
{
	(void)state;
	assert_int_equal(key_word(), 0);
	assert_false(trace_usdt_str_enabled());

	semaphore_add(1);
	assert_int_equal(key_word(), 0x10000);
	assert_true(trace_usdt_str_enabled());
	assert_int_equal(trev_tracepoint_probe_count(&__tracepoint_usdt_str), 0);
	trace_usdt_str("usdt only", 1);		/* the probe site, nothing of trev's */

	assert_int_equal(register_trace_usdt_str(probe_str, &calls), 0);
	assert_int_equal(key_word(), 0x10001);
	assert_int_equal(trev_tracepoint_probe_count(&__tracepoint_usdt_str), 1);
	trace_usdt_str("both", 2);
	assert_int_equal(calls, 1);
	assert_int_equal(last_id, 2);

	/* A second consumer, while trev has its probe. */
	semaphore_add(1);
	assert_int_equal(key_word(), 0x20001);
	assert_int_equal(unregister_trace_usdt_str(probe_str, &calls), 0);
	trev_tracepoint_synchronize_unregister();
	assert_int_equal(key_word(), 0x20000);
	assert_true(trace_usdt_str_enabled());
	trace_usdt_str("usdt only again", 3);
	assert_int_equal(calls, 1);

	semaphore_add(-1);
	semaphore_add(-1);
	assert_int_equal(key_word(), 0);
	assert_false(trace_usdt_str_enabled());

	/* trev alone, as before USDT. */
	assert_int_equal(register_trace_usdt_str(probe_str, &calls), 0);
	assert_int_equal(key_word(), 1);
	trace_usdt_str("trev only", 4);
	assert_int_equal(calls, 2);
	assert_int_equal(last_id, 4);
	assert_int_equal(unregister_trace_usdt_str(probe_str, &calls), 0);
	trev_tracepoint_synchronize_unregister();
	assert_int_equal(key_word(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_semaphore_address),
		cmocka_unit_test(test_halves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
