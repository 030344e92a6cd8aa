// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Probe events at patchable entries (src/probe/, docs/probes.md): defined
 * through uprobe_events and dynamic_events on the functions of pr_funcs.c,
 * their arguments checked against what the calls passed, the format, the
 * listing, errors with the kernel's texts and carets (the previous probes
 * stay), a bad pointer read without a crash, and 8 threads calling a
 * function while its probe is enabled and disabled (exact counts).
 */
#include <errno.h>
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
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "pr_dwarf.h"
#include "pr_funcs.h"

/* Room for the hammer's trace: its threads may make tens of thousands of calls. */
static char text[32 << 20];

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

/* The hit count of @event in uprobe_profile's text @t ("  FILE EVENT HITS"); -1: none. */
static long hits_of(const char *t, const char *event)
{
	char file[256], name[128];
	long n;

	for (const char *l = t; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		if (sscanf(l, " %255s %127s %ld", file, name, &n) == 3 && !strcmp(name, event))
			return n;
	return -1;
}

static void reset(void)
{
	trev_write("events/enable", "0");
	trev_write("trace", "");
	assert_int_equal(trev_write("uprobe_events", ""), 0);
	assert_int_equal(trev_write("kprobe_events", ""), 0);
	assert_int_equal(trev_write("error_log", ""), 0);
}

static void test_args(void **state)
{
	static const char hello[] = "hello, probe";
	const char *t;

	(void)state;
	reset();
	assert_int_equal(trev_append("uprobe_events",
				     "p:grp/args pr_args a=%di:s64 b=$arg2:s32 c=%dx:x64 "
				     "g=$arg7 h=$arg8:u64 sp=$stack0:symbol\n"), 0);
	assert_int_equal(trev_append("uprobe_events",
				     "p pr_str s=+0(%di):string n=%si:s32 c=+1(%di):char "
				     "first=+0(%di):u8[2] bits=+0(%di):b4@4/8 cm=$comm\n"), 0);
	rd("uprobe_events");
	assert_non_null(strstr(text, "p:grp/args pr_args a=%di:s64 b=$arg2:s32"));
	assert_non_null(strstr(text, "p:uprobes/p_pr_str_0 pr_str s=+0(%di):string"));
	rd("events/grp/args/format");
	assert_non_null(strstr(text, "field:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;"));
	assert_non_null(strstr(text, "field:s64 a;\toffset:16;\tsize:8;\tsigned:1;"));
	assert_non_null(strstr(text, "field:s32 b;\toffset:24;\tsize:4;\tsigned:1;"));
	assert_non_null(strstr(text, "print fmt: \"(%lx) a=%Ld b=%d c=0x%Lx g=0x%Lx h=%Lu sp=%pS\", REC->__probe_ip, REC->a"));
	rd("events/uprobes/p_pr_str_0/format");
	assert_non_null(strstr(text, "field:__data_loc char[] s;\toffset:16;\tsize:4;\tsigned:1;"));
	if (!strstr(text, "field:u8 first[2];\toffset:25;\tsize:2;\tsigned:0;"))
		fail_msg("%s", text);
	assert_int_equal(trev_write("events/grp/args/enable", "1"), 0);
	assert_int_equal(trev_write("events/uprobes/p_pr_str_0/enable", "1"), 0);
	assert_int_equal(pr_args(-5, -7, 0x1234, 4, 5, 6, 77, 88), -5 - 7 + 0x1234 + 4 + 5 + 6 + 77 + 88);
	assert_int_equal(pr_str(hello, -3), 'h' - 3);
	t = rd("trace");
	if (!strstr(t, " args: (pr_args+0x") ||
	    !strstr(t, ") a=-5 b=-7 c=0x1234 g=0x4d h=88 sp=") ||
	    !strstr(t, " p_pr_str_0: (pr_str+0x") ||
	    !strstr(t, ") s=\"hello, probe\" n=-3 c='e' first={104,101} bits=6 cm=\"test_probe\""))
		fail_msg("trace:\n%s", t);
	/* uprobe_profile: the hits (a symbol target has no file: "-"). */
	assert_int_equal(hits_of(rd("uprobe_profile"), "args"), 1);
	assert_int_equal(hits_of(text, "p_pr_str_0"), 1);
	/* A probe disabled records nothing more. */
	assert_int_equal(trev_write("events/grp/args/enable", "0"), 0);
	pr_args(1, 2, 3, 4, 5, 6, 7, 8);
	assert_int_equal(count_of(rd("trace"), " args: "), 1);
	/* Removal while enabled: EBUSY; disabled: gone. */
	assert_int_equal(trev_append("uprobe_events", "-:uprobes/p_pr_str_0"), -EBUSY);
	assert_int_equal(trev_write("uprobe_events", ""), -EBUSY);
	assert_int_equal(trev_write("events/uprobes/p_pr_str_0/enable", "0"), 0);
	assert_int_equal(trev_append("uprobe_events", "-:uprobes/p_pr_str_0"), 0);
	assert_null(strstr(rd("uprobe_events"), "p_pr_str_0"));
	assert_non_null(strstr(rd("available_events"), "grp:args"));
	reset();
}

/* r: and %return: $retval and the entry's registers gone; with function_graph on too. */
static void test_return(void **state)
{
	const char *t;

	(void)state;
	reset();
	assert_int_equal(trev_append("uprobe_events", "r:r/ret pr_args rv=$retval:s64"), 0);
	/* p with %return is a return probe too, listed as r: (the kernel's). */
	assert_int_equal(trev_append("uprobe_events", "p:r/ent pr_args%return r=$retval"), 0);
	assert_int_equal(trev_append("uprobe_events", "p:r/s pr_str%return n=$retval:s32"), 0);
	rd("uprobe_events");
	assert_non_null(strstr(text, "r:r/ret pr_args rv=$retval:s64\n"));
	assert_non_null(strstr(text, "r:r/s pr_str n=$retval:s32\n"));
	assert_non_null(strstr(text, "r:r/ent pr_args r=$retval\n"));
	rd("events/r/ret/format");
	if (!strstr(text, "field:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;") ||
	    !strstr(text, "field:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;") ||
	    !strstr(text, "field:s64 rv;\toffset:24;\tsize:8;\tsigned:1;") ||
	    !strstr(text, "print fmt: \"(%lx <- %lx) rv=%Ld\", REC->__probe_func, REC->__probe_ret_ip, REC->rv"))
		fail_msg("%s", text);
	assert_int_equal(trev_write("events/r/enable", "1"), 0);
	assert_int_equal(pr_args(1, 2, 3, 4, 5, 6, 7, -100), -72);
	assert_int_equal(pr_str("xyz", 5), 'x' + 5);
	t = rd("trace");
	if (count_of(t, " ret: (test_return+0x") != 1 || !strstr(t, " <- pr_args) rv=-72\n") ||
	    count_of(t, " ent: (test_return+0x") != 1 ||
	    !strstr(t, " <- pr_args) r=-72\n") ||	/* $retval typed by DWARF: long */
	    !strstr(t, " s: (test_return+0x") || !strstr(t, " <- pr_str) n=125\n"))
		fail_msg("trace:\n%s", t);
	/*
	 * Under function_graph as well (a change of tracer clears the buffer): its
	 * frame and the probe's share the return slot, both return.
	 */
	assert_int_equal(trev_write("set_graph_function", "pr_args"), 0);
	assert_int_equal(trev_write("current_tracer", "function_graph"), 0);
	assert_int_equal(pr_args(10, 0, 0, 0, 0, 0, 0, 0), 10);
	assert_int_equal(pr_args(11, 0, 0, 0, 0, 0, 0, 0), 11);
	t = rd("trace");
	if (!strstr(t, " <- pr_args) rv=10") || !strstr(t, " <- pr_args) rv=11") ||
	    count_of(t, "pr_args();") + count_of(t, "pr_args() {") != 2)
		fail_msg("trace:\n%s", t);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("set_graph_function", ""), 0);
	assert_int_equal(trev_write("events/r/enable", "0"), 0);
	reset();
}

/* A bad pointer: no crash, the kernel's values ((fault), 0). */
static void test_fault(void **state)
{
	const char *t;

	(void)state;
	reset();
	assert_int_equal(trev_append("uprobe_events",
				     "p:f/bad pr_ptr s=+0(%di):string v=+0(%di):u32 d=+8(+0(%di)):s64"), 0);
	assert_int_equal(trev_write("events/f/bad/enable", "1"), 0);
	pr_ptr((const int *)(uintptr_t)16);
	pr_ptr(NULL);
	t = rd("trace");
	if (count_of(t, "s=(fault) v=0 d=0") != 2)
		fail_msg("trace:\n%s", t);
	reset();
}

/* The same calls, from one place: the same stack pointer both times. */
static __attribute__((noinline)) void fast_calls(const int *v)
{
	assert_int_equal(pr_args((long)(uintptr_t)v, -7, 0x1234, 0xabcd, 5, -6, 77, -88),
			 (long)(uintptr_t)v - 7 + 0x1234 + 0xabcd + 5 - 6 + 77 - 88);
	assert_int_equal(pr_ptr(v), 1);
	assert_int_equal(pr_str("probe", 5), 'p' + 5);
}

/* The text of @event's record number @nth (0 first) in @t after its "(site) ". */
static const char *rec_text(const char *t, const char *event, int nth, char *out, size_t size)
{
	const char *l = t;
	size_t n;

	for (int i = 0; l && i <= nth; i++) {
		l = strstr(l, event);
		if (l && i < nth)
			l++;
	}
	assert_non_null(l);
	l = strstr(l, ") ");
	assert_non_null(l);
	n = strcspn(l + 2, "\n");
	assert_true(n < size);
	memcpy(out, l + 2, n);
	out[n] = '\0';
	return out;
}

/*
 * The fast call (docs/probes.md: numbers from the argument registers, the
 * stack and memory, written in the reservation) and the full call (which a
 * filter makes the hit take) write the same records: the same calls, one
 * without and one with a filter every record passes.
 */
static void test_fast_same(void **state)
{
	static const int v[4] = { -42, 0x51525354, 3, 4 };
	char a[2][512], b[2][512], c[2][512];
	const char *t;

	(void)state;
	reset();
	/* 50 and 56 bytes of arguments: an odd tail, and the most the fast call takes. */
	assert_int_equal(trev_append("uprobe_events",
				     "p:fast/a pr_args v=+0(%di):s32 w=+4(%di):u16 b=$arg2:s32 "
				     "c=%dx:u8 d=%cx:x16 g=$arg7 h=$arg8:s64 bad=+0(%si):u64 "
				     "im=\\12345:u32 ip=%ip r11=%r11:u8"), 0);
	assert_int_equal(trev_append("uprobe_events",
				     "p:fast/b pr_ptr p=%di:x64 sp=$stack:x64 st=$stack0 "
				     "rd=+4(+0(%sp)):x32 oa=%orig_ax:s64 cs=%cs:u32 w=+8(%di):s64"), 0);
	/* Registers as x64 only: the fast call's plain copy. */
	assert_int_equal(trev_append("uprobe_events", "p:fast/c pr_str s=%di n=$arg2 bp=%bp"), 0);
	assert_int_equal(trev_write("events/fast/enable", "1"), 0);
	fast_calls(v);
	assert_int_equal(trev_write("events/fast/a/filter", "common_pid != 0"), 0);
	assert_int_equal(trev_write("events/fast/b/filter", "common_pid != 0"), 0);
	assert_int_equal(trev_write("events/fast/c/filter", "common_pid != 0"), 0);
	fast_calls(v);
	t = rd("trace");
	rec_text(t, " a: (pr_args+", 0, a[0], sizeof(a[0]));
	rec_text(t, " a: (pr_args+", 1, a[1], sizeof(a[1]));
	rec_text(t, " b: (pr_ptr+", 0, b[0], sizeof(b[0]));
	rec_text(t, " b: (pr_ptr+", 1, b[1], sizeof(b[1]));
	rec_text(t, " c: (pr_str+", 0, c[0], sizeof(c[0]));
	rec_text(t, " c: (pr_str+", 1, c[1], sizeof(c[1]));
	if (strcmp(a[0], a[1]) || strcmp(b[0], b[1]) || strcmp(c[0], c[1]) ||
	    !strstr(c[0], " n=0x5 bp=0x") ||
	    strncmp(a[0], "v=-42 w=21332 b=-7 c=52 d=0xabcd g=0x4d h=-88 bad=0 im=12345 ip=0x", 66))
		fail_msg("fast and full records differ:\n%s", t);
	assert_int_equal(hits_of(rd("uprobe_profile"), "a"), 2);
	assert_int_equal(hits_of(text, "b"), 2);
	assert_int_equal(hits_of(text, "c"), 2);
	reset();
}

/* The error_log entry's message and caret column. */
static void assert_error(const char *def, const char *subsystem, const char *msg, int col)
{
	const char *log, *caret, *line;
	char want[256];

	assert_int_equal(trev_write("error_log", ""), 0);
	assert_int_equal(trev_append("uprobe_events", def), -EINVAL);
	log = rd("error_log");
	snprintf(want, sizeof(want), "%s: error: %s\n", subsystem, msg);
	if (!strstr(log, want))
		fail_msg("%s: error_log has no \"%s\":\n%s", def, want, log);
	caret = strchr(log, '^');
	assert_non_null(caret);
	for (line = caret; line > log && line[-1] != '\n'; line--)
		;
	if ((int)(caret - line) != 11 + col)
		fail_msg("%s: caret at %d, not %d:\n%s", def, (int)(caret - line) - 11, col, log);
}

static void test_errors(void **state)
{
	static const struct {
		const char *def, *msg;
		int col;
	} bad[] = {
		{ "p:/x pr_args", "Group name is not specified", 2 },
		{ "p:1g/x pr_args", "Group name must follow the same rules as C identifiers", 2 },
		{ "p: pr_args", "Event name is not specified", 2 },
		{ "p:g/x-y pr_args", "Event name must follow the same rules as C identifiers", 4 },
		{ "p:g/x pr_args %xx", "Invalid register name", 14 },
		{ "p:g/x pr_args $foo", "Invalid $-valiable specified", 14 },
		{ "p:g/x pr_args $retval", "$retval is not available on probe", 14 },
		{ "p:g/x pr_args a=%di:u7", "Unknown type is specified", 20 },
		{ "p:g/x pr_args a=%di:string", "String accepts only memory argument", 20 },
		{ "p:g/x pr_args +0%di", "Dereference needs a brace", 14 },
		{ "p:g/x pr_args +0(%di", "Dereference brace is not closed", 20 },
		{ "p:g/x pr_args +z(%di)", "Invalid dereference offset", 14 },
		{ "p:g/x pr_args \\xyz", "Invalid immediate value", 15 },
		{ "p:g/x pr_args +0(%di):u8[0]", "Invalid array size", 25 },
		{ "p:g/x pr_args +0(%di):u8[65]", "Array number is too big", 25 },
		{ "p:g/x pr_args +0(%di):u8[2", "Array is not closed", 26 },
		{ "p:g/x pr_args a=%di b=%si a=%dx", "This argument name is already used", 26 },
		{ "p:g/x pr_args =%di", "Argument name is not specified", 14 },
		{ "p:g/x pr_args __probe_ip=%di", "This argument name is already used", 14 },
		{ "p:g/x pr_args a=%di:b9@0/8", "Invalid bitfield", 20 },
		{ "p:g/x no_such_function", "Invalid probed address or symbol", 6 },
		{ "p:g/x pr_args+4", "Probe point is not an instruction boundary", 6 },
		{ "r:g/x pr_args+4", "Retprobe address must be an function entry", 6 },
		{ "p:g/x pr_args%foo", "Invalid probed address suffix", 13 },
		{ "p:g/x pr_args $comm:u32", "Unknown type is specified", 20 },
		{ "p:g/x pr_args +0($comm)", "$comm can not be dereferenced", 17 },
		/* 14 dereferences and @0's: one more than the kernel's 16 instructions hold. */
		{ "p:g/x pr_args +0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))",
		  "Dereference is too much nested", 17 },
		{ "p:g/x /no/such/file:0x10", "Failed to find the given file", 6 },
		{ "p:g/x /sys:100", "Not a regular file", 6 },
		{ "p:g/x /bin/sh:10a", "Invalid uprobe offset", 14 },
		{ "p:g/x /bin/sh:10(1a)", "Invalid reference counter offset", 17 },
		{ "p:g/x /bin/sh:10(10", "Reference counter brace is not closed", 19 },
		{ "p:g/x /bin/sh:10(10)a", "Reference counter has wrong suffix", 20 },
		{ "p:g/x /bin/sh:10%hoge", "Invalid probed address suffix", 16 },
		{ "p:g/x /bin/sh:10 @sym", "Symbol is not available with uprobe", 17 },
	};

	(void)state;
	reset();
	assert_int_equal(trev_append("uprobe_events", "p:keep/me pr_args"), 0);
	/* An event that exists (the kernel's append checks), then the rest. */
	assert_error("r:keep/me pr_args", "trace_uprobe", "Probe type is different from existing probe", 0);
	assert_error("p:keep/me pr_args x=%di", "trace_uprobe",
		     "Argument type or name is different from existing probe", 18);
	assert_error("p:keep/me pr_args", "trace_uprobe", "There is already the exact same probe event", 0);
	assert_error("p:keep/me pr_str", "trace_uprobe", "Failed to register probe event", 10);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_error(bad[i].def, "trace_uprobe", bad[i].msg, bad[i].col);
	/* "GRP/" alone names the event as without a name; "-:GRP/" removes the group's. */
	assert_int_equal(trev_append("uprobe_events", "p:grp2/ pr_args\np:grp2/two pr_str"), 0);
	assert_non_null(strstr(rd("uprobe_events"), "p:grp2/p_pr_args_0 pr_args\np:grp2/two pr_str\n"));
	assert_int_equal(trev_append("uprobe_events", "-:grp2/"), 0);
	assert_int_equal(trev_append("uprobe_events", "-:grp2/"), -ENOENT);
	/* The previous probe stays, alone. */
	rd("uprobe_events");
	assert_string_equal(text, "p:keep/me pr_args\n");
	/* dynamic_events: a SYMBOL target is a kprobe (group kprobes), listed there. */
	assert_int_equal(trev_append("dynamic_events", "p pr_str s=+0(%di):string"), 0);
	assert_non_null(strstr(rd("dynamic_events"), "p:kprobes/p_pr_str_0 pr_str s=+0(%di):string\n"));
	assert_non_null(strstr(rd("kprobe_events"), "p:kprobes/p_pr_str_0 pr_str"));
	assert_int_equal(trev_append("dynamic_events", "-:kprobes/p_pr_str_0"), 0);
	reset();
}

/*
 * Arguments from DWARF (pr_dwarf.c, -g): $arg* with each parameter's name
 * and type, parameters by name, "->" and "." members (a string pointer, a
 * char array, a struct member, bitfields, an anonymous union's member, a
 * pointer followed twice), $retval typed and followed: the format's fields
 * and the values the calls passed.
 */
static void test_dwarf(void **state)
{
	struct pr_req next = { .id = 77 };
	struct pr_req req = {
		.id = -12, .len = 1234567890123l, .path = "/index.html", .name = "alpha",
		.in = { .lo = -3, .flag = 5, .mode = 9 }, .u_long = 0x1122334455l, .next = &next,
	};
	const char *t;

	(void)state;
	reset();
	assert_int_equal(trev_append("uprobe_events", "p:dw/ints pr_dw_ints $arg*"), 0);
	assert_int_equal(trev_append("uprobe_events", "p:dw/str pr_dw_str path:string n path"), -EINVAL);
	assert_int_equal(trev_append("uprobe_events", "p:dw/str pr_dw_str path:string n p=path"), 0);
	assert_int_equal(trev_append("uprobe_events",
				     "p:dw/req pr_dw_req req->id req->len p=req->path:string "
				     "nm=req->name:string lo=req->in.lo fl=req->in.flag "
				     "mo=req->in.mode u=req->u_int nx=req->next->id flags"), 0);
	assert_int_equal(trev_append("uprobe_events",
				     "p:dw/mix pr_dw_req f=flags:x8 +8(req):s64 +0(req->next):s32"), 0);
	assert_int_equal(trev_append("uprobe_events",
				     "r:dw/ret pr_dw_ret $retval->id rv=$retval id2=+0($retval):s32 "
				     "p=+8($retval)"), 0);
	assert_int_equal(trev_append("uprobe_events", "p:dw/fl pr_dw_float y"), 0);
	/* $retval inside +OFFS(...) is a pointer there: the default type, not int's. */
	assert_int_equal(trev_append("uprobe_events", "r:dw/rs pr_dw_str v=+0($retval) rv=$retval"), 0);
	/* The definitions as written; $arg* as the parameters it became (the kernel's). */
	rd("uprobe_events");
	if (!strstr(text, "p:dw/ints pr_dw_ints a=a b=b c=c d=d e=e f=f g=g\n") ||
	    !strstr(text, "p:dw/str pr_dw_str path=path:string n=n p=path\n") ||
	    !strstr(text, "r:dw/ret pr_dw_ret arg1=$retval->id rv=$retval id2=+0($retval):s32 "
			  "p=+8($retval)\n"))
		fail_msg("uprobe_events:\n%s", text);
	rd("events/dw/ints/format");
	if (!strstr(text, "field:s32 a;\toffset:16;\tsize:4;\tsigned:1;") ||
	    !strstr(text, "field:s64 b;\toffset:20;\tsize:8;\tsigned:1;") ||
	    !strstr(text, "field:u16 c;\toffset:28;\tsize:2;\tsigned:0;") ||
	    !strstr(text, "field:s8 d;\toffset:30;\tsize:1;\tsigned:1;") ||
	    !strstr(text, "field:u64 e;\toffset:31;\tsize:8;\tsigned:0;") ||
	    !strstr(text, "field:s64 g;\toffset:43;\tsize:8;\tsigned:1;") ||
	    !strstr(text, "print fmt: \"(%lx) a=%d b=%Ld c=%u d=%d e=%Lu f=%d g=%Ld\""))
		fail_msg("%s", text);
	rd("events/dw/str/format");
	/* A char pointer without a type: x64, as the kernel's BTF. */
	if (!strstr(text, "field:__data_loc char[] path;") || !strstr(text, "field:s32 n;") ||
	    !strstr(text, "field:u64 p;"))
		fail_msg("%s", text);
	rd("events/dw/ret/format");
	if (!strstr(text, "field:s32 arg1;") || !strstr(text, "field:u64 rv;") ||
	    !strstr(text, "field:s32 id2;") || !strstr(text, "field:u64 p;"))
		fail_msg("%s", text);
	rd("events/dw/rs/format");
	if (!strstr(text, "field:u64 v;") || !strstr(text, "field:s32 rv;"))
		fail_msg("%s", text);
	assert_int_equal(trev_write("events/dw/enable", "1"), 0);
	assert_int_equal(pr_dw_ints(-1, -2, 65535, -4, 5, -6, -7), -1 - 2 + 65535 - 4 + 5 - 6 - 7);
	assert_int_equal(pr_dw_str("hello", 3), 'h' + 3);
	assert_int_equal(pr_dw_req(&req, 9), -12 + 1234567890123l + 9);
	assert_ptr_equal(pr_dw_ret(&req), &next);
	assert_int_equal(pr_dw_float(2.5, 40), 42);
	t = rd("trace");
	if (!strstr(t, ") a=-1 b=-2 c=65535 d=-4 e=5 f=-6 g=-7\n") ||
	    !strstr(t, ") path=\"hello\" n=3 p=0x") ||
	    !strstr(t, ") arg1=-12 arg2=1234567890123 p=\"/index.html\" nm=\"alpha\" lo=-3 fl=5 "
		       "mo=9 u=573785173 nx=77 flags=9\n") ||
	    !strstr(t, ") f=0x9 arg2=1234567890123 arg3=77\n") ||
	    !strstr(t, " <- pr_dw_ret) arg1=77 rv=0x") || !strstr(t, " id2=77 p=0x0\n") ||
	    !strstr(t, ") y=40\n"))
		fail_msg("trace:\n%s", t);
	assert_int_equal(trev_write("events/dw/enable", "0"), 0);
	reset();
}

/* The kernel's BTF errors, with the caret where its parser puts it; the probe before stays. */
static void test_dwarf_errors(void **state)
{
	static const struct {
		const char *def, *msg, *at;	/* the caret at the last @at of @def */
	} bad[] = {
		{ "p:g/x pr_dw_str nosuch", "This variable is not found at this probe point",
		  "nosuch" },
		{ "p:g/x pr_dw_str n x=+0(nosuch)", "This variable is not found at this probe point",
		  "nosuch" },
		{ "p:g/x pr_dw_req req->nosuch", "This field is not found.", "nosuch" },
		{ "p:g/x pr_dw_req req->in.nosuch", "This field is not found.", "nosuch" },
		{ "p:g/x pr_dw_req flags->x", "This is not a pointer to union/structure.", "x" },
		{ "p:g/x pr_dw_req req->id->x", "This is not a pointer to union/structure.", "x" },
		{ "p:g/x pr_dw_req req.id", "Non pointer structure/union argument is not supported.",
		  "id" },
		{ "p:g/x pr_dw_req req-id", "Failed to parse single hyphen. Forgot '>'?", "-id" },
		{ "p:g/x pr_dw_req $arg* $arg*", "$arg* can be used only once in the parameters",
		  "$arg*" },
		{ "p:g/x pr_dw_req x=$arg*", "$arg* must be an independent parameter without name etc.",
		  "x=" },
		{ "p:g/x pr_dw_req $arg*:u32", "$arg* must be an independent parameter without name etc.",
		  "$arg*" },
		{ "p:g/x pr_dw_req req->id:string", "This type does not fit for string.", "req->id" },
		{ "p:g/x pr_dw_req flags:u8[2]", "String accepts only memory argument", "flags" },
		{ "r:g/x pr_dw_void $retval", "This function returns 'void' type", "$retval" },
		{ "r:g/x pr_dw_req req", "BTF is not available or not supported", "req" },
		{ "r:g/x pr_dw_req $arg*", "$arg* can be used only on function entry or exit", "$arg*" },
		{ "p:g/x pr_dw_none $arg*", "BTF is not available or not supported", "$arg*" },
		{ "p:g/x pr_dw_none x", "No BTF entry for this probe point", " x" },
		{ "p:g/x pr_dw_float x", "BTF is not available or not supported", "x" },
		{ "p:g/x pr_dw_float $arg*", "BTF is not available or not supported", "$arg*" },
		{ "p:g/x pr_nodw a", "BTF is not available or not supported", "a" },
		{ "p:g/x pr_nodw $arg*", "BTF is not available or not supported", "$arg*" },
		{ "p:g/x pr_nodie a", "No BTF entry for this probe point", " a" },
		{ "p:g/x pr_dw_str __probe_ip=path", "This argument name is already used", "__probe_ip" },
	};

	(void)state;
	reset();
	assert_int_equal(trev_append("uprobe_events", "p:keep/me pr_dw_str path"), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *at = NULL;

		for (const char *p = strstr(bad[i].def, bad[i].at); p; p = strstr(p + 1, bad[i].at))
			at = p;
		assert_non_null(at);
		/* " a": the word after a blank. */
		assert_error(bad[i].def, "trace_uprobe", bad[i].msg,
			     (int)(at - bad[i].def) + (bad[i].at[0] == ' '));
	}
	/* Names compared once made: the same probe again, then another one. */
	assert_error("p:keep/me pr_dw_str path", "trace_uprobe",
		     "There is already the exact same probe event", 0);
	assert_error("p:keep/me pr_dw_str n", "trace_uprobe",
		     "Argument type or name is different from existing probe", 20);
	rd("uprobe_events");
	assert_string_equal(text, "p:keep/me pr_dw_str path=path\n");
	/* A probe on the function without DWARF takes registers, as before. */
	assert_int_equal(trev_append("uprobe_events", "p:g/nodw pr_nodw a=%di:s32"), 0);
	assert_int_equal(trev_write("events/g/nodw/enable", "1"), 0);
	assert_int_equal(pr_nodw(41), 42);
	assert_non_null(strstr(rd("trace"), ") a=41\n"));
	assert_int_equal(trev_write("events/g/nodw/enable", "0"), 0);
	reset();
}

#define HAMMER_THREADS	8

static atomic_bool hammer_stop;
static atomic_long hammer_calls;	/* calls with a = 41, made in phase 1 */
static atomic_int hammer_phase;		/* 1: call with a = 41 and count them */
static atomic_int hammer_acks;		/* threads that saw phase 2 */

static void *hammer(void *arg)
{
	long b = (long)(intptr_t)arg % 2;
	bool acked = false;

	while (!atomic_load(&hammer_stop)) {
		int phase = atomic_load(&hammer_phase);

		if (phase == 1) {
			pr_args(41, 2, 3, 4, 5, 6, 7, b);
			atomic_fetch_add(&hammer_calls, 1);
			continue;
		}
		if (phase == 2 && !acked) {
			acked = true;
			atomic_fetch_add(&hammer_acks, 1);
		}
		pr_args(1, 2, 3, 4, 5, 6, 7, 8);
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
 * Probes defined, enabled, disabled and removed 20 times while 8 threads
 * call the function: nothing crashes. Then, the threads still calling, a
 * probe with a filter on a = 41: the threads call with a = 41 only after
 * its enable returned, and have all stopped doing so before its disable:
 * exactly their calls are recorded, none lost, none twice.
 */
static void test_hammer(void **state)
{
	pthread_t th[HAMMER_THREADS];
	long calls;
	const char *t;

	(void)state;
	reset();
	assert_int_equal(trev_write("buffer_size_kb", "8192"), 0);
	for (int i = 0; i < HAMMER_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer, (void *)(intptr_t)i), 0);
	for (int round = 0; round < 20; round++) {
		assert_int_equal(trev_append("uprobe_events", "p:h/x pr_args a=%di b=$arg8"), 0);
		assert_int_equal(trev_write("events/h/x/enable", "1"), 0);
		assert_int_equal(trev_write("events/h/x/enable", "0"), 0);
		assert_int_equal(trev_append("uprobe_events", "-:h/x"), 0);
	}
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_append("uprobe_events", "p:h/y pr_args a=%di b=$arg8"), 0);
	assert_int_equal(trev_write("events/h/y/filter", "a == 41"), 0);
	assert_int_equal(trev_write("events/h/y/enable", "1"), 0);
	atomic_store(&hammer_phase, 1);
	wait_for(&hammer_calls, 2000);
	atomic_store(&hammer_phase, 2);
	for (int i = 0; i < 600000 && atomic_load(&hammer_acks) < HAMMER_THREADS; i++)
		usleep(100);
	assert_int_equal(atomic_load(&hammer_acks), HAMMER_THREADS);
	assert_int_equal(trev_write("events/h/y/enable", "0"), 0);
	atomic_store(&hammer_stop, true);
	for (int i = 0; i < HAMMER_THREADS; i++)
		pthread_join(th[i], NULL);
	calls = atomic_load(&hammer_calls);
	t = rd("trace");
	if (count_of(t, " y: (pr_args+0x") != calls || count_of(t, "a=0x29") != calls)
		fail_msg("%d records of %ld calls", count_of(t, " y: (pr_args+0x"), calls);
	assert_int_equal(trev_write("uprobe_events", ""), 0);

	/* The main thread's 1000 calls, with a hist beside the filter. */
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_append("uprobe_events", "p:h/y pr_args a=%di b=$arg8"), 0);
	assert_int_equal(trev_write("events/h/y/filter", "a == 41"), 0);
	assert_int_equal(trev_write("events/h/y/trigger", "hist:keys=a,b"), 0);
	assert_int_equal(trev_write("events/h/y/enable", "1"), 0);
	for (int i = 0; i < 1000; i++)
		pr_args(41, 0, 0, 0, 0, 0, 0, i % 2);
	pr_args(40, 0, 0, 0, 0, 0, 0, 0);
	assert_int_equal(trev_write("events/h/y/enable", "0"), 0);
	/* Soft mode (the kernel's, for the trigger): no record, the hist counts it. */
	pr_args(41, 0, 0, 0, 0, 0, 0, 0);
	t = rd("trace");
	if (count_of(t, " y: (pr_args+0x") != 1000 || count_of(t, "a=0x29") != 1000)
		fail_msg("trace: %d records", count_of(t, " y: (pr_args+0x"));
	t = rd("events/h/y/hist");
	if (!strstr(t, "{ a:         41, b:          0 } hitcount:        501") ||
	    !strstr(t, "{ a:         41, b:          1 } hitcount:        500") ||
	    !strstr(t, "{ a:         40, b:          0 } hitcount:          1"))
		fail_msg("hist:\n%s", t);
	assert_int_equal(trev_write("events/h/y/trigger", "!hist:keys=a,b"), 0);
	reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_return),
		cmocka_unit_test(test_fault),
		cmocka_unit_test(test_fast_same),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_dwarf),
		cmocka_unit_test(test_dwarf_errors),
		cmocka_unit_test(test_hammer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
