/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program built against trev 0.1.0 keeps working with today's libtrev.
 * This file is compiled against that release's frozen headers
 * (tests/abi/v0/include: ABI 0, descriptors without a header, the old
 * registration entry points) and linked with the library of this tree. Its
 * events register, enable, record and read back exactly; so do its eval
 * maps, an event class, TRACE_EVENT_FN's callbacks, a probe of its own on
 * one of its tracepoints, and trace_printk() from its call sites.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define CREATE_TRACE_POINTS
#include "abi_v0_events.h"

#include <trev/trace_printk.h>
#include <trev/trev.h>

/* Proof that the frozen headers are the ones read: ABI 0 had no header. */
#ifdef TREV_ABI_VERSION
#error "test_abi_v0 must be compiled against tests/abi/v0/include"
#endif
_Static_assert(offsetof(struct trev_tracepoint, name) == 0 &&
	       offsetof(struct trev_event_call, klass) == 0 &&
	       offsetof(struct trev_event_class, system) == 0 &&
	       offsetof(struct trev_eval_map, system) == 0 &&
	       offsetof(struct trev_printk_site, fmt) == 0,
	       "not the ABI 0 layout");

static int reg_calls, unreg_calls;

int abi_v0_reg(void)
{
	reg_calls++;
	return 0;
}

void abi_v0_unreg(void)
{
	unreg_calls++;
}

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

static char *read_file(const char *path)
{
	static char buf[65536];
	ssize_t n = trev_read(path, buf, sizeof(buf) - 1);

	if (n < 0)
		print_error("%s: %s\n", path, strerror((int)-n));
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

/* The `trace` text without its header, each line from the event name on. */
static char *trace_events(void)
{
	static char out[65536];
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, o = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(trev_trace_print(f), 0);
	assert_int_equal(fclose(f), 0);
	out[0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "COMM-PID [CPU] FLAGS SECS.USECS: REST" */
		char *rest = line[0] == '#' ? NULL : strstr(line, ": ");

		if (!rest)
			continue;
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s\n", rest + 2);
		assert_true(o < sizeof(out));
	}
	free(buf);
	return out;
}

/* ------------------------------------------------------------------ */
/* Tests                                                                */

static void test_registered(void **state)
{
	const char *avail = read_file("available_events");

	(void)state;
	assert_non_null(strstr(avail, "abi_v0:abi_v0_ints\n"));
	assert_non_null(strstr(avail, "abi_v0:abi_v0_str\n"));
	assert_non_null(strstr(avail, "abi_v0:abi_v0_mode\n"));
	assert_non_null(strstr(avail, "abi_v0:abi_v0_mode_raw\n"));
	assert_non_null(strstr(avail, "abi_v0:abi_v0_fn\n"));
}

/* The format files: fields from the class's define_fields, the eval map applied. */
static void test_formats(void **state)
{
	const char *fmt;

	(void)state;
	fmt = read_file("events/abi_v0/abi_v0_ints/format");
	assert_non_null(strstr(fmt, "name: abi_v0_ints\n"));
	assert_non_null(strstr(fmt, "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"));
	assert_non_null(strstr(fmt, "\tfield:int c;\toffset:16;\tsize:4;\tsigned:1;\n"));
	assert_non_null(strstr(fmt, "print fmt: \"a=%d b=%d c=%d\", REC->a, REC->b, REC->c\n"));
	fmt = read_file("events/abi_v0/abi_v0_str/format");
	assert_non_null(strstr(fmt, "\tfield:__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:1;\n"));
	assert_non_null(strstr(fmt, "\tfield:char tag[4];\toffset:12;\tsize:4;\tsigned:1;\n"));
	fmt = read_file("events/abi_v0/abi_v0_mode/format");
	assert_non_null(strstr(fmt, "print fmt: \"mode=%s\", __print_symbolic(REC->mode, "
				    "{ ABI_V0_SLOW, \"slow\" }, { 7, \"fast\" })\n"));
}

/* Enabled, recorded and read back exactly. */
static void test_record(void **state)
{
	(void)state;
	assert_int_equal(trev_trace_reset(), 0);
	assert_int_equal(reg_calls, 0);
	assert_int_equal(trev_set_event("abi_v0:*"), 0);
	assert_int_equal(reg_calls, 1);
	assert_true(trace_abi_v0_ints_enabled());
	trace_abi_v0_ints(1, -2, 3);
	trace_abi_v0_str("hello", 0xabcUL);
	trace_abi_v0_mode(ABI_V0_FAST);
	trace_abi_v0_mode_raw(ABI_V0_SLOW);
	trace_abi_v0_fn(42);
	assert_string_equal(trace_events(),
			    "abi_v0_ints: a=1 b=-2 c=3\n"
			    "abi_v0_str: s=hello tag=v0! v=0xabc\n"
			    "abi_v0_mode: mode=fast\n"
			    "abi_v0_mode_raw: raw=3\n"
			    "abi_v0_fn: n=42\n");
	assert_int_equal(trev_set_event("!abi_v0:*"), 0);
	assert_int_equal(unreg_calls, 1);
	assert_false(trace_abi_v0_ints_enabled());
	trace_abi_v0_ints(4, 5, 6);
	assert_int_equal(trev_trace_reset(), 0);
	assert_string_equal(trace_events(), "");
}

static int probe_sum;

static void my_probe(void *data, int a, int b, int c)
{
	probe_sum += *(int *)data + a + b + c;
}

/* A probe of the program's own on one of its tracepoints (the old struct layout). */
static void test_own_probe(void **state)
{
	static int bias = 100;

	(void)state;
	assert_int_equal(register_trace_abi_v0_ints(my_probe, &bias), 0);
	assert_int_equal(register_trace_abi_v0_ints(my_probe, &bias), -EEXIST);
	assert_int_equal(trev_tracepoint_probe_count(&__tracepoint_abi_v0_ints), 1);
	assert_true(trace_abi_v0_ints_enabled());
	trace_abi_v0_ints(1, 2, 3);
	assert_int_equal(probe_sum, 106);
	assert_int_equal(unregister_trace_abi_v0_ints(my_probe, &bias), 0);
	tracepoint_synchronize_unregister();
	assert_false(trace_abi_v0_ints_enabled());
	trace_abi_v0_ints(1, 2, 3);
	assert_int_equal(probe_sum, 106);
}

/* trace_printk() and trace_puts() from ABI 0 call sites. */
static void test_printk(void **state)
{
	(void)state;
	assert_int_equal(trev_trace_reset(), 0);
	for (int i = 0; i < 2; i++) {
		trace_printk("v0 printk %d %s %lx\n", i, "str", 0x10UL + (unsigned long)i);
		trace_puts("v0 puts\n");
	}
	assert_string_equal(trace_events(),
			    "test_printk: v0 printk 0 str 10\n"
			    "test_printk: v0 puts\n"
			    "test_printk: v0 printk 1 str 11\n"
			    "test_printk: v0 puts\n");
	assert_non_null(strstr(read_file("printk_formats"), "v0 printk %d %s %lx\\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_own_probe),
		cmocka_unit_test(test_printk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
