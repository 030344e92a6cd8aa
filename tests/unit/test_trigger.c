/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event triggers through the tree: every command, counts, "if" conditions,
 * removal with '!', O_TRUNC, the kernel's listing, duplicates, errors in
 * error_log, soft mode, post triggers, snapshot and stacktrace records,
 * instances, and a trigger fired by a signal handler inside a probe.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "events/events_internal.h"

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

#define TRIG(ev)	"events/trev_test/" ev "/trigger"

static char buf[1 << 17];

static const char *read_text(const char *path)
{
	ssize_t n = trev_read(path, buf, sizeof(buf));

	assert_true(n >= 0);
	return buf;
}

static bool has(const char *path, const char *needle)
{
	return strstr(read_text(path), needle) != NULL;
}

/* The caret column and message of the last error_log entry. */
static void assert_last_error(const char *msg, int col)
{
	const char *t = read_text("error_log"), *cmd = NULL, *p;
	char caret[256];

	for (p = t; (p = strstr(p, "  Command: ")) != NULL; p++)
		cmd = p;
	assert_non_null(cmd);
	/* The message is on the line before. */
	for (p = cmd - 1; p > t && p[-1] != '\n'; p--)
		;
	assert_true(strncmp(strstr(p, "error: ") + 7, msg, strlen(msg)) == 0);
	memset(caret, ' ', sizeof(caret));
	snprintf(caret + 11 + col, sizeof(caret) - 11 - (size_t)col, "^\n");
	assert_non_null(strstr(cmd, "\n"));
	assert_string_equal(strchr(cmd, '\n') + 1, caret);
}

static const char help[] =
	"# Available triggers:\n"
	"# traceon traceoff snapshot stacktrace enable_event disable_event";

static void reset(void)
{
	assert_int_equal(trev_write("set_event", ""), 0);
	assert_int_equal(trev_write(TRIG("tt_ints"), ""), 0);
	assert_int_equal(trev_write(TRIG("tt_open"), ""), 0);
	assert_int_equal(trev_write(TRIG("tt_close"), ""), 0);
	assert_int_equal(trev_write("tracing_on", "1"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
}

static int setup(void **state)
{
	(void)state;
	reset();
	return 0;
}

/* The kernel's listing, newest first; '!' removes; O_TRUNC removes all; duplicates refused. */
static void test_listing(void **state)
{
	(void)state;
	assert_non_null(strstr(read_text(TRIG("tt_ints")), help));
	assert_int_equal(trev_append(TRIG("tt_ints"), "traceoff"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "snapshot:1"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "stacktrace:3 if a > 5"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "enable_event:trev_test:tt_open"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "disable_event:trev_test:tt_close:2 if b == 1"),
			 0);
	assert_string_equal(read_text(TRIG("tt_ints")),
			    "disable_event:trev_test:tt_close:count=2 if b == 1\n"
			    "enable_event:trev_test:tt_open:unlimited\n"
			    "stacktrace:count=3 if a > 5\n"
			    "snapshot:count=1\n"
			    "traceoff:unlimited\n");
	/* One trigger per kind (traceon and traceoff are one kind), per target for enable. */
	assert_int_equal(trev_append(TRIG("tt_ints"), "traceon"), -EEXIST);
	assert_int_equal(trev_append(TRIG("tt_ints"), "traceoff:5"), -EEXIST);
	assert_int_equal(trev_append(TRIG("tt_ints"), "disable_event:trev_test:tt_open"), -EEXIST);
	assert_int_equal(trev_append(TRIG("tt_ints"), "!stacktrace"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "!enable_event:trev_test:tt_open"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "!traceoff"), 0);
	/* Removing what is not there is not an error (the kernel's behaviour). */
	assert_int_equal(trev_append(TRIG("tt_ints"), "!traceon"), 0);
	assert_string_equal(read_text(TRIG("tt_ints")),
			    "disable_event:trev_test:tt_close:count=2 if b == 1\n"
			    "snapshot:count=1\n");
	assert_int_equal(trev_append(TRIG("tt_ints"), "  traceon:0x10  "), 0);
	assert_true(has(TRIG("tt_ints"), "traceon:count=16\n"));
	assert_int_equal(trev_write(TRIG("tt_ints"), ""), 0);
	assert_non_null(strstr(read_text(TRIG("tt_ints")), help));
	assert_string_equal(read_text("events/trev_test/tt_close/enable"), "0\n");
}

/* Refused lines: EINVAL, error_log with the column, and nothing changes. */
static void test_errors(void **state)
{
	(void)state;
	assert_int_equal(trev_append(TRIG("tt_ints"), "traceoff:2"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "explode"), -EINVAL);
	assert_last_error("Unknown trigger command", 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "!explode"), -EINVAL);
	assert_last_error("Unknown trigger command", 1);
	assert_int_equal(trev_append(TRIG("tt_ints"), "snapshot:abc"), -EINVAL);
	assert_last_error("Invalid count", 9);
	assert_int_equal(trev_append(TRIG("tt_ints"), "snapshot:-1"), -EINVAL);
	assert_last_error("Invalid count", 9);
	assert_int_equal(trev_append(TRIG("tt_ints"), "enable_event:trev_test:nosuch"), -EINVAL);
	assert_last_error("Event not found", 13);
	assert_int_equal(trev_append(TRIG("tt_ints"), "enable_event:trev_test"), -EINVAL);
	assert_last_error("Missing event name", 22);
	assert_int_equal(trev_append(TRIG("tt_ints"), "enable_event:trev_test:tt_open:x"), -EINVAL);
	assert_last_error("Invalid count", 31);
	assert_int_equal(trev_append(TRIG("tt_ints"), "stacktrace if"), -EINVAL);
	assert_last_error("No filter after 'if'", 13);
	/* The filter's own error, at its column in the line. */
	assert_int_equal(trev_append(TRIG("tt_ints"), "stacktrace if nosuch == 1"), -EINVAL);
	assert_int_equal(trev_append(TRIG("tt_ints"), "stacktrace:1 if a =="), -EINVAL);
	assert_string_equal(read_text(TRIG("tt_ints")), "traceoff:count=2\n");
	assert_string_equal(read_text("events/trev_test/tt_open/enable"), "0\n");
}

/* An event with triggers runs them while disabled (soft mode, 0*), and records nothing. */
static void test_soft_mode(void **state)
{
	(void)state;
	assert_false(trace_tt_ints_enabled());
	assert_int_equal(trev_append(TRIG("tt_ints"), "traceoff"), 0);
	assert_true(trace_tt_ints_enabled());
	assert_string_equal(read_text("events/trev_test/tt_ints/enable"), "0*\n");
	trace_tt_ints(1, 2, 3);
	assert_string_equal(read_text("tracing_on"), "0\n");
	assert_false(has("trace", "tt_ints:"));
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	assert_string_equal(read_text("events/trev_test/tt_ints/enable"), "1*\n");
	assert_int_equal(trev_write(TRIG("tt_ints"), ""), 0);
	assert_string_equal(read_text("events/trev_test/tt_ints/enable"), "1\n");
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);
	assert_false(trace_tt_ints_enabled());
}

/* enable_event/disable_event flip the target's soft-disabled state; counts only count changes. */
static void test_enable_disable_event(void **state)
{
	(void)state;
	assert_int_equal(trev_append(TRIG("tt_ints"), "enable_event:trev_test:tt_open:1"), 0);
	assert_int_equal(trev_append(TRIG("tt_close"), "disable_event:trev_test:tt_open"), 0);
	assert_string_equal(read_text("events/trev_test/tt_open/enable"), "0*\n");
	trace_tt_open(1, "before");
	assert_false(has("trace", "before"));
	trace_tt_ints(0, 0, 0);
	assert_string_equal(read_text("events/trev_test/tt_open/enable"), "1*\n");
	trace_tt_open(2, "enabled");
	assert_true(has("trace", "enabled"));
	/* Already enabled: the count is not used up. */
	trace_tt_ints(0, 0, 0);
	assert_true(has(TRIG("tt_ints"), "enable_event:trev_test:tt_open:count=0\n"));
	trace_tt_close(3, "off");
	assert_string_equal(read_text("events/trev_test/tt_open/enable"), "0*\n");
	trace_tt_open(4, "after");
	assert_false(has("trace", "after"));
	/* The count is spent: tt_ints no longer enables it. */
	trace_tt_ints(0, 0, 0);
	assert_string_equal(read_text("events/trev_test/tt_open/enable"), "0*\n");
	assert_int_equal(trev_write(TRIG("tt_ints"), ""), 0);
	assert_int_equal(trev_write(TRIG("tt_close"), ""), 0);
	assert_string_equal(read_text("events/trev_test/tt_open/enable"), "0\n");
	assert_false(trace_tt_open_enabled());
}

/* traceoff is a post trigger: the event that fires it is recorded, the next is not. */
static void test_traceoff_post_and_condition(void **state)
{
	(void)state;
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "traceoff if a > 5"), 0);
	assert_int_equal(trev_append(TRIG("tt_open"), "traceon:1"), 0);
	trace_tt_ints(1, 0, 0);
	assert_string_equal(read_text("tracing_on"), "1\n");
	trace_tt_ints(6, 0, 0);
	assert_string_equal(read_text("tracing_on"), "0\n");
	trace_tt_ints(7, 0, 0);
	assert_true(has("trace", "a=1 "));
	assert_true(has("trace", "a=6 "));
	assert_false(has("trace", "a=7 "));
	/* traceon:1 on a soft-mode event turns it back on once. */
	trace_tt_open(1, "x");
	assert_string_equal(read_text("tracing_on"), "1\n");
	assert_true(has(TRIG("tt_open"), "traceon:count=0\n"));
	trace_tt_ints(8, 0, 0);
	assert_true(has("trace", "a=8 "));
	assert_false(has("trace", "tt_open:"));
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);
}

/* snapshot swaps from the probe: the snapshot holds what was there, the main buffer goes on. */
static void test_snapshot(void **state)
{
	struct trev_trace_array *tr = trev__instance_lookup("");

	(void)state;
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	assert_int_equal(trev_append(TRIG("tt_open"), "snapshot:1"), 0);
	assert_non_null(tr->snapshot);	/* allocated when the trigger came */
	assert_int_equal(trev_write("snapshot", "0"), -EBUSY);
	trace_tt_ints(11, 0, 0);
	trace_tt_ints(12, 0, 0);
	trace_tt_open(1, "swap");
	trace_tt_ints(13, 0, 0);
	trace_tt_open(2, "count spent");
	trace_tt_ints(14, 0, 0);
	assert_true(has("snapshot", "a=11 "));
	assert_true(has("snapshot", "a=12 "));
	assert_false(has("snapshot", "a=13 "));
	assert_true(has("trace", "a=13 "));
	assert_true(has("trace", "a=14 "));
	assert_false(has("trace", "a=11 "));
	assert_true(has(TRIG("tt_open"), "snapshot:count=0\n"));
	assert_int_equal(atomic_load(&tr->snap_refused), 0);
	assert_int_equal(trev_write(TRIG("tt_open"), ""), 0);
	assert_int_equal(trev_write("snapshot", "0"), 0);
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);
}

static __attribute__((noinline)) void stack_caller_fn(int a)
{
	trace_tt_ints(a, 0, 0);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

/* stacktrace records ftrace:kernel_stack after the event, from the caller of trace_<event>(). */
/* The stack of the record after @from, up to the next event line. */
static bool stack_after(const char *t, const char *from, const char *frame)
{
	const char *s = strstr(t, from), *end;

	if (!s || !(s = strstr(s, "<stack trace>\n")))
		return false;
	end = strstr(s, "tt_ints:");
	s = strstr(s, frame);
	return s && (!end || s < end);
}

static void test_stacktrace(void **state)
{
	const char *t;

	(void)state;
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "stacktrace:2 if a != 0"), 0);
	stack_caller_fn(0);
	assert_false(has("trace", "<stack trace>"));
	stack_caller_fn(5);
	stack_caller_fn(6);
	stack_caller_fn(7);
	t = read_text("trace");
	assert_non_null(strstr(t, "a=5 b=0 c=0\n"));
	/*
	 * The stack follows its event and starts at the caller of
	 * trace_tt_ints() (or at trace_tt_ints() itself when, as at -O0,
	 * that static inline function is not inlined).
	 */
	assert_true(stack_after(t, "a=5 ", "\n => stack_caller_fn\n"));
	assert_true(stack_after(t, "a=6 ", "\n => stack_caller_fn\n"));
	assert_null(strstr(strstr(t, "a=7 "), "<stack trace>"));
	assert_null(strstr(t, "__traceiter_tt_ints"));
	assert_non_null(strstr(t, " => test_stacktrace\n"));
	assert_int_equal(trev_write("trace_options", "sym-offset"), 0);
	assert_true(has("trace", " => stack_caller_fn+0x"));
	assert_int_equal(trev_write("trace_options", "nosym-offset"), 0);
	assert_true(has("events/ftrace/kernel_stack/format", "ID: 12\n"));
	assert_true(has("events/ftrace/kernel_stack/format",
			"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
			"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"));
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);
}

/* An instance's triggers act on the instance only, and go with it. */
static void test_instance(void **state)
{
	(void)state;
	assert_int_equal(trev_mkdir("instances/trig"), 0);
	assert_int_equal(trev_write("instances/trig/events/trev_test/tt_ints/enable", "1"), 0);
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	assert_int_equal(trev_append("instances/trig/events/trev_test/tt_ints/trigger",
				     "traceoff"), 0);
	assert_int_equal(trev_append("instances/trig/events/trev_test/tt_ints/trigger",
				     "enable_event:trev_test:tt_open"), 0);
	assert_non_null(strstr(read_text(TRIG("tt_ints")), help));
	assert_string_equal(read_text("events/trev_test/tt_open/enable"), "0\n");
	assert_string_equal(read_text("instances/trig/events/trev_test/tt_open/enable"), "0*\n");
	trace_tt_ints(21, 0, 0);
	assert_string_equal(read_text("instances/trig/tracing_on"), "0\n");
	assert_string_equal(read_text("tracing_on"), "1\n");
	assert_string_equal(read_text("instances/trig/events/trev_test/tt_open/enable"), "1*\n");
	trace_tt_ints(22, 0, 0);
	assert_true(has("trace", "a=22 "));
	assert_true(has("instances/trig/trace", "a=21 "));
	assert_false(has("instances/trig/trace", "a=22 "));
	/* rmdir with triggers in place: they go first, nothing is left behind. */
	assert_int_equal(trev_rmdir("instances/trig"), 0);
	assert_string_equal(read_text("events/trev_test/tt_open/enable"), "0\n");
	assert_false(trace_tt_open_enabled());
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);
}

/* A signal handler traces an event with triggers while its thread is inside a probe. */
static volatile sig_atomic_t in_probe;

static __attribute__((noinline)) void sig_handler(int sig)
{
	(void)sig;
	trace_tt_open(99, "from signal");
	__asm__ volatile("" ::: "memory");
}

static void raising_probe(void *data, int a, unsigned int b, long long c)
{
	(void)data, (void)b, (void)c;
	if (a == 42) {
		in_probe = 1;
		raise(SIGUSR1);
		in_probe = 0;
	}
}

static void test_signal_in_probe(void **state)
{
	struct sigaction sa = { .sa_handler = sig_handler }, old;

	(void)state;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	assert_int_equal(trev_write("events/trev_test/tt_open/enable", "1"), 0);
	assert_int_equal(trev_append(TRIG("tt_ints"), "snapshot"), 0);
	assert_int_equal(trev_append(TRIG("tt_open"), "stacktrace if id == 99"), 0);
	assert_int_equal(trev_append(TRIG("tt_open"), "enable_event:trev_test:tt_close"), 0);
	assert_int_equal(register_trace_tt_ints(raising_probe, NULL), 0);
	trace_tt_ints(42, 0, 0);	/* swaps; then the signal's tt_open records and stacks */
	assert_int_equal(unregister_trace_tt_ints(raising_probe, NULL), 0);
	assert_string_equal(read_text("events/trev_test/tt_close/enable"), "1*\n");
	assert_true(has("trace", "from signal"));
	assert_true(has("trace", " => sig_handler\n"));
	assert_true(has("snapshot", "a=42 ") || has("trace", "a=42 "));
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
	reset();
	assert_int_equal(trev_write("snapshot", "0"), 0);
	assert_int_equal(trev_write("events/trev_test/tt_close/enable", "0"), 0);
	assert_false(trace_tt_close_enabled());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_listing, setup),
		cmocka_unit_test_setup(test_errors, setup),
		cmocka_unit_test_setup(test_soft_mode, setup),
		cmocka_unit_test_setup(test_enable_disable_event, setup),
		cmocka_unit_test_setup(test_traceoff_post_and_condition, setup),
		cmocka_unit_test_setup(test_snapshot, setup),
		cmocka_unit_test_setup(test_stacktrace, setup),
		cmocka_unit_test_setup(test_instance, setup),
		cmocka_unit_test_setup(test_signal_in_probe, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
