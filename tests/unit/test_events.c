/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * TRACE_EVENT end to end: format texts and output lines (golden), enabling
 * per event, system and globally, conditions, TRACE_EVENT_FN hooks, several
 * probes with priorities, probes coming and going while the tracepoint fires,
 * trace_printk conversions, trace_pipe and the raw option; the kernel 6.1
 * macros (_NOP forms, perf markers, __cpumask, __vstring, __rel_*,
 * __print_dynamic_array) with filters and hist keys on their fields.
 */
#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <trev/trev.h>

#include "events/events_internal.h"
#include "write/write.h"

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

static int reg_calls, unreg_calls;

int tt_reg(void)
{
	reg_calls++;
	return 0;
}

void tt_unreg(void)
{
	unreg_calls++;
}

/* The trace text, with everything before each line's "TIMESTAMP: " cut. */
static char *trace_events_text(void)
{
	char *buf = NULL, *out = NULL;
	size_t len = 0, olen = 0;
	FILE *f = open_memstream(&buf, &len);
	FILE *o = open_memstream(&out, &olen);
	regex_t re;
	regmatch_t m;

	assert_non_null(f);
	assert_non_null(o);
	assert_int_equal(trev_trace_print(f), 0);
	fclose(f);
	/* docs/formats.md, "The trace text": "%16s-%-5d [%03d] %c%c%c%c %5lu.%06lu: " */
	assert_int_equal(regcomp(&re, "^ *[^ ].{0,15}-[0-9]+ +\\[[0-9]{3}\\] [.h][.][.h][.0-9a-f] "
				  " *[0-9]+\\.[0-9]{6}: ", REG_EXTENDED), 0);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		if (regexec(&re, line, 1, &m, 0) != 0)
			fail_msg("line without the ftrace prefix: '%s'", line);
		fprintf(o, "%s\n", line + m.rm_eo);
	}
	fclose(o);
	regfree(&re);
	free(buf);
	return out;
}

static void reset(void)
{
	trev_set_event("!*:*");
	assert_int_equal(trev_trace_reset(), 0);
}

static unsigned int event_id(const char *event)
{
	char *text;
	unsigned int id = 0;

	assert_int_equal(trev_event_format("trev_test", event, &text), 0);
	assert_int_equal(sscanf(strstr(text, "ID: "), "ID: %u", &id), 1);
	free(text);
	return id;
}

#define COMMON_FIELDS								\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"	\
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"	\
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static void check_format(const char *event, const char *fields_and_fmt)
{
	char *text, expect[4096];

	snprintf(expect, sizeof(expect), "name: %s\nID: %u\nformat:\n" COMMON_FIELDS "%s", event,
		 event_id(event), fields_and_fmt);
	assert_int_equal(trev_event_format("trev_test", event, &text), 0);
	assert_string_equal(text, expect);
	free(text);
}

static void test_format_texts(void **state)
{
	char *text;

	(void)state;
	check_format("tt_ints",
		     "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:unsigned int b;\toffset:12;\tsize:4;\tsigned:0;\n"
		     "\tfield:long long c;\toffset:16;\tsize:8;\tsigned:1;\n"
		     "\nprint fmt: \"a=%d b=%u c=%lld\", REC->a, REC->b, REC->c\n");
	check_format("tt_types",
		     "\tfield:char c;\toffset:8;\tsize:1;\tsigned:1;\n"
		     "\tfield:short s;\toffset:10;\tsize:2;\tsigned:1;\n"
		     "\tfield:unsigned char uc;\toffset:12;\tsize:1;\tsigned:0;\n"
		     "\tfield:unsigned long ul;\toffset:16;\tsize:8;\tsigned:0;\n"
		     "\tfield:void * p;\toffset:24;\tsize:8;\tsigned:0;\n"
		     "\tfield:bool flag;\toffset:32;\tsize:1;\tsigned:0;\n"
		     "\tfield:struct tt_pair pair;\toffset:36;\tsize:8;\tsigned:0;\n"
		     "\nprint fmt: \"c=%d s=%d uc=%u ul=%lu p=%p flag=%d pair=%d/%d\", REC->c, "
		     "REC->s, REC->uc, REC->ul, REC->p, REC->flag, REC->pair.a, REC->pair.b\n");
	check_format("tt_strings",
		     "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:__data_loc char[] msg;\toffset:12;\tsize:4;\tsigned:1;\n"
		     "\tfield:char tag[8];\toffset:16;\tsize:8;\tsigned:1;\n"
		     "\nprint fmt: \"name=%s msg=%s tag=%s\", __get_str(name), __get_str(msg), "
		     "REC->tag\n");
	check_format("tt_arrays",
		     "\tfield:int fixed[3];\toffset:8;\tsize:12;\tsigned:1;\n"
		     "\tfield:__data_loc unsigned short[] v;\toffset:20;\tsize:4;\tsigned:0;\n"
		     "\tfield:__data_loc unsigned char[] bytes;\toffset:24;\tsize:4;\tsigned:0;\n"
		     "\nprint fmt: \"fixed=%s v=%s n=%d hex=%s hexstr=%s\", "
		     "__print_array(REC->fixed, 3, 4), "
		     "__print_array(__get_dynamic_array(v), __get_dynamic_array_len(v) / 2, 2), "
		     "__get_dynamic_array_len(v) / 2, "
		     "__print_hex(__get_dynamic_array(bytes), __get_dynamic_array_len(bytes)), "
		     "__print_hex_str(__get_dynamic_array(bytes), __get_dynamic_array_len(bytes))\n");
	check_format("tt_flags",
		     "\tfield:unsigned long flags;\toffset:8;\tsize:8;\tsigned:0;\n"
		     "\tfield:int state;\toffset:16;\tsize:4;\tsigned:1;\n"
		     "\tfield:unsigned long long big;\toffset:24;\tsize:8;\tsigned:0;\n"
		     "\tfield:__data_loc unsigned long[] mask;\toffset:32;\tsize:4;\tsigned:0;\n"
		     "\nprint fmt: \"flags=%s state=%s big=%s mask=%s\", "
		     "__print_flags(REC->flags, \"|\", { 0x1, \"READ\" }, { 0x2, \"WRITE\" }, "
		     "{ 0x4, \"EXEC\" }), "
		     "__print_symbolic(REC->state, { 0, \"IDLE\" }, { 1, \"RUNNING\" }, "
		     "{ 2, \"BLOCKED\" }), "
		     "__print_flags(REC->big, \",\", { 0x100000000ULL, \"HIGH\" }, "
		     "{ 0x1ULL, \"LOW\" }), __get_bitmask(mask)\n");
	/* DEFINE_EVENT shares the class's print fmt, DEFINE_EVENT_PRINT has its own. */
	check_format("tt_open",
		     "\tfield:int id;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:__data_loc char[] what;\toffset:12;\tsize:4;\tsigned:1;\n"
		     "\nprint fmt: \"id=%d what=%s\", REC->id, __get_str(what)\n");
	check_format("tt_close",
		     "\tfield:int id;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:__data_loc char[] what;\toffset:12;\tsize:4;\tsigned:1;\n"
		     "\nprint fmt: \"closed %s (%d)\", __get_str(what), REC->id\n");
	/* Perf's markers leave the class as it is. */
	check_format("tt_perf",
		     "\tfield:const void * task;\toffset:8;\tsize:8;\tsigned:0;\n"
		     "\tfield:unsigned long long delay;\toffset:16;\tsize:8;\tsigned:0;\n"
		     "\tfield:unsigned long addr;\toffset:24;\tsize:8;\tsigned:0;\n"
		     "\nprint fmt: \"task=%p delay=%llu addr=0x%lx\", REC->task, REC->delay, "
		     "REC->addr\n");
	/* The kernel's stage 4: a cpumask is "__data_loc cpumask_t", unsigned. */
	check_format("tt_cpumask",
		     "\tfield:int id;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:__data_loc cpumask_t cpus;\toffset:12;\tsize:4;\tsigned:0;\n"
		     "\nprint fmt: \"id=%d cpus=%s\", REC->id, __get_cpumask(cpus)\n");
	check_format("tt_vstr",
		     "\tfield:int level;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:__data_loc char[] msg;\toffset:12;\tsize:4;\tsigned:1;\n"
		     "\nprint fmt: \"level=%d msg=%s\", REC->level, __get_str(msg)\n");
	/*
	 * __rel_loc: 6.1's f_show() moves only a __data_loc type's "[]" off
	 * the name, so these print as "__rel_loc char name[]".
	 */
	check_format("tt_rel",
		     "\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n"
		     "\tfield:__rel_loc char name[];\toffset:12;\tsize:4;\tsigned:1;\n"
		     "\tfield:__rel_loc char tag[];\toffset:16;\tsize:4;\tsigned:1;\n"
		     "\tfield:__rel_loc int vals[];\toffset:20;\tsize:4;\tsigned:1;\n"
		     "\tfield:__rel_loc unsigned long bits[];\toffset:24;\tsize:4;\tsigned:0;\n"
		     "\tfield:__rel_loc cpumask_t cpus;\toffset:28;\tsize:4;\tsigned:0;\n"
		     "\nprint fmt: \"name=%s tag=%s n=%d vals=%s bits=%s cpus=%s\", "
		     "__get_rel_str(name), __get_rel_str(tag), __get_rel_dynamic_array_len(vals) / 4, "
		     "__print_array(__get_rel_dynamic_array(vals), "
		     "__get_rel_dynamic_array_len(vals) / 4, 4), "
		     "__get_rel_bitmask(bits), __get_rel_cpumask(cpus)\n");
	check_format("tt_dynprint",
		     "\tfield:__data_loc unsigned int[] vals;\toffset:8;\tsize:4;\tsigned:0;\n"
		     "\nprint fmt: \"vals=%s\", __print_dynamic_array(vals, sizeof(unsigned int))\n");
	/* The _NOP forms define no event. */
	assert_int_equal(trev_event_format("trev_test", "tt_nop", &text), -ENOENT);
	assert_int_equal(trev_event_format("trev_test", "tt_nop_ev", &text), -ENOENT);
	/* The built-in ftrace events, as the kernel's events/ftrace/.../format. */
	assert_int_equal(trev_event_format("ftrace", "bprint", &text), 0);
	assert_string_equal(text, "name: bprint\nID: 6\nformat:\n" COMMON_FIELDS
			    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
			    "\tfield:const char * fmt;\toffset:16;\tsize:8;\tsigned:0;\n"
			    "\tfield:u32 buf[];\toffset:24;\tsize:0;\tsigned:0;\n"
			    "\nprint fmt: \"%ps: %s\", (void *)REC->ip, REC->fmt\n");
	free(text);
	assert_int_equal(trev_event_format("trev_test", "no_such_event", &text), -ENOENT);
	assert_non_null(strstr(trev_header_page(), "\tfield: local_t commit;\toffset:8;\tsize:8;"));
	assert_non_null(strstr(trev_header_event(), "\ttime_extend : type == 30\n"));
}

static void test_output_lines(void **state)
{
	unsigned short v[3] = { 1, 2, 300 };
	unsigned char bytes[3] = { 0x01, 0xab, 0xff };
	unsigned long mask[1] = { 0x5 };
	struct tt_pair pair = { 3, 4 };
	char *text;

	(void)state;
	reset();
	assert_int_equal(trev_set_event("trev_test:*"), 0);
	trace_tt_ints(-1, 2, 1LL << 40);
	trace_tt_types(-5, -300, 200, 123456789UL, (void *)0x1234, true, pair);
	trace_tt_strings("alpha", "hello world", 5, "tagtagtagtag");
	trace_tt_strings(NULL, NULL, 0, "");
	trace_tt_arrays(v, 3, bytes, 3);
	trace_tt_flags(0x17, 1, 0x100000001ULL, mask, 40);
	trace_tt_flags(0, 9, 0, mask, 8);
	trace_tt_open(1, "file");
	trace_tt_close(2, "file");
	trace_tt_odd(3, "odd");
	trace_tt_odd(4, "even");	/* TP_CONDITION(id & 1): not recorded */
	trace_tt_positive(-1);		/* TP_CONDITION(v > 0): not recorded */
	trace_tt_positive(5);
	trace_tt_hooked(7);
	text = trace_events_text();
	assert_string_equal(text,
		"tt_ints: a=-1 b=2 c=1099511627776\n"
		"tt_types: c=-5 s=-300 uc=200 ul=123456789 p=0x1234 flag=1 pair=3/4\n"
		"tt_strings: name=alpha msg=hello tag=tagtagt\n"
		"tt_strings: name=(null) msg= tag=\n"
		"tt_arrays: fixed={0x3,0x3,0xffffffff} v={0x1,0x2,0x12c} n=3 hex=01 ab ff "
		"hexstr=01abff\n"
		"tt_flags: flags=READ|WRITE|EXEC|0x10 state=RUNNING big=HIGH,LOW "
		"mask=00000000,00000005\n"
		"tt_flags: flags= state=0x9 big= mask=00000000,00000005\n"
		"tt_open: id=1 what=file\n"
		"tt_close: closed file (2)\n"
		"tt_odd: id=3 what=odd\n"
		"tt_positive: v=5\n"
		"tt_hooked: v=7\n");
	free(text);
}

/*
 * "%*pb" of a cpumask with @low in its first long, as the kernel prints a
 * bitmask: every 32-bit word of the trev_nr_cpumask_bits() rounded up to
 * longs, highest first, comma-separated.
 */
static void cpumask_text(char *out, size_t size, unsigned long low)
{
	unsigned int words = (trev_nr_cpumask_bits() + 63) / 64 * 2;
	size_t o = 0;

	for (unsigned int w = words; w-- > 0;) {
		unsigned long v = w == 0 ? low & 0xffffffffUL : w == 1 ? low >> 32 : 0;

		o += (size_t)snprintf(out + o, size - o, "%s%08lx", o ? "," : "", v);
	}
}

static __attribute__((format(printf, 2, 3))) void fire_vstr(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace_tt_vstr(level, fmt, &ap);
	va_end(ap);
}

static void test_kernel61_macros(void **state)
{
	/* Room for CPU_SETSIZE (1024) CPUs, the most trev_nr_cpumask_bits() gives. */
	unsigned long cpus[1024 / (8 * sizeof(long))] = { 0x5 };
	unsigned long bits[2] = { 0x5, 0x1 };
	unsigned int u[3] = { 1, 2, 0xffffffffu };
	int vals[3] = { 1, -2, 300 };
	char mask[512], expect[4096], longfmt[700], *text;

	(void)state;
	assert_true(trev_nr_cpumask_bits() >= 1);
	assert_true(trev_nr_cpumask_bits() <= 1024);
	cpumask_text(mask, sizeof(mask), 0x5);
	memset(longfmt, 'x', sizeof(longfmt) - 1);
	longfmt[sizeof(longfmt) - 1] = '\0';

	reset();
	assert_int_equal(trev_set_event("trev_test:*"), 0);
	/* The _NOP forms: callers compile, nothing is recorded, never enabled. */
	trace_tt_nop(1);
	trace_tt_nop_ev(2, "x");
	assert_false(trace_tt_nop_enabled());
	assert_false(trace_tt_nop_ev_enabled());
	assert_true(trace_tt_perf_enabled());
	trace_tt_perf((const void *)0x1000, 5, 0xabc);
	trace_tt_perf_count(77, 1);
	trace_tt_cpumask(4, cpus);
	fire_vstr(2, "hello %s %d", "world", 42);
	fire_vstr(3, "%s", "");
	/* TRACE_EVENT_STR_MAX: the text is cut to 511 characters. */
	fire_vstr(4, "%s!", longfmt);
	trace_tt_rel("nm", "tagxyz", 3, vals, 3, bits, 70, cpus);
	trace_tt_rel(NULL, NULL, 0, vals, 0, bits, 1, cpus);
	trace_tt_dynprint(u, 3);
	trace_tt_dynprint(u, 0);
	text = trace_events_text();
	snprintf(expect, sizeof(expect),
		 "tt_perf: task=0x1000 delay=5 addr=0xabc\n"
		 "tt_perf_count: runtime=77 cpu=1\n"
		 "tt_cpumask: id=4 cpus=%s\n"
		 "tt_vstr: level=2 msg=hello world 42\n"
		 "tt_vstr: level=3 msg=\n"
		 "tt_vstr: level=4 msg=%.511s\n"
		 "tt_rel: name=nm tag=tag n=3 vals={0x1,0xfffffffe,0x12c} "
		 "bits=00000000,00000001,00000000,00000005 cpus=%s\n"
		 "tt_rel: name=(null) tag= n=0 vals={} bits=00000000,00000005 cpus=%s\n"
		 "tt_dynprint: vals={0x1,0x2,0xffffffff}\n"
		 "tt_dynprint: vals={}\n",
		 mask, longfmt, mask, mask);
	assert_string_equal(text, expect);
	free(text);

	/* Filters read __rel_loc strings (the kernel's FILTER_RDYN_STRING). */
	reset();
	assert_int_equal(trev_write("events/trev_test/tt_rel/filter",
				    "name == \"keep\" || tag ~ \"ab*\""), 0);
	assert_int_equal(trev_set_event("trev_test:tt_rel"), 0);
	trace_tt_rel("keep", "zz", 2, vals, 1, bits, 8, cpus);
	trace_tt_rel("drop", "zz", 2, vals, 1, bits, 8, cpus);
	trace_tt_rel("other", "abc", 3, vals, 1, bits, 8, cpus);
	trace_tt_rel("keeper", "xab", 3, vals, 1, bits, 8, cpus);
	trace_tt_rel(NULL, NULL, 0, vals, 1, bits, 8, cpus);
	text = trace_events_text();
	snprintf(expect, sizeof(expect),
		 "tt_rel: name=keep tag=zz n=1 vals={0x1} bits=00000000,00000005 cpus=%s\n"
		 "tt_rel: name=other tag=abc n=1 vals={0x1} bits=00000000,00000005 cpus=%s\n",
		 mask, mask);
	assert_string_equal(text, expect);
	free(text);
	assert_int_equal(trev_write("events/trev_test/tt_rel/filter", "0"), 0);

	/* ... and hist keys, counted per name. */
	reset();
	assert_int_equal(trev_write("events/trev_test/tt_rel/trigger", "hist:keys=name"), 0);
	assert_int_equal(trev_set_event("trev_test:tt_rel"), 0);
	trace_tt_rel("a", "t", 1, vals, 1, bits, 8, cpus);
	trace_tt_rel("bb", "t", 1, vals, 1, bits, 8, cpus);
	trace_tt_rel("a", "t", 1, vals, 1, bits, 8, cpus);
	{
		static char buf[8192];
		ssize_t n = trev_read("events/trev_test/tt_rel/hist", buf, sizeof(buf) - 1);
		char line[128];

		assert_true(n > 0);
		buf[n] = '\0';
		/* The kernel's hist_trigger_print_key(): "%-50s" for a string. */
		snprintf(line, sizeof(line), "{ name: %-50s } hitcount: %10d\n", "a", 2);
		assert_non_null(strstr(buf, line));
		snprintf(line, sizeof(line), "{ name: %-50s } hitcount: %10d\n", "bb", 1);
		assert_non_null(strstr(buf, line));
		assert_non_null(strstr(buf, "Hits: 3\n"));
	}
	assert_int_equal(trev_write("events/trev_test/tt_rel/trigger", "!hist:keys=name"), 0);
	reset();
}

static void test_enable_levels(void **state)
{
	char *text;

	(void)state;
	reset();
	assert_false(trace_tt_ints_enabled());
	/* One event. */
	assert_int_equal(trev_set_event("trev_test:tt_ints"), 0);
	assert_true(trace_tt_ints_enabled());
	assert_false(trace_tt_open_enabled());
	/* A bare word matches an event name or a system name. */
	assert_int_equal(trev_set_event("tt_open"), 0);
	assert_true(trace_tt_open_enabled());
	assert_int_equal(trev_set_event("!trev_test:*"), 0);
	assert_false(trace_tt_ints_enabled());
	assert_false(trace_tt_open_enabled());
	/* A system. */
	assert_int_equal(trev_set_event("trev_test"), 0);
	assert_true(trace_tt_ints_enabled());
	assert_true(trace_tt_close_enabled());
	assert_int_equal(trev_set_event("!trev_test:tt_close"), 0);
	assert_false(trace_tt_close_enabled());
	assert_true(trace_tt_open_enabled());
	/* All, then none. */
	assert_int_equal(trev_set_event("*:*"), 0);
	assert_true(trace_tt_close_enabled());
	assert_int_equal(trev_set_event("!*:*"), 0);
	assert_false(trace_tt_ints_enabled());
	/* Nothing matched: -EINVAL, nothing changes. */
	assert_int_equal(trev_set_event("trev_test:nope"), -EINVAL);
	assert_int_equal(trev_set_event("nosys:*"), -EINVAL);
	assert_false(trace_tt_ints_enabled());
	/* Several terms at once, as TREV_EVENTS gives them. */
	assert_int_equal(trev_set_event("trev_test:tt_ints,trev_test:tt_open"), 0);
	assert_true(trace_tt_ints_enabled());
	assert_true(trace_tt_open_enabled());
	assert_false(trace_tt_close_enabled());
	/* Disabled events record nothing. */
	trace_tt_close(1, "x");
	trace_tt_open(2, "y");
	text = trace_events_text();
	assert_string_equal(text, "tt_open: id=2 what=y\n");
	free(text);
	reset();
}

static void test_fn_hooks(void **state)
{
	(void)state;
	reset();
	reg_calls = unreg_calls = 0;
	assert_int_equal(trev_set_event("trev_test:tt_hooked"), 0);
	assert_int_equal(reg_calls, 1);
	assert_int_equal(unreg_calls, 0);
	/* Enabling again changes nothing. */
	assert_int_equal(trev_set_event("trev_test:tt_hooked"), 0);
	assert_int_equal(reg_calls, 1);
	assert_int_equal(trev_set_event("!trev_test:tt_hooked"), 0);
	assert_int_equal(unreg_calls, 1);
}

/* Probes on the bare tracepoint record their order here. */
static char probe_log[64];
static size_t probe_log_len;

static void probe_a(void *data, int v, const char *s)
{
	(void)v;
	(void)s;
	probe_log[probe_log_len++] = *(const char *)data;
}

static void test_probe_priorities(void **state)
{
	static const char a = 'a', b = 'b', c = 'c', d = 'd';

	(void)state;
	probe_log_len = 0;
	assert_false(trace_tt_bare_enabled());
	assert_int_equal(register_trace_prio_tt_bare(probe_a, (void *)&a, 10), 0);
	assert_int_equal(register_trace_prio_tt_bare(probe_a, (void *)&b, 30), 0);
	assert_int_equal(register_trace_prio_tt_bare(probe_a, (void *)&c, 20), 0);
	assert_int_equal(register_trace_tt_bare(probe_a, (void *)&d), 0);	/* prio 10 */
	assert_int_equal(register_trace_tt_bare(probe_a, (void *)&d), -EEXIST);
	assert_true(trace_tt_bare_enabled());
	trace_tt_bare(1, "x");
	/* Highest priority first; equal priorities in the order registered. */
	assert_int_equal(probe_log_len, 4);
	assert_memory_equal(probe_log, "bcad", 4);
	assert_int_equal(unregister_trace_tt_bare(probe_a, (void *)&c), 0);
	assert_int_equal(unregister_trace_tt_bare(probe_a, (void *)&c), -ENOENT);
	probe_log_len = 0;
	trace_tt_bare(2, "y");
	assert_memory_equal(probe_log, "bad", 3);
	assert_int_equal(unregister_trace_tt_bare(probe_a, (void *)&a), 0);
	assert_int_equal(unregister_trace_tt_bare(probe_a, (void *)&b), 0);
	assert_int_equal(unregister_trace_tt_bare(probe_a, (void *)&d), 0);
	assert_false(trace_tt_bare_enabled());
	probe_log_len = 0;
	trace_tt_bare(3, "z");
	assert_int_equal(probe_log_len, 0);
}

/* Probes come and go while another thread fires the tracepoint. */
static _Atomic long fired_a, fired_b;
static _Atomic int stop_firing;

static void count_a(void *data, int v, const char *s)
{
	(void)data;
	(void)v;
	(void)s;
	fired_a++;
}

static void count_b(void *data, int v, const char *s)
{
	(void)data;
	(void)v;
	(void)s;
	fired_b++;
}

static void *firing_thread(void *arg)
{
	(void)arg;
	while (!stop_firing)
		trace_tt_bare(1, "fire");
	return NULL;
}

static void test_register_while_firing(void **state)
{
	pthread_t t;
	long before;

	(void)state;
	stop_firing = 0;
	assert_int_equal(register_trace_tt_bare(count_a, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, firing_thread, NULL), 0);
	while (fired_a < 1000)
		sched_yield();
	before = fired_a;
	for (int i = 0; i < 300; i++) {
		assert_int_equal(register_trace_prio_tt_bare(count_b, NULL, i % 3 * 10), 0);
		assert_int_equal(unregister_trace_tt_bare(count_b, NULL), 0);
	}
	/* count_a stayed registered throughout: the reader kept firing it. */
	while (fired_a == before)
		sched_yield();
	assert_int_equal(unregister_trace_tt_bare(count_a, NULL), 0);
	tracepoint_synchronize_unregister();
	/* After the grace period no thread can be in the removed probes. */
	before = fired_a + fired_b;
	for (int i = 0; i < 1000 && before == fired_a + fired_b; i++)
		;
	assert_int_equal(before, fired_a + fired_b);
	stop_firing = 1;
	pthread_join(t, NULL);
}

struct printk_case {
	const char *expect;
};

static void test_trace_printk(void **state)
{
	char *text, expect[2048];
	int n = 0;

	(void)state;
	reset();
	/* Binary (constant format with arguments): every conversion bprint saves. */
	trace_printk("d=%d i=%i u=%u x=%x X=%X o=%o c=%c\n", -12, 34, 56u, 0xbeefu, 0xbeefu, 8u,
		     'q');
	n += snprintf(expect + n, sizeof(expect) - (size_t)n,
		      "d=%d i=%i u=%u x=%x X=%X o=%o c=%c\n", -12, 34, 56u, 0xbeefu, 0xbeefu, 8u,
		      'q');
	/* One to five ints: each count of trev_trace_bprintk()'s int-only saving. */
	trace_printk("one=%d\n", -1);
	trace_printk("two=%d,%u\n", -2, 2u);
	trace_printk("three=%d,%x,%d\n", -3, 0x33u, 3);
	trace_printk("four=%d,%d,%c,%d\n", -4, 44, 'f', 4);
	trace_printk("five=%d,%d,%d,%d,%d\n", 1, 2, 3, 4, -5);
	n += snprintf(expect + n, sizeof(expect) - (size_t)n,
		      "one=-1\ntwo=-2,2\nthree=-3,33,3\nfour=-4,44,f,4\nfive=1,2,3,4,-5\n");
	trace_printk("s=%s s2=%.3s s3=%-6s| s4=%6s|\n", "string", "abcdef", "ab", "cd");
	n += snprintf(expect + n, sizeof(expect) - (size_t)n,
		      "s=%s s2=%.3s s3=%-6s| s4=%6s|\n", "string", "abcdef", "ab", "cd");
	trace_printk("l=%ld ll=%lld lu=%lu llx=%llx z=%zu hh=%hhd h=%hd\n", -1L, -2LL, 3UL,
		     0x1122334455667788ULL, (size_t)42, (signed char)-3, (short)-4);
	n += snprintf(expect + n, sizeof(expect) - (size_t)n,
		      "l=%ld ll=%lld lu=%lu llx=%llx z=%zu hh=%hhd h=%hd\n", -1L, -2LL, 3UL,
		      0x1122334455667788ULL, (size_t)42, (signed char)-3, (short)-4);
	trace_printk("w=%5d|%-5d|%05d|%+d|% d|%#x|%#o|%*d|%.*d|%%\n", 1, 2, 3, 4, 5, 255u, 8u, 4,
		     7, 3, 9);
	n += snprintf(expect + n, sizeof(expect) - (size_t)n,
		      "w=%5d|%-5d|%05d|%+d|% d|%#x|%#o|%*d|%.*d|%%\n", 1, 2, 3, 4, 5, 255u, 8u, 4,
		      7, 3, 9);
	/* %p prints as the kernel's %px: the address, zero-padded, unhashed. */
	trace_printk("p=%p\n", (void *)0xdead0);
	n += snprintf(expect + n, sizeof(expect) - (size_t)n, "p=%016lx\n", 0xdead0UL);
	/* Constant string: bputs; non-constant format: print. */
	trace_puts("just a string\n");
	n += snprintf(expect + n, sizeof(expect) - (size_t)n, "just a string\n");
	{
		const char *volatile fmt = "runtime %d\n";

		trace_printk(fmt, 5);
	}
	n += snprintf(expect + n, sizeof(expect) - (size_t)n, "runtime 5\n");
	text = trace_events_text();
	/* Each line is "function: message"; the function is this test. */
	{
		char *stripped = calloc(1, strlen(text) + 1), *o = stripped;

		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
			assert_true(strncmp(line, "test_trace_printk: ", 19) == 0);
			o += sprintf(o, "%s\n", line + 19);
		}
		assert_string_equal(stripped, expect);
		free(stripped);
	}
	free(text);
	/* The interned formats are listed in printk_formats. */
	assert_int_equal(trev_printk_formats(&text), 0);
	assert_non_null(strstr(text, " : \"p=%p\\n\"\n"));
	free(text);
}

static const char *tps_site_a(void)
{
	return tracepoint_string("tps \"idle\"\tloop");
}

/*
 * tracepoint_string(): one interned copy per text, the same at every call,
 * listed in printk_formats (escaped as the kernel's) at its address.
 */
static void test_tracepoint_string(void **state)
{
	static const char literal[] = "tps \"idle\"\tloop";
	const char *a = tps_site_a(), *b = tracepoint_string("tps \"idle\"\tloop");
	char line[128], *text;

	(void)state;
	assert_string_equal(a, literal);
	assert_ptr_equal(a, tps_site_a());
	assert_ptr_equal(a, b);		/* another site, the same text: one copy */
	assert_ptr_not_equal(a, literal);
	assert_int_equal(trev_printk_formats(&text), 0);
	snprintf(line, sizeof(line), "0x%lx : \"tps \\\"idle\\\"\\tloop\"\n", (unsigned long)a);
	assert_non_null(strstr(text, line));
	free(text);
}

/*
 * bprint and bputs records hold pointers to interned formats; one that is
 * not ours (a record written by other means, or damaged) is a malformed
 * record, not a pointer to follow (a reader once died of SIGSEGV on one).
 */
static void test_printk_foreign_pointer(void **state)
{
	struct {
		struct trev_entry ent;
		unsigned long ip;
		const char *fmt;
		uint32_t buf[4];
	} rec;
	char *text;

	(void)state;
	reset();
	memset(&rec, 0, sizeof(rec));
	rec.ent.type = trev__ftrace_event_bprint.id;
	rec.ent.pid = 1;
	rec.fmt = (const char *)0x3151575200070020ull;
	assert_int_equal(trev_rb_write(trev_trace_buffer(), &rec, sizeof(rec)), 0);
	rec.ent.type = trev__ftrace_event_bputs.id;
	rec.fmt = "a string trev never interned\n";	/* readable, but not ours either */
	assert_int_equal(trev_rb_write(trev_trace_buffer(), &rec, offsetof(__typeof__(rec), buf)), 0);
	text = trace_events_text();
	assert_string_equal(text, "0: [malformed ftrace:bprint record]\n"
				  "0: [malformed ftrace:bputs record]\n");
	free(text);
	reset();
}

static void test_trace_pipe_and_raw(void **state)
{
	char buf[4096], expect[128];
	ssize_t n;

	(void)state;
	reset();
	assert_int_equal(trev_set_event("trev_test:tt_ints"), 0);
	trace_tt_ints(1, 2, 3);
	trace_tt_ints(4, 5, 6);
	n = trev_trace_pipe_read(buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "tt_ints: a=1 b=2 c=3\n"));
	assert_non_null(strstr(buf, "tt_ints: a=4 b=5 c=6\n"));
	/* Consumed: nothing left, and no waiting with a zero time-out. */
	assert_int_equal(trev_trace_pipe_read(buf, sizeof(buf), 0), 0);
	/* raw: "pid cpu ts " and, for a TRACE_EVENT, the kernel's "type: ID". */
	trace_tt_ints(7, 8, 9);
	assert_int_equal(trev_trace_option("raw"), 0);
	n = trev_trace_pipe_read(buf, sizeof(buf) - 1, 0);
	assert_int_equal(trev_trace_option("noraw"), 0);
	assert_true(n > 0);
	buf[n] = '\0';
	snprintf(expect, sizeof(expect), " type: %u\n", event_id("tt_ints"));
	assert_non_null(strstr(buf, expect));
	/* hex: pid, cpu and ts as hex fields (the kernel's SEQ_PUT_HEX_FIELD), then "type: ID", an empty line. */
	trace_tt_ints(10, 11, 12);
	assert_int_equal(trev_trace_option("hex"), 0);
	n = trev_trace_pipe_read(buf, sizeof(buf) - 1, 0);
	assert_int_equal(trev_trace_option("nohex"), 0);
	assert_true(n > 0);
	buf[n] = '\0';
	{
		unsigned int pid, cpu;
		unsigned long long ts;
		char tail[64];

		assert_int_equal(sscanf(buf, "%8x %8x %16llx %63[^\n]", &pid, &cpu, &ts, tail), 4);
		assert_int_equal((int)pid, (int)gettid());
		snprintf(expect, sizeof(expect), "type: %u", event_id("tt_ints"));
		assert_string_equal(tail, expect);
		assert_non_null(strstr(buf, "\n\n"));
	}
	/* bin: the same three fields as raw bytes. */
	trace_tt_ints(13, 14, 15);
	assert_int_equal(trev_trace_option("bin"), 0);
	n = trev_trace_pipe_read(buf, sizeof(buf) - 1, 0);
	assert_int_equal(trev_trace_option("nobin"), 0);
	assert_true(n > 16);
	{
		int pid;

		memcpy(&pid, buf, sizeof(pid));
		assert_int_equal(pid, (int)gettid());
	}
	assert_int_equal(trev_trace_option("no-such-option"), -EINVAL);
	reset();
}

/* Soft mode (for triggers): probe on, nothing recorded until really enabled. */
static void test_soft_mode(void **state)
{
	struct trev_event_call *call;
	char *text;

	(void)state;
	reset();
	trev__events_read_lock();
	call = trev__event_by_id(event_id("tt_ints"));
	trev__events_read_unlock();
	assert_non_null(call);
	assert_int_equal(trev__event_soft_mode(call, true), 0);
	assert_true(trace_tt_ints_enabled());		/* the probe runs */
	trace_tt_ints(1, 1, 1);				/* but records nothing */
	assert_int_equal(trev_set_event("trev_test:tt_ints"), 0);
	trace_tt_ints(2, 2, 2);				/* enabled: recorded */
	assert_int_equal(trev_set_event("!trev_test:tt_ints"), 0);
	assert_true(trace_tt_ints_enabled());		/* soft mode keeps the probe */
	trace_tt_ints(3, 3, 3);				/* soft-disabled again */
	assert_int_equal(trev__event_soft_mode(call, false), 0);
	assert_false(trace_tt_ints_enabled());
	text = trace_events_text();
	assert_string_equal(text, "tt_ints: a=2 b=2 c=2\n");
	free(text);
	reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_texts),
		cmocka_unit_test(test_output_lines),
		cmocka_unit_test(test_kernel61_macros),
		cmocka_unit_test(test_enable_levels),
		cmocka_unit_test(test_fn_hooks),
		cmocka_unit_test(test_probe_priorities),
		cmocka_unit_test(test_register_while_firing),
		cmocka_unit_test(test_trace_printk),
		cmocka_unit_test(test_printk_foreign_pointer),
		cmocka_unit_test(test_trace_pipe_and_raw),
		cmocka_unit_test(test_soft_mode),
		cmocka_unit_test(test_tracepoint_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
