// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Inter-event hist triggers (docs/hist.md, "Variables, expressions and
 * actions"): the parser of variables, expressions, $var references and
 * onmatch()/onmax()/onchange() actions (each kernel error with its column),
 * their evaluation, references matched by key and consumed once, synthetic
 * events fired by onmatch() with exact values, the hist output of onmax()
 * and onchange(), EBUSY for what a trigger references, and many threads
 * firing matches with no synthetic event lost or doubled.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "base/buf.h"
#include "events/events_internal.h"
#include "trigger/hist.h"

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

#define EV(e)	"events/trev_test/" e

static char got[1 << 16];

static const char *rd(const char *path)
{
	ssize_t n = trev_read(path, got, sizeof(got) - 1);

	assert_true(n >= 0);
	got[n] = '\0';
	return got;
}

static void add(const char *path, const char *text)
{
	int ret = trev_append(path, text);

	if (ret)
		fail_msg("'%s' >> %s: %d (%s)", text, path, ret, rd("error_log"));
}

/* Every trigger and synthetic event gone; references first, as ftracetest's reset does. */
static int reset(void **state)
{
	(void)state;
	trev_write("events/enable", "0");
	trev_write(EV("tt_perf_count/trigger"), "");
	trev_write(EV("tt_close/trigger"), "");
	trev_write(EV("tt_ints/trigger"), "");
	trev_write(EV("tt_open/trigger"), "");
	trev_write("events/synthetic/req_lat/trigger", "");
	assert_int_equal(trev_write("synthetic_events", ""), 0);
	trev_write("error_log", "");
	trev_write("trace", "");
	return 0;
}

static struct trev_event_call *find_call(const char *name)
{
	struct trev_event_call *found = NULL;

	trev__events_read_lock();
	for (unsigned int id = TREV_FIRST_EVENT_ID; id < TREV_FIRST_EVENT_ID + 64; id++) {
		struct trev_event_call *call = trev__event_by_id(id);

		if (call && strcmp(call->name, name) == 0)
			found = call;
	}
	trev__events_read_unlock();
	assert_non_null(found);
	return found;
}

/* ------------------------------------------------------------------ */
/* The parser: each case's trigger line, or the error and its column     */

struct parse_case {
	const char *event;
	const char *param;
	const char *text;	/* the trigger line, or NULL: refused */
	const char *msg;
	int pos;		/* in "hist:<param>" */
};

#define LINE(k, v)	"hist:keys=" k ":vals=hitcount" v ":sort=hitcount:size=2048 [active]\n"

static const struct parse_case parse_cases[] = {
	/* trigger-hist-expressions.tc: constants folded, left to right, * and / first */
	{ "tt_ints", "keys=a:x=123", LINE("a", ":x=123"), NULL, 0 },
	{ "tt_ints", "keys=a:x=16-8-4-2", LINE("a", ":x=2"), NULL, 0 },
	{ "tt_ints", "keys=a:x=64/8/4/2", LINE("a", ":x=1"), NULL, 0 },
	{ "tt_ints", "keys=a:x=16-8+4+2", LINE("a", ":x=14"), NULL, 0 },
	{ "tt_ints", "keys=a:x=4*3/2*2", LINE("a", ":x=12"), NULL, 0 },
	{ "tt_ints", "keys=a:x=4+3*2-2", LINE("a", ":x=8"), NULL, 0 },
	{ "tt_ints", "keys=a:x=4+6/2-2", LINE("a", ":x=5"), NULL, 0 },
	{ "tt_ints", "keys=a:x=0x10", LINE("a", ":x=16"), NULL, 0 },
	{ "tt_ints", "keys=a:x=-(5)", LINE("a", ":x=-(5)"), NULL, 0 },
	{ "tt_ints", "keys=a:x=32+10*3/20-4", NULL, "Too many subexpressions (3 max)", 17 },
	{ "tt_ints", "keys=a:x=1+2+3+4+5", NULL, "Too many subexpressions (3 max)", 14 },
	{ "tt_ints", "keys=a:x=-(1)+2", NULL, "Unary minus not supported in sub-expressions", 16 },
	{ "tt_ints", "keys=a:x=3/0", NULL, "Division by zero", 16 },
	/* fields, the time stamp, several variables, their text as the kernel prints it */
	{ "tt_ints", "keys=a:x=b", LINE("a", ":x=b"), NULL, 0 },
	{ "tt_ints", "keys=a:x=b,y=c*2:z=b.hex", LINE("a", ":x=b,y=c*2,z=b.hex"), NULL, 0 },
	{ "tt_ints", "keys=a:ts0=common_timestamp.usecs", LINE("a", ":ts0=common_timestamp.usecs"),
	  NULL, 0 },
	{ "tt_ints", "keys=a:vals=c:t=common_timestamp", LINE("a", ",c:t=common_timestamp"), NULL, 0 },
	{ "tt_ints", "keys=a:x=b-c+2", LINE("a", ":x=b-c+2"), NULL, 0 },
	{ "tt_ints", "keys=a:x=-(b*c)", LINE("a", ":x=-(b*c)"), NULL, 0 },
	/* printed so that it parses again: =N after .buckets, no .usecs after a subexpression */
	{ "tt_ints", "keys=a:x=c.buckets=10", LINE("a", ":x=c.buckets=10"), NULL, 0 },
	{ "tt_ints", "keys=a:x=common_timestamp.usecs+common_timestamp.usecs-common_timestamp.usecs",
	  LINE("a", ":x=common_timestamp.usecs+common_timestamp.usecs-common_timestamp.usecs"),
	  NULL, 0 },
	/* as the kernel's: µs and a number without a unit do not mix */
	{ "tt_ints", "keys=a:x=common_timestamp.usecs-c", NULL,
	  "Timestamp units in expression don't match", 0 },
	/* "$x" of a variable of this hist defined as a field reads the field */
	{ "tt_ints", "keys=a:x=b:y=$x+1", LINE("a", ":x=b,y=b+1"), NULL, 0 },
	/* histogram.rst: a variable defined as a field, as a key or a value, is that field */
	{ "tt_ints", "keys=$tp:tp=a", LINE("a", ":tp=a"), NULL, 0 },
	{ "tt_ints", "keys=a:vals=$t,$u:t=c,u=common_timestamp",
	  LINE("a", ",c,common_timestamp:t=c,u=common_timestamp"), NULL, 0 },
	/* refused */
	{ "tt_ints", "keys=$x:x=b+1", NULL, "Using variable references in keys not supported", 10 },
	{ "tt_ints", "keys=a:vals=$x:x=b+1", NULL, "Expressions in keys and values are not supported", 17 },
	{ "tt_ints", "keys=a:x=b,x=c", NULL, "Variable already defined", 16 },
	{ "tt_ints", "keys=a:x=nope", NULL, "Couldn't find field", 14 },
	{ "tt_ints", "keys=a:x=b+nope", NULL, "Couldn't find field", 16 },
	{ "tt_ints", "keys=a:x=$nope", NULL, "Couldn't find variable", 15 },
	{ "tt_ints", "keys=a:x=trev_test.tt_open.$nope", NULL, "Couldn't find variable", 33 },
	{ "tt_ints", "keys=a:x=12ab", NULL, "Expecting numeric literal", 14 },
	{ "tt_ints", "keys=a:x=b+", NULL, "Missing operand", 16 },
	{ "tt_ints", "keys=a:x=-b", NULL, "Unary minus needs parentheses: -(expression)", 15 },
	{ "tt_ints", "keys=a:x=common_timestamp.usecs-common_timestamp", NULL,
	  "Timestamp units in expression don't match", 0 },
	{ "tt_ints", "keys=a:x=b.foo", NULL, "Invalid field modifier", 16 },
	{ "tt_ints", "keys=a:=b", NULL, "Malformed assignment", 12 },
	{ "tt_ints", "keys=$a", NULL, "Using variable references in keys not supported", 10 },
	{ "tt_strings", "keys=tag:x=name", LINE("tag", ":x=name"), NULL, 0 },
	{ "tt_strings", "keys=tag:x=name:onmax($x).save(msg)", NULL,
	  "Couldn't create onmax or onchange variable", 28 },
	{ "tt_open", "keys=id:x=id+what", NULL,
	  "String type can not be an operand in expression", 18 },
	{ "tt_ints", "keys=a:v0=1,v1=1,v2=1,v3=1,v4=1,v5=1,v6=1,v7=1,v8=1,v9=1,va=1,vb=1,vc=1,vd=1,"
		     "ve=1,vf=1,vg=1", NULL, "Too many variables defined", 92 },
	/* 16 string variables: 16 * 33 words, more than the 512 of an entry */
	{ "tt_strings", "keys=tag:v0=name,v1=name,v2=name,v3=name,v4=name,v5=name,v6=name,v7=name,"
			"v8=name,v9=name,va=name,vb=name,vc=name,vd=name,ve=name,vf=name", NULL,
	  "Too many variables defined", 0 },
	/* actions that need no other hist */
	{ "tt_open", "keys=what:m=id:onmax($m).save(id,what)",
	  "hist:keys=what:vals=hitcount:m=id:sort=hitcount:size=2048:onmax($m).save(id,what)"
	  " [active]\n", NULL, 0 },
	{ "tt_open", "keys=what:m=id:onchange($m).save(id):onmax($m).snapshot()",
	  "hist:keys=what:vals=hitcount:m=id:sort=hitcount:size=2048:onchange($m).save(id)"
	  ":onmax($m).snapshot() [active]\n", NULL, 0 },
	{ "tt_open", "keys=what:m=id:onmax(m).save(id)", NULL,
	  "For onmax(x) or onchange(x), x must be a variable", 26 },
	{ "tt_open", "keys=what:m=id:onmax($x).save(id)", NULL,
	  "Couldn't find onmax or onchange variable", 27 },
	{ "tt_open", "keys=what:m=id:onmax($m.save(id)", NULL, "No action found", 0 },
	{ "tt_open", "keys=what:m=id:onmax($m).save()", NULL, "Invalid action param", 35 },
	{ "tt_open", "keys=what:m=id:onmax($m).save(id):onchange($m).save(what)", NULL,
	  "Can't have more than one save() action per hist", 52 },
	{ "tt_open", "keys=what:m=id:onmax($m).save(nope)", NULL, "Couldn't find field", 35 },
	{ "tt_open", "keys=what:m=id:onmax($m)", NULL, "No action found", 0 },
	/* the kernel's trigger-action-hist-xfail.tc: onmatch() takes neither save() nor snapshot() */
	{ "tt_ints", "keys=a:onmatch(trev_test.tt_open).snapshot()", NULL,
	  "Handler doesn't support action", 39 },
	{ "tt_ints", "keys=a:onmatch(trev_test.tt_open).save(b)", NULL,
	  "Handler doesn't support action", 39 },
	{ "tt_ints", "keys=a:onmatch(trev_test).trace(x)", NULL, "Missing subsystem", 20 },
	{ "tt_ints", "keys=a:onmatch(trev_test.nope).trace(x)", NULL,
	  "Invalid subsystem or event name", 20 },
	{ "tt_ints", "keys=a:onmatch(trev_test.tt_open).nope(b)", NULL,
	  "Couldn't find synthetic event", 39 },
	{ "tt_ints", "keys=a:onmatch(trev_test.tt_open).trace(nope,b)", NULL,
	  "Couldn't find synthetic event", 45 },
	/* as the kernel's: a param of one character is not one */
	{ "tt_ints", "keys=a:m=c:onmax($m).save(b)", NULL, "Invalid action param", 31 },
};

static void test_parse_table(void **state)
{
	struct trev_trace_array *tr = trev__top_instance();
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct trev_event_call *call = find_call(c->event);
		struct trev_hist_trigger *ht = NULL;
		struct trev_hist_error err;
		struct trev_buf t = TREV_BUF_INIT;
		int ret;

		trev__events_write_lock();
		ret = trev__hist_parse(call, tr, c->param, &ht, &err);
		trev__events_write_unlock();
		if (c->text) {
			if (ret) {
				print_error("'%s': refused: %s at %d\n", c->param, err.msg, err.pos);
				bad++;
				continue;
			}
			assert_int_equal(trev__hist_print(ht, &t), 0);
			if (strcmp(t.data, c->text)) {
				print_error("'%s': got '%s'\n", c->param, t.data);
				bad++;
			}
			free(t.data);
			trev__hist_free(ht);
		} else if (ret != -EINVAL) {
			print_error("'%s': accepted (%d)\n", c->param, ret);
			trev__hist_free(ht);
			bad++;
		} else if (strcmp(err.msg, c->msg) || err.pos != c->pos) {
			print_error("'%s': got '%s' at %d, want '%s' at %d\n", c->param, err.msg,
				    err.pos, c->msg, c->pos);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------------ */
/* Through the trigger files                                            */

/* The last error_log entry of @loc_msg, and its caret's column in the command. */
static void errlog_is(const char *loc_msg, int col)
{
	const char *log = rd("error_log"), *last = NULL, *line, *caret;

	for (const char *p = strstr(log, loc_msg); p; p = strstr(p + 1, loc_msg))
		last = p;
	if (!last)
		fail_msg("no '%s' in error_log:\n%s", loc_msg, log);
	/* the entry's line, "  Command: ...", then the caret's line */
	line = strchr(strchr(last, '\n') + 1, '\n') + 1;
	caret = strchr(line, '^');
	assert_non_null(caret);
	/* "  Command: " is 11 columns */
	if ((int)(caret - line) - 11 != col)
		fail_msg("'%s': caret at %d, want %d:\n%s", loc_msg, (int)(caret - line) - 11, col,
			 log);
}

/*
 * A request's latency from its start event to its end event, with the
 * times in the events' fields so that every value is known: start is
 * tt_ints(a = id, b, c = time), end is tt_perf_count(runtime = time,
 * cpu = id), matched by the key (the id).
 */
static void define_req_lat(void)
{
	add("synthetic_events", "req_lat u64 lat; int id");
	add(EV("tt_ints/trigger"), "hist:keys=a:t0=c");
	add(EV("tt_perf_count/trigger"),
	    "hist:keys=cpu:lat=runtime-$t0:onmatch(trev_test.tt_ints).trace(req_lat,$lat,cpu)");
}

static void test_onmatch_values(void **state)
{
	(void)state;
	define_req_lat();
	assert_int_equal(trev_write("events/synthetic/req_lat/enable", "1"), 0);
	trace_tt_perf_count(100, 7);	/* an end with no start: nothing */
	trace_tt_ints(7, 0, 1000);
	trace_tt_ints(8, 0, 2000);
	trace_tt_perf_count(2500, 8);	/* lat 500 */
	trace_tt_perf_count(1300, 7);	/* lat 300 */
	trace_tt_perf_count(1400, 7);	/* the start was consumed: nothing */
	trace_tt_ints(7, 0, 5000);
	trace_tt_perf_count(5010, 7);	/* lat 10 */
	trev_write("events/synthetic/req_lat/enable", "0");
	{
		const char *t = rd("trace");
		const char *want[] = { "req_lat: lat=500 id=8\n", "req_lat: lat=300 id=7\n",
				       "req_lat: lat=10 id=7\n" };
		const char *at = t;
		int n = 0;

		for (size_t i = 0; i < 3; i++) {
			at = strstr(at, want[i]);
			if (!at)
				fail_msg("no '%s' in order in:\n%s", want[i], t);
			at++;
		}
		for (const char *p = strstr(t, "req_lat:"); p; p = strstr(p + 1, "req_lat:"))
			n++;
		assert_int_equal(n, 3);
	}
	/* The variables in the trigger file, as the kernel prints them. */
	assert_string_equal(rd(EV("tt_perf_count/trigger")),
			    "hist:keys=cpu:vals=hitcount:lat=runtime-$t0:sort=hitcount:size=2048"
			    ":onmatch(trev_test.tt_ints).trace(req_lat,$lat,cpu) [active]\n");
	assert_string_equal(rd(EV("tt_ints/trigger")),
			    "hist:keys=a:vals=hitcount:t0=c:sort=hitcount:size=2048 [active]\n");
	/* Variables are not values: the entries show the key and hitcount only. */
	assert_non_null(strstr(rd(EV("tt_ints/hist")),
			       "{ a:          8 } hitcount:          1\n"
			       "{ a:          7 } hitcount:          2\n"));
	/* The end's entries count the ends that found their start. */
	assert_non_null(strstr(rd(EV("tt_perf_count/hist")),
			       "{ cpu:          8 } hitcount:          1\n"
			       "{ cpu:          7 } hitcount:          2\n"));
	reset(NULL);
}

/* The synthetic event's own hist, as the kernel's onmatch case does. */
/*
 * A reference reads the other hist's entry whose key is the first bytes of
 * this one's (the kernel's tracing_map_lookup() with the other map's key
 * size): keys=cpu,runtime finds t0 of keys=a. A longer key there is never
 * matched (the kernel would read past this key).
 */
static void test_key_prefix(void **state)
{
	const char *t;
	int n = 0;

	(void)state;
	add("synthetic_events", "req_lat u64 lat; int id");
	add(EV("tt_ints/trigger"), "hist:keys=a:t0=c");
	add(EV("tt_perf_count/trigger"),
	    "hist:keys=cpu,runtime:lat=runtime-$t0:onmatch(trev_test.tt_ints).trace(req_lat,$lat,cpu)");
	assert_int_equal(trev_write("events/synthetic/req_lat/enable", "1"), 0);
	trace_tt_ints(7, 0, 1000);
	trace_tt_perf_count(1300, 7);	/* lat 300 */
	trace_tt_perf_count(1400, 7);	/* the start was consumed: nothing */
	trev_write("events/synthetic/req_lat/enable", "0");
	t = rd("trace");
	for (const char *p = strstr(t, "req_lat:"); p; p = strstr(p + 1, "req_lat:"))
		n++;
	assert_int_equal(n, 1);
	assert_non_null(strstr(t, "req_lat: lat=300 id=7\n"));
	reset(NULL);

	add("synthetic_events", "req_lat u64 lat; int id");
	add(EV("tt_ints/trigger"), "hist:keys=a,b:t0=c");
	add(EV("tt_perf_count/trigger"),
	    "hist:keys=cpu:lat=runtime-$t0:onmatch(trev_test.tt_ints).trace(req_lat,$lat,cpu)");
	assert_int_equal(trev_write("events/synthetic/req_lat/enable", "1"), 0);
	trace_tt_ints(7, 0, 1000);
	trace_tt_perf_count(1300, 7);
	trev_write("events/synthetic/req_lat/enable", "0");
	assert_null(strstr(rd("trace"), "req_lat:"));
	reset(NULL);
}

static void test_onmatch_synth_hist(void **state)
{
	(void)state;
	define_req_lat();
	add("events/synthetic/req_lat/trigger", "hist:keys=id,lat:wakeup_lat=lat:sort=id,lat");
	for (int i = 0; i < 4; i++) {
		trace_tt_ints(i % 2, 0, 100 * i);
		trace_tt_perf_count(100ULL * (unsigned int)i + 10 * (i % 2) + 5, i % 2);
	}
	assert_string_equal(rd("events/synthetic/req_lat/hist"),
			    "# event histogram\n#\n"
			    "# trigger info: hist:keys=id,lat:vals=hitcount:wakeup_lat=lat:sort=id,lat"
			    ":size=2048 [active]\n#\n\n"
			    "{ id:          0, lat:          5 } hitcount:          2\n"
			    "{ id:          1, lat:         15 } hitcount:          2\n"
			    "\nTotals:\n    Hits: 4\n    Entries: 2\n    Dropped: 0\n");
	reset(NULL);
}

/* The synth(args) form, a $var read in an expression of another hist, and a string field. */
static void test_onmatch_synth_form(void **state)
{
	(void)state;
	add("synthetic_events", "open_lat int lat; int id; char what[16]");
	add(EV("tt_ints/trigger"), "hist:keys=a:t0=c");
	add(EV("tt_open/trigger"),
	    "hist:keys=id:lat=id*1000-$t0:onmatch(trev_test.tt_ints).open_lat($lat,id,what)");
	assert_int_equal(trev_write("events/synthetic/open_lat/enable", "1"), 0);
	trace_tt_ints(3, 0, 2900);
	trace_tt_open(3, "door");
	trace_tt_open(3, "again");	/* consumed */
	trev_write("events/synthetic/open_lat/enable", "0");
	assert_non_null(strstr(rd("trace"), "open_lat: lat=100 id=3 what=door\n"));
	assert_null(strstr(got, "again"));
	/* Removing what a trigger references is refused, as in the kernel. */
	assert_int_equal(trev_append("synthetic_events", "!open_lat"), -EBUSY);
	assert_int_equal(trev_append(EV("tt_ints/trigger"), "!hist:keys=a:t0=c"), -EBUSY);
	/* O_TRUNC leaves a hist still referenced (the kernel's hist_unreg_all()). */
	assert_int_equal(trev_write(EV("tt_ints/trigger"), ""), 0);
	assert_non_null(strstr(rd(EV("tt_ints/trigger")), "t0=c"));
	assert_int_equal(trev_append(EV("tt_open/trigger"),
				     "!hist:keys=id:lat=id*1000-$t0"
				     ":onmatch(trev_test.tt_ints).open_lat($lat,id,what)"), 0);
	assert_int_equal(trev_append(EV("tt_ints/trigger"), "!hist:keys=a:t0=c"), 0);
	assert_int_equal(trev_append("synthetic_events", "!open_lat"), 0);
	reset(NULL);
}

/* A string variable: a string field's copy, read by reference into a char[] field. */
static void test_string_var(void **state)
{
	const char *t;

	(void)state;
	add("synthetic_events", "path_ev char path[]; int id");
	add(EV("tt_open/trigger"), "hist:keys=id:w=what");
	add(EV("tt_close/trigger"), "hist:keys=id:onmatch(trev_test.tt_open).path_ev($w,id)");
	assert_int_equal(trev_write("events/synthetic/path_ev/enable", "1"), 0);
	trace_tt_close(1, "none");	/* no start: nothing */
	trace_tt_open(1, "alpha");
	trace_tt_open(2, "a longer name than a comm");
	trace_tt_close(2, "x");
	trace_tt_close(1, "y");
	trace_tt_close(1, "z");		/* $w is no operand: not consumed, as in the kernel */
	trev_write("events/synthetic/path_ev/enable", "0");
	t = rd("trace");
	if (!strstr(t, "path_ev: path=a longer name than a comm id=2\n") ||
	    !strstr(t, "path_ev: path=alpha id=1\n") ||
	    strstr(strstr(t, "path_ev: path=alpha id=1\n") + 1, "path_ev: path=alpha id=1\n") == NULL)
		fail_msg("got\n%s", t);
	/* Only a field makes a string variable; and a string is no operand. */
	assert_int_equal(trev_append(EV("tt_close/trigger"), "hist:keys=id:y=$w"), -EINVAL);
	errlog_is("hist:trev_test:tt_close: error: A string variable must be a string field", 15);
	assert_int_equal(trev_append(EV("tt_close/trigger"), "hist:keys=id:y=id+$w"), -EINVAL);
	errlog_is("hist:trev_test:tt_close: error: String type can not be an operand in expression",
		  18);
	reset(NULL);
}

/* Errors of triggers that reference others, through the file: error_log's text and caret. */
static void test_errors(void **state)
{
	(void)state;
	add("synthetic_events", "req_lat s64 lat; int id");
	add(EV("tt_ints/trigger"), "hist:keys=a:t0=c");
	add(EV("tt_open/trigger"), "hist:keys=id:t0=id");
	/* $t0 is on two events: it must be qualified */
	assert_int_equal(trev_append(EV("tt_close/trigger"), "hist:keys=id:x=id-$t0"), -EINVAL);
	errlog_is("hist:trev_test:tt_close: error: Variable name not unique", 19);
	add(EV("tt_close/trigger"), "hist:keys=id:x=id-trev_test.tt_open.$t0");
	assert_non_null(strstr(rd(EV("tt_close/trigger")), ":x=id-$trev_test.tt_open.t0:"));
	assert_int_equal(trev_append(EV("tt_perf_count/trigger"),
				     "hist:keys=cpu:onmatch(trev_test.tt_ints).req_lat($t0)"), -EINVAL);
	errlog_is("hist:trev_test:tt_perf_count: error: Param count doesn't match synthetic event field count",
		  49);
	assert_int_equal(trev_append(EV("tt_perf_count/trigger"),
				     "hist:keys=cpu:onmatch(trev_test.tt_ints).req_lat($nope,cpu)"), -EINVAL);
	errlog_is("hist:trev_test:tt_perf_count: error: Couldn't find param", 49);
	assert_int_equal(trev_append(EV("tt_perf_count/trigger"),
				     "hist:keys=cpu:onmatch(trev_test.tt_ints).req_lat(runtime,cpu)"), -EINVAL);
	errlog_is("hist:trev_test:tt_perf_count: error: Param type doesn't match synthetic event field type",
		  49);
	assert_int_equal(trev_append(EV("tt_ints/trigger"), "hist:keys=a:t0=b"), -EINVAL);
	errlog_is("hist:trev_test:tt_ints: error: Variable already defined", 12);
	/* A field of another event needs a hist there whose keys are this one's. */
	assert_int_equal(trev_append(EV("tt_perf_count/trigger"),
				     "hist:keys=cpu:onmatch(trev_test.tt_ints).req_lat($t0,trev_test.tt_strings.tag)"),
			 -EINVAL);
	errlog_is("hist:trev_test:tt_perf_count: error: Matching event histogram not found", 53);
	reset(NULL);
}

/*
 * A field of another event given to an action (the kernel's field
 * variables, trigger-field-variable-support.tc): a hist with the variable
 * synthetic_<field> is made on that event, with the keys and filter of its
 * hist, shown in its trigger and hist files, and goes with the trigger.
 */
static void test_field_var(void **state)
{
	(void)state;
	add("synthetic_events", "fv_ev u64 lat; unsigned int b");
	add(EV("tt_ints/trigger"), "hist:keys=a:t0=c if b > 10");
	add(EV("tt_perf_count/trigger"),
	    "hist:keys=cpu:lat=runtime-$t0:onmatch(trev_test.tt_ints).fv_ev($lat,trev_test.tt_ints.b)");
	assert_string_equal(rd(EV("tt_ints/trigger")),
			    "hist:keys=a:vals=hitcount:synthetic_b=b:sort=hitcount:size=2048 if b > 10 [active]\n"
			    "hist:keys=a:vals=hitcount:t0=c:sort=hitcount:size=2048 if b > 10 [active]\n");
	assert_non_null(strstr(rd(EV("tt_ints/hist")), "synthetic_b=b"));
	assert_int_equal(trev_write("events/synthetic/fv_ev/enable", "1"), 0);
	trace_tt_ints(5, 77, 1000);
	trace_tt_ints(6, 3, 1000);	/* filtered out of both hists */
	trace_tt_perf_count(1500, 5);
	trace_tt_perf_count(1500, 6);
	trev_write("events/synthetic/fv_ev/enable", "0");
	rd("trace");
	if (!strstr(got, "fv_ev: lat=500 b=77\n") || strstr(got, "lat=1500"))
		fail_msg("got\n%s", got);
	/* The hist made for it is the trigger's: referenced, it stays; with it, it goes. */
	assert_int_equal(trev_append(EV("tt_ints/trigger"), "!hist:keys=a:synthetic_b=b if b > 10"),
			 -EBUSY);
	assert_int_equal(trev_append(EV("tt_perf_count/trigger"),
				     "!hist:keys=cpu:lat=runtime-$t0"
				     ":onmatch(trev_test.tt_ints).fv_ev($lat,trev_test.tt_ints.b)"), 0);
	assert_string_equal(rd(EV("tt_ints/trigger")),
			    "hist:keys=a:vals=hitcount:t0=c:sort=hitcount:size=2048 if b > 10 [active]\n");
	/*
	 * A duplicate is refused (its lat is defined already, as in the kernel)
	 * and leaves the hist there; O_TRUNC of the trigger takes it along.
	 */
	add(EV("tt_perf_count/trigger"),
	    "hist:keys=cpu:lat=runtime-$t0:onmatch(trev_test.tt_ints).fv_ev($lat,trev_test.tt_ints.b)");
	assert_int_equal(trev_append(EV("tt_perf_count/trigger"),
				     "hist:keys=cpu:lat=runtime-$t0"
				     ":onmatch(trev_test.tt_ints).fv_ev($lat,trev_test.tt_ints.b)"), -EINVAL);
	errlog_is("hist:trev_test:tt_perf_count: error: Variable already defined", 14);
	assert_non_null(strstr(rd(EV("tt_ints/trigger")), "synthetic_b=b"));
	assert_int_equal(trev_write(EV("tt_perf_count/trigger"), ""), 0);
	assert_null(strstr(rd(EV("tt_ints/trigger")), "synthetic_b=b"));
	/* Unqualified, a field this event has not is the onmatch() event's. */
	add("synthetic_events", "wh_ev char w[16]");
	add(EV("tt_open/trigger"), "hist:keys=id:t1=id");
	add(EV("tt_perf_count/trigger"), "hist:keys=cpu:onmatch(trev_test.tt_open).wh_ev(what)");
	assert_non_null(strstr(rd(EV("tt_open/trigger")),
			       "hist:keys=id:vals=hitcount:synthetic_what=what:sort=hitcount:size=2048 [active]\n"));
	assert_int_equal(trev_write("events/synthetic/wh_ev/enable", "1"), 0);
	trace_tt_open(9, "nine");
	trace_tt_perf_count(0, 9);
	trev_write("events/synthetic/wh_ev/enable", "0");
	assert_non_null(strstr(rd("trace"), "wh_ev: w=nine\n"));
	reset(NULL);
}

/* onmax() and onchange(): the max or last value and the saved fields after each entry. */
static void test_onmax_onchange(void **state)
{
	(void)state;
	add(EV("tt_open/trigger"), "hist:keys=what:m=id:onmax($m).save(id,what)");
	add(EV("tt_close/trigger"), "hist:keys=id:w=id*2:onchange($w).save(what)");
	trace_tt_open(5, "aa");
	trace_tt_open(50, "aa");
	trace_tt_open(7, "aa");
	trace_tt_open(3, "bb");
	trace_tt_close(4, "first");
	trace_tt_close(4, "same");
	trace_tt_close(5, "other");
	rd(EV("tt_open/hist"));
	if (!strstr(got, "hitcount:          3\n"
			 "\tmax:         50  id:         50  what: aa                              \n") ||
	    !strstr(got, "hitcount:          1\n"
			 "\tmax:          3  id:          3  what: bb                              \n") ||
	    !strstr(got, ":onmax($m).save(id,what) [active]\n"))
		fail_msg("got\n%s", got);
	rd(EV("tt_close/hist"));
	if (!strstr(got, "{ id:          4 } hitcount:          2\n"
			 "\tchanged:          8  what: first                           \n") ||
	    !strstr(got, "{ id:          5 } hitcount:          1\n"
			 "\tchanged:         10  what: other                           \n"))
		fail_msg("got\n%s", got);
	reset(NULL);
}

/*
 * Many threads, each with its own request ids, each request a start and an
 * end: every end fires one synthetic event, none lost or doubled, counted
 * exactly by the synthetic event's own hist.
 */
#define N_THREADS	4
#define N_REQS		200
#define N_ROUNDS	25

static void *req_thread(void *arg)
{
	int base = (int)(intptr_t)arg * N_REQS;

	for (int r = 0; r < N_ROUNDS; r++) {
		for (int i = 0; i < N_REQS; i++)
			trace_tt_ints(base + i, 0, 1000 * r);
		for (int i = 0; i < N_REQS; i++)
			trace_tt_perf_count(1000ULL * (unsigned int)r + (unsigned int)i, base + i);
	}
	return NULL;
}

static void test_concurrent_matches(void **state)
{
	pthread_t th[N_THREADS];
	char want[64];

	(void)state;
	define_req_lat();
	add("events/synthetic/req_lat/trigger", "hist:keys=id:vals=lat:size=1024");
	for (intptr_t i = 0; i < N_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, req_thread, (void *)i), 0);
	for (int i = 0; i < N_THREADS; i++)
		pthread_join(th[i], NULL);
	rd("events/synthetic/req_lat/hist");
	snprintf(want, sizeof(want), "    Hits: %d\n    Entries: %d\n    Dropped: 0\n",
		 N_THREADS * N_REQS * N_ROUNDS, N_THREADS * N_REQS);
	if (!strstr(got, want))
		fail_msg("want\n%s in\n%.2000s", want, got);
	/* Each id: N_ROUNDS matches, each of latency (its index in the thread). */
	for (int id = 0; id < N_THREADS * N_REQS; id += 37) {
		snprintf(want, sizeof(want), "{ id: %10d } hitcount: %10d  lat: %10d\n", id, N_ROUNDS,
			 N_ROUNDS * (id % N_REQS));
		if (!strstr(got, want))
			fail_msg("no '%s'", want);
	}
	reset(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_parse_table, reset),
		cmocka_unit_test_setup(test_onmatch_values, reset),
		cmocka_unit_test_setup(test_key_prefix, reset),
		cmocka_unit_test_setup(test_onmatch_synth_hist, reset),
		cmocka_unit_test_setup(test_onmatch_synth_form, reset),
		cmocka_unit_test_setup(test_string_var, reset),
		cmocka_unit_test_setup(test_errors, reset),
		cmocka_unit_test_setup(test_field_var, reset),
		cmocka_unit_test_setup(test_onmax_onchange, reset),
		cmocka_unit_test_setup(test_concurrent_matches, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
