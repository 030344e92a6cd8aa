/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Synthetic events: the synthetic_events parser (every kernel error with its
 * column, as ftracetest's trigger-synthetic_event_syntax_errors.tc checks
 * them), the definitions read back, the events/synthetic/ files (format as
 * the kernel prints it), removal (busy while enabled or referenced, all or
 * none on O_TRUNC), and records written by trev__synth_trace() as `trace`
 * prints them.
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

#include <trev/trev.h>

#include "trigger/synth.h"

static char buf[65536];

static const char *rd(const char *path)
{
	ssize_t n = trev_read(path, buf, sizeof(buf));

	assert_true(n >= 0);
	return buf;
}

static void reset(void **state)
{
	(void)state;
	trev_write("events/enable", "0");
	assert_int_equal(trev_write("synthetic_events", ""), 0);
	trev_write("error_log", "");
	trev_write("trace", "");
}

/* Parser table: the command, the error and its column ('^' as the kernel's tests mark it). */
static const struct {
	const char *cmd;	/* '^' marks the column; removed before writing */
	int ret;
	const char *msg;
} syntax_errors[] = {
	{ "myevent ^chr arg", -EINVAL, "Invalid type" },
	{ "myevent ^unsigned arg", -EINVAL, "Incomplete type" },
	{ "myevent char ^str]; int v", -EINVAL, "Illegal name" },
	{ "^mye-vent char str[]", -EINVAL, "Illegal name" },
	{ "myevent char ^st-r[]", -EINVAL, "Illegal name" },
	{ "myevent char str;^[]", -EINVAL, "Invalid field" },
	{ "myevent char str; ^int", -EINVAL, "Invalid field" },
	{ "myevent char ^str[; int v", -EINVAL, "Invalid array specification" },
	{ "myevent char ^str[kdjdk]", -EINVAL, "Invalid array specification" },
	{ "myevent char ^str[257]", -EINVAL, "Invalid array specification" },
	{ "^mye;vent char str[]", -EINVAL, "Command must be of the form: <name> field[;field] ..." },
	{ "^myevent ; char str[]", -EINVAL, "Command must be of the form: <name> field[;field] ..." },
	{ "^myevent; char str[]", -EINVAL, "Command must be of the form: <name> field[;field] ..." },
	{ "^myevent ;char str[]", -EINVAL, "Command must be of the form: <name> field[;field] ..." },
	{ "^; char str[]", -EINVAL, "Command must be of the form: <name> field[;field] ..." },
	{ "^;myevent char str[]", -EINVAL, "Command must be of the form: <name> field[;field] ..." },
	{ "^myevent", -EINVAL, "Command must be of the form: <name> field[;field] ..." },
	{ "myevent ^u64[2] v", -EINVAL, "Invalid type" },
	{ "wakeup_latency  u64 lat pid_t pid ^char", -EINVAL, "Invalid field" },
};

static void test_syntax_errors(void **state)
{
	for (size_t i = 0; i < sizeof(syntax_errors) / sizeof(syntax_errors[0]); i++) {
		const char *marked = syntax_errors[i].cmd, *caret = strchr(marked, '^');
		char cmd[256], want[512];
		int pos = (int)(caret - marked);

		reset(state);
		snprintf(cmd, sizeof(cmd), "%.*s%s", pos, marked, caret + 1);
		assert_int_equal(trev_append("synthetic_events", cmd), syntax_errors[i].ret);
		/* Nothing was defined, and the error_log says what and where. */
		assert_string_equal(rd("synthetic_events"), "");
		rd("error_log");
		snprintf(want, sizeof(want), "synthetic_events: error: %s\n  Command: %s\n%*s^\n",
			 syntax_errors[i].msg, cmd, pos + (int)strlen("  Command: "), "");
		if (!strstr(buf, want))
			fail_msg("%s: error_log is\n%s\nwants\n%s", cmd, buf, want);
	}
}

/* ftracetest's trigger-synthetic-event-syntax.tc: what each definition reads back as. */
static void test_definitions(void **state)
{
	static const struct {
		const char *def, *shown;
	} defs[] = {
		{ "myevent u64 var1", "myevent\tu64 var1\n" },
		{ "myevent u64 var1; u64 var2;", "myevent\tu64 var1; u64 var2\n" },
		{ "myevent u64 var1 ; u64 var2 ;", "myevent\tu64 var1; u64 var2\n" },
		{ "myevent u64 var1 ;u64 var2", "myevent\tu64 var1; u64 var2\n" },
		{ "  myevent  u64 var1  u64 var2", "myevent\tu64 var1; u64 var2\n" },
		{ "myevent unsigned long var", "myevent\tunsigned long var\n" },
		{ "myevent char var[10]", "myevent\tchar[10] var\n" },
		{ "myevent char name[]; pid_t pid", "myevent\tchar[] name; pid_t pid\n" },
		{ "myevent unsigned long[] stack", "myevent\tunsigned long[] stack\n" },
		{ "myevent s8 a; u16 b; s32 c; int d; long e; bool f; gfp_t g; unsigned char h",
		  "myevent\ts8 a; u16 b; s32 c; int d; long e; bool f; gfp_t g; unsigned char h\n" },
	};

	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		reset(state);
		assert_int_equal(trev_write("synthetic_events", defs[i].def), 0);
		assert_string_equal(rd("synthetic_events"), defs[i].shown);
		assert_string_equal(rd("error_log"), "");
	}
	/* Twice: "Event already exists", under the name; the first stays. */
	assert_int_equal(trev_append("synthetic_events", "myevent u64 x"), -EEXIST);
	assert_non_null(strstr(rd("error_log"), "error: Event already exists\n"
					       "  Command: myevent u64 x\n"
					       "           ^\n"));
	assert_string_equal(rd("synthetic_events"), defs[9].shown);
	/* A name longer than a tracefs path component takes: "Illegal name". */
	{
		char cmd[256];

		memset(cmd, 'a', 200);
		strcpy(cmd + 200, " u64 x");
		assert_int_equal(trev_append("synthetic_events", cmd), -EINVAL);
		assert_non_null(strstr(rd("error_log"), "synthetic_events: error: Illegal name\n"));
	}
	/* Several lines, comments; the order kept. */
	reset(state);
	assert_int_equal(trev_append("synthetic_events", "b u64 x # a comment\n\na pid_t p\n"), 0);
	assert_string_equal(rd("synthetic_events"), "b\tu64 x\na\tpid_t p\n");
	/* Removing: by name; what follows the name is not read (Linux 6.1). */
	assert_int_equal(trev_append("synthetic_events", "!b u64 x"), 0);
	assert_int_equal(trev_append("synthetic_events", "!b"), -ENOENT);
	assert_string_equal(rd("synthetic_events"), "a\tpid_t p\n");
	assert_int_equal(trev_append("synthetic_events", "!a"), 0);
	assert_string_equal(rd("synthetic_events"), "");
}

static void test_files(void **state)
{
	struct trev_stat st;
	char want[4096];
	unsigned int id;

	reset(state);
	assert_int_equal(trev_write("synthetic_events",
				    "wakeup_latency u64 lat; pid_t pid; char comm[16]; char name[]"), 0);
	for (const char *const *f = (const char *const[]){ "enable", "filter", "format", "hist",
							  "id", "trigger", NULL }; *f; f++) {
		char path[128];

		snprintf(path, sizeof(path), "events/synthetic/wakeup_latency/%s", *f);
		assert_int_equal(trev_path_stat(path, &st), 0);
	}
	id = (unsigned int)strtoul(rd("events/synthetic/wakeup_latency/id"), NULL, 10);
	assert_true(id >= 1000);
	snprintf(want, sizeof(want),
		 "name: wakeup_latency\n"
		 "ID: %u\n"
		 "format:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:pid_t pid;\toffset:16;\tsize:4;\tsigned:1;\n"
		 "\tfield:char comm[16];\toffset:24;\tsize:16;\tsigned:1;\n"
		 "\tfield:__data_loc char[] name;\toffset:280;\tsize:8;\tsigned:1;\n"
		 "\n"
		 "print fmt: \"lat=%%llu, pid=%%d, comm=%%s, name=%%s\", REC->lat, REC->pid, "
		 "REC->comm, __get_str(name)\n", id);
	assert_string_equal(rd("events/synthetic/wakeup_latency/format"), want);
	assert_non_null(strstr(rd("available_events"), "synthetic:wakeup_latency\n"));

	/* Enabled: busy, in every form of removal; disabled: gone, and its directory too. */
	assert_int_equal(trev_write("events/synthetic/wakeup_latency/enable", "1"), 0);
	assert_int_equal(trev_append("synthetic_events", "!wakeup_latency"), -EBUSY);
	assert_int_equal(trev_write("synthetic_events", ""), -EBUSY);
	assert_int_equal(trev_write("events/synthetic/wakeup_latency/enable", "0"), 0);
	/* A trigger puts it in soft mode: busy too. */
	assert_int_equal(trev_append("events/synthetic/wakeup_latency/trigger",
				     "hist:keys=pid"), 0);
	assert_int_equal(trev_append("synthetic_events", "!wakeup_latency"), -EBUSY);
	assert_int_equal(trev_append("events/synthetic/wakeup_latency/trigger",
				     "!hist:keys=pid"), 0);
	/* In an instance too. */
	assert_int_equal(trev_mkdir("instances/syn"), 0);
	assert_int_equal(trev_write("instances/syn/events/synthetic/wakeup_latency/enable", "1"), 0);
	assert_int_equal(trev_append("synthetic_events", "!wakeup_latency"), -EBUSY);
	assert_int_equal(trev_rmdir("instances/syn"), 0);
	/* Referenced (a trigger's action holds it). */
	struct trev_synth_event *se = trev__synth_get("wakeup_latency");

	assert_non_null(se);
	assert_int_equal(trev_append("synthetic_events", "!wakeup_latency"), -EBUSY);
	assert_int_equal(trev_write("synthetic_events", ""), -EBUSY);
	trev__synth_put(se);
	assert_int_equal(trev_append("synthetic_events", "!wakeup_latency"), 0);
	assert_int_equal(trev_path_stat("events/synthetic/wakeup_latency", &st), -ENOENT);
	assert_null(strstr(rd("available_events"), "wakeup_latency"));
	/* A new one of the same name gets a new id: ids are never reused. */
	assert_int_equal(trev_write("synthetic_events", "wakeup_latency u64 lat"), 0);
	assert_true(strtoul(rd("events/synthetic/wakeup_latency/id"), NULL, 10) > id);
}

/* The records, as `trace` prints them; the filter of the synthetic event applies. */
static void test_records(void **state)
{
	struct trev_synth_event *se;
	const char *line;

	reset(state);
	assert_int_equal(trev_write("synthetic_events",
				    "req_lat u64 lat; s32 id; s8 small; char tag[4]; char name[]"), 0);
	se = trev__synth_get("req_lat");
	assert_non_null(se);
	/* Not enabled: nothing. */
	trev__synth_trace(se, (const uint64_t[]){ 1, 2, 3, (uintptr_t)"a", (uintptr_t)"b" });
	assert_int_equal(trev_write("events/synthetic/req_lat/enable", "1"), 0);
	trev__synth_trace(se, (const uint64_t[]){ 1500, (uint64_t)-7, (uint64_t)-1,
						   (uintptr_t)"abcdef", (uintptr_t)"req-1" });
	assert_int_equal(trev_write("events/synthetic/req_lat/filter", "lat > 2000"), 0);
	trev__synth_trace(se, (const uint64_t[]){ 1000, 1, 1, (uintptr_t)"x", (uintptr_t)"no" });
	trev__synth_trace(se, (const uint64_t[]){ 3000, 2, 2, (uintptr_t)"y", (uintptr_t)"" });
	rd("trace");
	line = strstr(buf, "req_lat: ");
	assert_non_null(line);
	assert_memory_equal(line, "req_lat: lat=1500 id=-7 small=255 tag=abc name=req-1\n",
			    strlen("req_lat: lat=1500 id=-7 small=255 tag=abc name=req-1\n"));
	line = strstr(line + 1, "req_lat: ");
	assert_non_null(line);
	assert_memory_equal(line, "req_lat: lat=3000 id=2 small=2 tag=y name=\n",
			    strlen("req_lat: lat=3000 id=2 small=2 tag=y name=\n"));
	assert_null(strstr(line + 1, "req_lat: "));
	assert_int_equal(trev_write("events/synthetic/req_lat/enable", "0"), 0);
	trev__synth_put(se);
	assert_int_equal(trev_write("synthetic_events", ""), 0);
}

/* The kernel's unsigned long[] stacktrace field: its format, and "=> " lines in the trace. */
static void test_stack_field(void **state)
{
	unsigned long stack[TREV_SYNTH_STACK_MAX + 2];
	struct trev_synth_event *se;
	char want[4096], *line;
	unsigned int id;

	reset(state);
	assert_int_equal(trev_write("synthetic_events",
				    "st u64 lat; unsigned long[] stack; pid_t pid"), 0);
	id = (unsigned int)strtoul(rd("events/synthetic/st/id"), NULL, 10);
	snprintf(want, sizeof(want),
		 "name: st\n"
		 "ID: %u\n"
		 "format:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:__data_loc unsigned long[] stack;\toffset:16;\tsize:8;\tsigned:1;\n"
		 "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "print fmt: \"lat=%%llu, stack=%%s, pid=%%d\", REC->lat, "
		 "__get_stacktrace(stack), REC->pid\n", id);
	assert_string_equal(rd("events/synthetic/st/format"), want);
	assert_int_equal(trev__synth_nr_fields(trev__synth_get("st")), 3);
	se = trev__synth_get("st");	/* the second reference */
	trev__synth_put(se);
	assert_true(trev__synth_field_is_stack(se, 1));
	assert_false(trev__synth_field_is_stack(se, 0));
	assert_false(trev__synth_field_is_string(se, 1));
	assert_int_equal(trev_write("events/synthetic/st/enable", "1"), 0);
	/* Two addresses and the 0 that ends them. */
	stack[0] = (unsigned long)(uintptr_t)test_records + 4;
	stack[1] = (unsigned long)(uintptr_t)test_files + 8;
	stack[2] = 0;
	trev__synth_trace(se, (const uint64_t[]){ 5, (uintptr_t)stack, 42 });
	/* More than TREV_SYNTH_STACK_MAX: cut there. */
	for (int i = 0; i < TREV_SYNTH_STACK_MAX + 1; i++)
		stack[i] = (unsigned long)(uintptr_t)test_records + 1 + (unsigned long)i;
	stack[TREV_SYNTH_STACK_MAX + 1] = 0;
	trev__synth_trace(se, (const uint64_t[]){ 6, (uintptr_t)stack, 43 });
	rd("trace");
	line = strstr(buf, "st: lat=5 stack=STACK:\n=> test_records+0x4/0x");
	assert_non_null(line);
	line = strchr(strchr(line, '\n') + 1, '\n') + 1;
	assert_memory_equal(line, "=> test_files+0x8/0x", strlen("=> test_files+0x8/0x"));
	line = strchr(line, '\n') + 1;
	assert_memory_equal(line, "pid=42\n", strlen("pid=42\n"));
	line = strstr(line, "st: lat=6 stack=STACK:\n");
	assert_non_null(line);
	for (int i = 0; i < TREV_SYNTH_STACK_MAX; i++) {
		char l[64];

		line = strchr(line, '\n') + 1;
		snprintf(l, sizeof(l), "=> test_records+0x%x/0x", i + 1);
		assert_memory_equal(line, l, strlen(l));
	}
	line = strchr(line, '\n') + 1;
	assert_memory_equal(line, "pid=43\n", strlen("pid=43\n"));
	assert_int_equal(trev_write("events/synthetic/st/enable", "0"), 0);
	trev__synth_put(se);
	assert_int_equal(trev_write("synthetic_events", ""), 0);
}

/* The last error_log entry is @msg at column @col of @cmd, logged by @loc. */
static void assert_logged(const char *loc, const char *msg, const char *cmd, int col)
{
	char want[1024];

	snprintf(want, sizeof(want), "%s: error: %s\n  Command: %s\n%*s^\n", loc, msg, cmd,
		 col + (int)strlen("  Command: "), "");
	if (!strstr(rd("error_log"), want))
		fail_msg("error_log is\n%s\nwants\n%s", buf, want);
}

/* dynamic_events: "s:" defines, "-:" removes, the list as the kernel shows it; errors. */
static void test_dynamic_events(void **state)
{
	struct trev_stat st;

	reset(state);
	assert_int_equal(trev_write("dynamic_events", ""), 0);
	assert_string_equal(rd("dynamic_events"), "");
	assert_int_equal(trev_append("dynamic_events", "s:latency1 u64 lat; pid_t pid;\n"), 0);
	assert_int_equal(trev_append("dynamic_events",
				     "  s:synthetic/latency2 u64 lat; char name[] # comment\n"), 0);
	assert_string_equal(rd("dynamic_events"),
			    "s:synthetic/latency1\tu64 lat; pid_t pid\n"
			    "s:synthetic/latency2\tu64 lat; char[] name\n");
	/* The same events as synthetic_events'. */
	assert_string_equal(rd("synthetic_events"),
			    "latency1\tu64 lat; pid_t pid\nlatency2\tu64 lat; char[] name\n");
	assert_int_equal(trev_path_stat("events/synthetic/latency1/format", &st), 0);
	assert_int_equal(trev_path_stat("events/synthetic/latency2/format", &st), 0);
	assert_string_equal(rd("error_log"), "");

	/* Removal: "-:[synthetic/]NAME", "!s:..."; another system or no such event: -ENOENT. */
	assert_int_equal(trev_append("dynamic_events", "-:synthetic/latency2"), 0);
	assert_int_equal(trev_path_stat("events/synthetic/latency2", &st), -ENOENT);
	assert_int_equal(trev_append("dynamic_events", "-:latency2"), -ENOENT);
	assert_int_equal(trev_append("dynamic_events", "-:kprobes/latency1"), -ENOENT);
	assert_int_equal(trev_append("dynamic_events", "-:"), -EINVAL);
	assert_int_equal(trev_append("dynamic_events", "-x"), -EINVAL);
	assert_logged("dynamic_events", "Removal must be of the form: -:[<group>/]<event>", "-x", 0);
	assert_string_equal(rd("dynamic_events"), "s:synthetic/latency1\tu64 lat; pid_t pid\n");
	assert_int_equal(trev_append("dynamic_events", "!s:latency1"), 0);
	assert_string_equal(rd("dynamic_events"), "");

	/* Errors: the kernel's texts, logged as synthetic_events', the column in the whole line. */
	assert_int_equal(trev_append("dynamic_events", "s:other/foo u64 x"), -EINVAL);
	assert_logged("synthetic_events",
		      "Command must be of the form: s or -:[synthetic/]<name> field[;field] ...",
		      "s:other/foo u64 x", 0);
	assert_int_equal(trev_append("dynamic_events", "s:foo"), -EINVAL);
	assert_logged("synthetic_events",
		      "Command must be of the form: <name> field[;field] ...", "s:foo", 0);
	assert_int_equal(trev_append("dynamic_events", "s:foo u64"), -EINVAL);
	assert_int_equal(trev_append("dynamic_events", "s:foo u64 x; bad y"), -EINVAL);
	assert_logged("synthetic_events", "Invalid type", "s:foo u64 x; bad y", 13);
	assert_int_equal(trev_append("dynamic_events", "s:9foo u64 x"), -EINVAL);
	assert_logged("synthetic_events", "Illegal name", "s:9foo u64 x", 2);
	/* The kernel's probes: a kprobe on a function this process does not have (docs/probes.md). */
	assert_int_equal(trev_append("dynamic_events", "p:myprobe do_sys_open"), -EINVAL);
	assert_logged("trace_kprobe", "Invalid probed address or symbol",
		      "p:myprobe do_sys_open", 10);
	assert_int_equal(trev_append("dynamic_events", "e:ep sched/sched_switch"), -EINVAL);
	assert_logged("dynamic_events", "eprobe events (e:) are not supported",
		      "e:ep sched/sched_switch", 0);
	assert_int_equal(trev_append("dynamic_events", "u:up /bin/sh:0x10"), -EINVAL);
	assert_int_equal(trev_append("dynamic_events", "x:what"), -EINVAL);
	assert_logged("dynamic_events",
		      "Unknown dynamic event type: only s:, p: and r: are supported",
		      "x:what", 0);
	/* Nothing was defined by any of them; a refused line ends the write, those before stay. */
	assert_string_equal(rd("dynamic_events"), "");
	assert_int_equal(trev_append("dynamic_events", "s:a u64 x\np:b c\ns:c u64 y\n"), -EINVAL);
	assert_string_equal(rd("dynamic_events"), "s:synthetic/a\tu64 x\n");
	assert_int_equal(trev_append("dynamic_events", "s:a u64 z"), -EEXIST);

	/*
	 * `echo > dynamic_events`: none goes while one is held by a trigger's action; else
	 * each goes until one is enabled (-EBUSY), as the kernel's dyn_events_release_all().
	 */
	assert_int_equal(trev_append("dynamic_events", "s:b u64 x"), 0);
	{
		struct trev_synth_event *se = trev__synth_get("b");

		assert_int_equal(trev_write("dynamic_events", ""), -EBUSY);
		assert_string_equal(rd("dynamic_events"),
				    "s:synthetic/a\tu64 x\ns:synthetic/b\tu64 x\n");
		trev__synth_put(se);
	}
	assert_int_equal(trev_write("events/synthetic/b/enable", "1"), 0);
	assert_int_equal(trev_write("dynamic_events", ""), -EBUSY);
	assert_int_equal(trev_append("dynamic_events", "-:b"), -EBUSY);
	assert_string_equal(rd("dynamic_events"), "s:synthetic/b\tu64 x\n");
	assert_int_equal(trev_write("events/synthetic/b/enable", "0"), 0);
	assert_int_equal(trev_write("dynamic_events", ""), 0);
	assert_string_equal(rd("dynamic_events"), "");
	assert_string_equal(rd("synthetic_events"), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_definitions),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_stack_field),
		cmocka_unit_test(test_dynamic_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
