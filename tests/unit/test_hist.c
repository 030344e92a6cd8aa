/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Histogram triggers: the map (insert, lookup, full, two threads counting
 * exactly), the hist command's parser (every modifier, every error with its
 * column, the canonical text), and golden hist files for real events fired
 * through the trigger file (tests/golden/hist/, compared exactly).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "events/events_internal.h"
#include "tracefs/tracefs_internal.h"
#include "trigger/hist.h"
#include "trigger/tracing_map.h"

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
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
/* The map                                                              */

static void test_map_insert_lookup(void **state)
{
	struct trev_tmap *m = trev__tmap_create(7, 8, 2, NULL);
	struct trev_tmap_elt *elts[128];

	(void)state;
	assert_non_null(m);
	for (uint64_t k = 0; k < 128; k++) {
		elts[k] = trev__tmap_insert(m, &k);
		assert_non_null(elts[k]);
		trev__tmap_add(elts[k], 0, 1);
		trev__tmap_add(elts[k], 1, k * 10);
	}
	for (uint64_t k = 0; k < 128; k++) {
		struct trev_tmap_elt *e = trev__tmap_lookup(m, &k);

		assert_ptr_equal(e, elts[k]);
		assert_ptr_equal(trev__tmap_insert(m, &k), e);
		assert_int_equal(trev__tmap_read_sum(e, 0), 1);
		assert_int_equal(trev__tmap_read_sum(e, 1), k * 10);
		assert_memory_equal(trev__tmap_elt_key(m, e), &k, 8);
	}
	assert_int_equal(trev__tmap_drops(m), 0);
	trev__tmap_destroy(m);
}

static int count_one(struct trev_tmap_elt *elt, void *arg)
{
	(void)elt;
	++*(int *)arg;
	return 0;
}

static void test_map_full_drops(void **state)
{
	struct trev_tmap *m = trev__tmap_create(7, 16, 1, NULL);
	uint64_t key[2] = { 0, 0 };
	int n = 0;

	(void)state;
	assert_non_null(m);
	for (key[1] = 0; key[1] < 128; key[1]++)
		assert_non_null(trev__tmap_insert(m, key));
	/* Full: every new key is dropped and counted; known keys still count. */
	for (key[1] = 1000; key[1] < 1010; key[1]++) {
		assert_null(trev__tmap_insert(m, key));
		assert_null(trev__tmap_lookup(m, key));
	}
	assert_int_equal(trev__tmap_drops(m), 10);
	key[1] = 5;
	assert_non_null(trev__tmap_insert(m, key));
	trev__tmap_for_each(m, count_one, &n);
	assert_int_equal(n, 128);
	trev__tmap_destroy(m);

	/* Sizes the kernel refuses. */
	assert_null(trev__tmap_create(6, 8, 1, NULL));
	assert_null(trev__tmap_create(18, 8, 1, NULL));
	assert_null(trev__tmap_create(7, 12, 1, NULL));
	assert_null(trev__tmap_create(7, 8, TREV_TMAP_SUMS_MAX + 1, NULL));
}

/*
 * trev__tmap_insert_word() finds what trev__tmap_insert() finds: keys in
 * the slot their hash points at, keys moved on by another key in that slot,
 * new keys, and keys refused once the map is full (counted once each).
 */
static void test_map_insert_word(void **state)
{
	struct trev_tmap *m = trev__tmap_create(7, 8, 1, NULL);
	struct trev_tmap_elt *elts[128];
	uint64_t k;
	int n = 0;

	(void)state;
	assert_non_null(m);
	for (k = 0; k < 128; k++) {
		/* Spread keys, as pids and addresses are: some share a slot. */
		uint64_t key = k * 0x10001u;

		elts[k] = (k & 1) ? trev__tmap_insert_word(m, key) : trev__tmap_insert(m, &key);
		assert_non_null(elts[k]);
		trev__tmap_add(elts[k], 0, 1);
	}
	for (k = 0; k < 128; k++) {
		uint64_t key = k * 0x10001u;

		assert_ptr_equal(trev__tmap_insert_word(m, key), elts[k]);
		assert_ptr_equal(trev__tmap_insert(m, &key), elts[k]);
		assert_ptr_equal(trev__tmap_lookup(m, &key), elts[k]);
		assert_memory_equal(trev__tmap_elt_key(m, elts[k]), &key, 8);
	}
	for (k = 1000; k < 1010; k++)
		assert_null(trev__tmap_insert_word(m, k));
	assert_int_equal(trev__tmap_drops(m), 10);
	trev__tmap_for_each(m, count_one, &n);
	assert_int_equal(n, 128);
	trev__tmap_destroy(m);
}

#define HAMMER_EVENTS	200000
struct hammer {
	struct trev_tmap *m;
	unsigned int seed;
	unsigned int nkeys;
};

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	unsigned int x = h->seed;

	for (int i = 0; i < HAMMER_EVENTS; i++) {
		uint64_t key;
		struct trev_tmap_elt *e;

		x = x * 1103515245u + 12345u;
		key = (x >> 8) % h->nkeys;
		/* Both ways in, as a hist of one numeric key and any other hist do. */
		e = (i & 1) ? trev__tmap_insert_word(h->m, key) : trev__tmap_insert(h->m, &key);
		if (e) {
			trev__tmap_add(e, 0, 1);
			trev__tmap_add(e, 1, key);
		}
	}
	return NULL;
}

struct hammer_sum {
	struct trev_tmap *m;
	uint64_t hits, keysum, n;
};

static int hammer_sum_one(struct trev_tmap_elt *elt, void *arg)
{
	struct hammer_sum *s = arg;
	uint64_t key;

	memcpy(&key, trev__tmap_elt_key(s->m, elt), 8);
	s->hits += trev__tmap_read_sum(elt, 0);
	/* Each hit of a key added the key itself. */
	assert_int_equal(trev__tmap_read_sum(elt, 1), key * trev__tmap_read_sum(elt, 0));
	s->n++;
	return 0;
}

/* Two threads insert the same keys at once: hits + drops == events, exactly. */
static void hammer(unsigned int bits, unsigned int nkeys, bool expect_drops)
{
	struct hammer h[2];
	pthread_t t[2];
	struct hammer_sum s = { NULL, 0, 0, 0 };

	s.m = trev__tmap_create(bits, 8, 2, NULL);
	assert_non_null(s.m);
	for (int i = 0; i < 2; i++) {
		h[i] = (struct hammer){ s.m, 7u + 1000u * (unsigned int)i, nkeys };
		assert_int_equal(pthread_create(&t[i], NULL, hammer_thread, &h[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	trev__tmap_for_each(s.m, hammer_sum_one, &s);
	assert_int_equal(s.hits + trev__tmap_drops(s.m), 2 * HAMMER_EVENTS);
	if (expect_drops) {
		assert_int_equal(s.n, 1u << bits);
		assert_true(trev__tmap_drops(s.m) > 0);
	} else {
		assert_int_equal(s.n, nkeys);
		assert_int_equal(trev__tmap_drops(s.m), 0);
	}
	trev__tmap_destroy(s.m);
}

static void test_map_two_threads(void **state)
{
	(void)state;
	hammer(11, 1500, false);
	hammer(7, 1000, true);
}

/* ------------------------------------------------------------------ */
/* The parser                                                           */

struct parse_case {
	const char *event;
	const char *param;	/* after "hist:" */
	const char *text;	/* the canonical trigger line, or NULL for an error */
	const char *msg;	/* the error */
	int pos;		/* its column in "hist:<param>" */
};

static const struct parse_case parse_cases[] = {
	/* Accepted, with the canonical text the trigger file lists. */
	{ "tt_ints", "keys=a", "hist:keys=a:vals=hitcount:sort=hitcount:size=2048 [active]\n",
	  NULL, 0 },
	{ "tt_ints", "key=a,b:vals=c:sort=c.descending:size=1000",
	  "hist:keys=a,b:vals=hitcount,c:sort=c.descending:size=1024 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=a:values=hitcount,b,c",
	  "hist:keys=a:vals=hitcount,b,c:sort=hitcount:size=2048 [active]\n", NULL, 0 },
	{ "tt_ints", "val=b:keys=a:sort=a,hitcount.descending",
	  "hist:keys=a:vals=hitcount,b:sort=a,hitcount.descending:size=2048 [active]\n",
	  NULL, 0 },
	{ "tt_ints", "keys=a.hex:vals=c.hex:sort=a.ascending",
	  "hist:keys=a.hex:vals=hitcount,c.hex:sort=a.hex:size=2048 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=common_pid.execname",
	  "hist:keys=common_pid.execname:vals=hitcount:sort=hitcount:size=2048 [active]\n",
	  NULL, 0 },
	{ "tt_ints", "keys=c.log2", "hist:keys=c.log2:vals=hitcount:sort=hitcount:size=2048 [active]\n",
	  NULL, 0 },
	{ "tt_ints", "keys=c.buckets=100",
	  "hist:keys=c.buckets=100:vals=hitcount:sort=hitcount:size=2048 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=c.bucket=0x10",
	  "hist:keys=c.buckets=16:vals=hitcount:sort=hitcount:size=2048 [active]\n", NULL, 0 },
	{ "tt_types", "keys=p.sym", "hist:keys=p.sym:vals=hitcount:sort=hitcount:size=2048 [active]\n",
	  NULL, 0 },
	{ "tt_types", "keys=p.sym-offset,uc",
	  "hist:keys=p.sym-offset,uc:vals=hitcount:sort=hitcount:size=2048 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=stacktrace",
	  "hist:keys=stacktrace:vals=hitcount:sort=hitcount:size=2048 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=a:vals=hitcount.graph,b.percent,c",
	  "hist:keys=a:vals=hitcount.graph,b.percent,c:sort=hitcount:size=2048 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=a.syscall",
	  "hist:keys=a.syscall:vals=hitcount:sort=hitcount:size=2048 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=common_timestamp.usecs:vals=common_timestamp",
	  "hist:keys=common_timestamp.usecs:vals=hitcount,common_timestamp:sort=hitcount:size=2048 [active]\n",
	  NULL, 0 },
	{ "tt_strings", "keys=tag,name:size=128",
	  "hist:keys=tag,name:vals=hitcount:sort=hitcount:size=128 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=a:pause", "hist:keys=a:vals=hitcount:sort=hitcount:size=2048 [paused]\n",
	  NULL, 0 },
	{ "tt_ints", "name=foo:keys=a:cont",
	  "hist:name=foo:keys=a:vals=hitcount:sort=hitcount:size=2048 [active]\n", NULL, 0 },
	{ "tt_ints", "  keys=a:clear  ", "hist:keys=a:vals=hitcount:sort=hitcount:size=2048 [active]\n",
	  NULL, 0 },
	{ "tt_ints", "keys=a:size=131072",
	  "hist:keys=a:vals=hitcount:sort=hitcount:size=131072 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=a:vals=b if a > 3 && c != 1",
	  "hist:keys=a:vals=hitcount,b:sort=hitcount:size=2048 if a > 3 && c != 1 [active]\n",
	  NULL, 0 },
	{ "tt_ints", "keys=a,b,common_pid",
	  "hist:keys=a,b,common_pid:vals=hitcount:sort=hitcount:size=2048 [active]\n", NULL, 0 },
	/* Refused: the message and the column error_log marks. */
	{ "tt_ints", "", NULL, "Empty hist trigger", 5 },
	{ "tt_ints", "keys=a if nope == 1", NULL, "Field not found", 20 },
	{ "tt_ints", "vals=a", NULL, "Missing keys", 5 },
	{ "tt_ints", "keys=nope", NULL, "Couldn't find field", 10 },
	{ "tt_ints", "keys=a:vals=b,nope", NULL, "Couldn't find field", 19 },
	{ "tt_ints", "keys=a.foo", NULL, "Invalid field modifier", 12 },
	{ "tt_ints", "keys=a.execname", NULL, "Invalid field modifier", 12 },
	{ "tt_ints", "keys=a.buckets=0", NULL, "Invalid field modifier", 12 },
	{ "tt_ints", "keys=a.buckets", NULL, "Invalid field modifier", 12 },
	{ "tt_ints", "keys=a.percent", NULL, "Invalid field modifier", 12 },
	{ "tt_ints", "keys=a:vals=b.graph:x=c.percent", NULL, "Invalid field modifier", 29 },
	{ "tt_ints", "keys=", NULL, "Empty assignment", 5 },
	{ "tt_ints", "keys=a:sort=", NULL, "Empty assignment", 12 },
	{ "tt_ints", "keys=a:sort=b", NULL, "Sort field must be a key or a val", 17 },
	{ "tt_ints", "keys=a:sort=a.up", NULL, "Invalid sort modifier", 19 },
	/*
	 * As the kernel's: a sort key on a key with a modifier prints with the
	 * modifier, and the parser takes none after a sort key but .ascending
	 * and .descending, so that line does not parse again (docs/hist.md).
	 */
	{ "tt_ints", "keys=a.hex:sort=a.descending",
	  "hist:keys=a.hex:vals=hitcount:sort=a.hex.descending:size=2048 [active]\n", NULL, 0 },
	{ "tt_ints", "keys=a.hex:sort=a.hex.descending", NULL, "Invalid sort modifier", 23 },
	{ "tt_ints", "keys=a:sort=a,", NULL, "Empty sort field", 12 },
	{ "tt_ints", "keys=a:sort=.descending", NULL, "Empty sort field", 12 },
	{ "tt_ints", "keys=a:vals=b:sort=a,b,hitcount", NULL, "Too many sort fields (Max = 2)", 19 },
	{ "tt_ints", "keys=a,b,c,common_pid", NULL, "Too many keys (Max = 3)", 16 },
	{ "tt_ints", "keys=a:vals=b,c,a", NULL, "Too many values (Max = 2)", 21 },
	{ "tt_ints", "keys=a,a", NULL, "Duplicate field", 12 },
	{ "tt_ints", "keys=a:vals=b,b", NULL, "Duplicate field", 19 },
	{ "tt_ints", "keys=a:size=5", NULL, "Invalid map size (2^7 .. 2^17)", 17 },
	{ "tt_ints", "keys=a:size=200000", NULL, "Invalid map size (2^7 .. 2^17)", 17 },
	{ "tt_ints", "keys=a:size=1k", NULL, "Invalid map size (2^7 .. 2^17)", 17 },
	{ "tt_ints", "keys=a:frob", NULL, "No action found", 12 },
	{ "tt_ints", "keys=a:onmax($x).save(a)", NULL, "Couldn't find onmax or onchange variable", 19 },
	{ "tt_ints", "keys=a:", NULL, "No action found", 12 },
	{ "tt_ints", "keys=a+b", NULL, "Expressions in keys and values are not supported", 10 },
	{ "tt_ints", "keys=a:vals=b+c", NULL, "Expressions in keys and values are not supported", 17 },
	{ "tt_ints", "keys=a:clock=mono", NULL, "Couldn't set trace_clock", 18 },
	{ "tt_ints", "keys=stacktrace:vals=stacktrace", NULL, "Couldn't find field", 26 },
	{ "tt_strings", "keys=tag:vals=name", NULL, "Couldn't create histogram for field", 19 },
	{ "tt_strings", "keys=tag.hex", NULL, "Invalid field modifier", 14 },
	{ "tt_strings", "keys=name,tag,stacktrace", NULL, "Key too large", 19 },
	{ "tt_arrays", "keys=fixed", NULL, "Couldn't create histogram for field", 10 },
};

static void test_parse_table(void **state)
{
	struct trev_trace_array *tr = trev__top_instance();

	(void)state;
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct trev_event_call *call = find_call(c->event);
		struct trev_hist_trigger *ht = NULL;
		struct trev_hist_error err;
		struct trev_buf t = TREV_BUF_INIT;
		int ret;

		trev__events_read_lock();
		ret = trev__hist_parse(call, tr, c->param, &ht, &err);
		trev__events_read_unlock();
		if (c->text) {
			if (ret)
				fail_msg("'%s': refused: %s at %d", c->param, err.msg, err.pos);
			assert_int_equal(trev__hist_print(ht, &t), 0);
			assert_non_null(t.data);
			if (strcmp(t.data, c->text))
				fail_msg("'%s': got '%s'", c->param, t.data);
			free(t.data);
			trev__hist_free(ht);
		} else {
			if (ret != -EINVAL)
				fail_msg("'%s': accepted (%d)", c->param, ret);
			assert_null(ht);
			if (strcmp(err.msg, c->msg) || err.pos != c->pos)
				fail_msg("'%s': got '%s' at %d, want '%s' at %d", c->param, err.msg,
					 err.pos, c->msg, c->pos);
		}
	}
}

static void test_parse_attrs(void **state)
{
	struct trev_event_call *call = find_call("tt_ints");
	struct trev_hist_trigger *a, *b, *c;
	struct trev_hist_error err;

	(void)state;
	trev__events_read_lock();
	assert_int_equal(trev__hist_parse(call, trev__top_instance(), "keys=a:vals=b:size=256", &a,
					  &err), 0);
	assert_int_equal(trev__hist_parse(call, trev__top_instance(), "keys=a:vals=b:pause:clear",
					  &b, &err), 0);
	assert_int_equal(trev__hist_parse(call, trev__top_instance(), "keys=a:vals=c", &c, &err),
			 0);
	trev__events_read_unlock();
	assert_int_equal(trev__hist_attrs(a), 0);
	assert_int_equal(trev__hist_attrs(b), TREV_HIST_ATTR_PAUSE | TREV_HIST_ATTR_CLEAR);
	/* size= and the commands do not take part in matching; the fields do. */
	assert_true(trev__hist_match(a, b));
	assert_false(trev__hist_match(a, c));
	trev__hist_free(a);
	trev__hist_free(b);
	trev__hist_free(c);
}


/* ------------------------------------------------------------------ */
/* Golden hist files: real events through the trigger file              */

#define GOLDEN_MAX	(1 << 16)
static char got[GOLDEN_MAX];

/* A function whose address a .sym key prints. */
void hist_sym_target(void);
void hist_sym_target(void)
{
}

/* tests/golden/hist/, found from this file's path (or TREV_SOURCE_DIR). */
static void golden_path(char *path, size_t size, const char *name)
{
	const char *src = getenv("TREV_SOURCE_DIR");

	if (src) {
		snprintf(path, size, "%s/tests/golden/hist/%s.txt", src, name);
	} else {
		const char *slash = strrchr(__FILE__, '/');
		int dir = slash ? (int)(slash - __FILE__) : 0;

		snprintf(path, size, "%.*s/../golden/hist/%s.txt", dir, __FILE__, name);
	}
}

/* Replace every @from in @s (in place, @s has room) by @to. */
static void subst(char *s, size_t size, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to);

	for (char *p = strstr(s, from); p; p = strstr(p + tl, from)) {
		assert_true(strlen(s) - fl + tl < size);
		memmove(p + tl, p + fl, strlen(p + fl) + 1);
		memcpy(p, to, tl);
	}
}

static char tid10[16], symaddr[32];

/* The placeholders of the golden files: what varies from run to run. */
static void golden_vars(void)
{
	snprintf(tid10, sizeof(tid10), "%10d", (int)gettid());
	snprintf(symaddr, sizeof(symaddr), "%lx", (unsigned long)(uintptr_t)hist_sym_target);
}

/* Compare @text with golden file @name exactly (TREV_GOLDEN_UPDATE=1 rewrites it). */
static void golden_check(const char *name, const char *text)
{
	static char want[GOLDEN_MAX];
	char path[4096];
	FILE *f;
	size_t n;

	golden_vars();
	golden_path(path, sizeof(path), name);
	if (getenv("TREV_GOLDEN_UPDATE")) {
		static char w[GOLDEN_MAX];

		snprintf(w, sizeof(w), "%s", text);
		subst(w, sizeof(w), tid10, "@PID10@");
		subst(w, sizeof(w), symaddr, "@SYMADDR@");
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(w, f);
		fclose(f);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("no golden file %s", path);
	n = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[n] = '\0';
	subst(want, sizeof(want), "@PID10@", tid10);
	subst(want, sizeof(want), "@SYMADDR@", symaddr);
	if (strcmp(want, text))
		fail_msg("%s differs:\n--- want\n%s--- got\n%s---", name, want, text);
}

static const char *read_file(const char *path)
{
	ssize_t n = trev_read(path, got, sizeof(got));

	assert_true(n >= 0);
	assert_true((size_t)n < sizeof(got));
	return got;
}

#define EV(e)	"events/trev_test/" e

static void add_trigger(const char *event, const char *text)
{
	char path[256];
	int ret;

	snprintf(path, sizeof(path), EV("%s/trigger"), event);
	ret = trev_append(path, text);
	if (ret)
		fail_msg("'%s' on %s: %d", text, event, ret);
}

static void clear_triggers(const char *event)
{
	char path[256];

	snprintf(path, sizeof(path), EV("%s/trigger"), event);
	assert_int_equal(trev_write(path, ""), 0);
}

static void check_hist(const char *event, const char *golden)
{
	char path[256];

	snprintf(path, sizeof(path), EV("%s/hist"), event);
	golden_check(golden, read_file(path));
}

static int golden_setup(void **state)
{
	(void)state;
	prctl(PR_SET_NAME, "hist-test");
	return 0;
}

static void test_golden_single_key(void **state)
{
	static const int a[] = { 3, 1, 2, 1, 1, 3, 7 };

	(void)state;
	add_trigger("tt_ints", "hist:keys=a");
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		trace_tt_ints(a[i], 10, 100);
	check_hist("tt_ints", "single_key");
	golden_check("single_key_trigger", read_file(EV("tt_ints/trigger")));
	clear_triggers("tt_ints");
}

static void test_golden_compound_values(void **state)
{
	(void)state;
	add_trigger("tt_ints", "hist:keys=a,b:vals=c,hitcount:sort=c.descending");
	for (int i = 0; i < 12; i++)
		trace_tt_ints(i % 3, (unsigned int)(i % 2), 10LL * i);
	check_hist("tt_ints", "compound_values");
	clear_triggers("tt_ints");
}

static void test_golden_strings(void **state)
{
	(void)state;
	add_trigger("tt_strings", "hist:keys=name,tag:sort=name,tag");
	trace_tt_strings("beta", "m", 1, "t1");
	trace_tt_strings("alpha", "m", 1, "t2");
	trace_tt_strings("alpha", "m", 1, "t2");
	trace_tt_strings("alpha", "m", 1, "longtag9");
	trace_tt_strings("a much longer name than the others", "m", 1, "t1");
	check_hist("tt_strings", "strings");
	clear_triggers("tt_strings");
}

static void test_golden_hex_sort_desc(void **state)
{
	(void)state;
	add_trigger("tt_ints", "hist:keys=b.hex:vals=c.hex:sort=hitcount.descending");
	for (int i = 0; i < 10; i++)
		trace_tt_ints(0, 0xf0u + (unsigned int)(i % 4), 0x100 + i);
	check_hist("tt_ints", "hex_sort_desc");
	clear_triggers("tt_ints");
}

static void test_golden_sym(void **state)
{
	struct tt_pair pair = { 1, 2 };

	(void)state;
	add_trigger("tt_types", "hist:keys=p.sym");
	trace_tt_types('x', 1, 2, 3, (void *)(uintptr_t)hist_sym_target, true, pair);
	trace_tt_types('x', 1, 2, 3, (void *)(uintptr_t)hist_sym_target, true, pair);
	check_hist("tt_types", "sym");
	clear_triggers("tt_types");
}

static void test_golden_execname(void **state)
{
	(void)state;
	add_trigger("tt_ints", "hist:keys=common_pid.execname:vals=a");
	trace_tt_ints(5, 0, 0);
	trace_tt_ints(6, 0, 0);
	check_hist("tt_ints", "execname");
	clear_triggers("tt_ints");
}

/* .syscall: a system call's name by number, unknown_syscall past the table (histogram.rst). */
static void test_golden_syscall(void **state)
{
	static const int ids[] = { 0, 1, 1, 63, 4, 100000 };

	(void)state;
	add_trigger("tt_ints", "hist:keys=a.syscall:sort=a");
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		trace_tt_ints(ids[i], 0, 0);
	check_hist("tt_ints", "syscall");
	clear_triggers("tt_ints");
}

/* .percent and .graph: each value's share of its column and a bar against its largest. */
static void test_golden_percent_graph(void **state)
{
	static const int a[] = { 1, 2, 2, 3, 3, 3, 3, 3, 3, 3 };

	(void)state;
	add_trigger("tt_ints", "hist:keys=a:vals=hitcount.percent,c.graph:sort=a");
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		trace_tt_ints(a[i], 0, 10LL * a[i]);
	check_hist("tt_ints", "percent_graph");
	clear_triggers("tt_ints");
}

static void test_golden_log2_buckets(void **state)
{
	static const long long c[] = { 0, 1, 2, 3, 4, 5, 100, 1000, 1024, 1025, 15, 27 };

	(void)state;
	add_trigger("tt_ints", "hist:keys=c.log2:sort=c");
	add_trigger("tt_ints", "hist:keys=c.buckets=10:sort=c");
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		trace_tt_ints(0, 0, c[i]);
	/* Two histograms on one event: one file, oldest first. */
	check_hist("tt_ints", "log2_buckets");
	clear_triggers("tt_ints");
}

static void test_golden_named(void **state)
{
	(void)state;
	add_trigger("tt_open", "hist:name=opens:keys=id");
	add_trigger("tt_close", "hist:name=opens:keys=id");
	trace_tt_open(1, "a");
	trace_tt_close(1, "a");
	trace_tt_open(2, "b");
	check_hist("tt_open", "named");
	check_hist("tt_close", "named");
	clear_triggers("tt_open");
	clear_triggers("tt_close");
}

static void test_golden_pause_cont_clear(void **state)
{
	(void)state;
	add_trigger("tt_ints", "hist:keys=a:vals=b");
	trace_tt_ints(1, 1, 0);
	add_trigger("tt_ints", "hist:keys=a:vals=b:pause");
	trace_tt_ints(1, 100, 0);
	check_hist("tt_ints", "paused");
	golden_check("paused_trigger", read_file(EV("tt_ints/trigger")));
	add_trigger("tt_ints", "hist:keys=a:vals=b:cont");
	trace_tt_ints(1, 2, 0);
	trace_tt_ints(2, 2, 0);
	check_hist("tt_ints", "continued");
	add_trigger("tt_ints", "hist:keys=a:vals=b:clear");
	trace_tt_ints(3, 3, 0);
	check_hist("tt_ints", "cleared");
	clear_triggers("tt_ints");
}

/*
 * One numeric key of each size and sign, with values of each: the path of
 * a single numeric key (docs/hist.md, "Cost") reads them as the compound
 * key's path does, signed fields sign-extended, 64-bit sums wrapping.
 */
static void test_hist_num_keys(void **state)
{
	struct tt_pair pair = { 1, 2 };

	(void)state;
	add_trigger("tt_types", "hist:keys=c:vals=s,uc:sort=c");
	add_trigger("tt_types", "hist:keys=s.hex:vals=ul");
	add_trigger("tt_types", "hist:keys=ul.buckets=100:vals=c:sort=ul");
	trace_tt_types(-1, -2, 255, 250, NULL, true, pair);
	trace_tt_types(-1, -2, 255, 1000, NULL, true, pair);
	trace_tt_types(3, 7, 1, 299, NULL, true, pair);
	read_file(EV("tt_types/hist"));
	/* keys=c: -1 is the u64 of its sign extension, sorted as signed (before 3). */
	assert_non_null(strstr(got, "{ c: 18446744073709551615 } hitcount:          2"
				    "  s: 18446744073709551612  uc:        510\n"
				    "{ c:          3 } hitcount:          1  s:          7  uc:          1\n"));
	assert_non_null(strstr(got, "{ s: fffffffffffffffe } hitcount:          2  ul:       1250\n"));
	assert_non_null(strstr(got, "{ s: 7 } hitcount:          1  ul:        299\n"));
	assert_non_null(strstr(got, "{ ul: ~ 200-299 } hitcount:          2  c:          2\n"
				    "{ ul: ~ 1000-1099 } hitcount:          1  c: 18446744073709551615\n"));
	clear_triggers("tt_types");
}

/* A trigger made paused by :pause counts once :cont continues it. */
static void test_hist_pause_new_cont(void **state)
{
	(void)state;
	add_trigger("tt_ints", "hist:keys=a:pause");
	trace_tt_ints(1, 0, 0);
	assert_non_null(strstr(read_file(EV("tt_ints/trigger")), "[paused]"));
	add_trigger("tt_ints", "hist:keys=a:cont");
	trace_tt_ints(1, 0, 0);
	assert_non_null(strstr(read_file(EV("tt_ints/trigger")), "[active]"));
	read_file(EV("tt_ints/hist"));
	if (!strstr(got, "{ a:          1 } hitcount:          1\n"))
		fail_msg("hist:\n%s", got);
	clear_triggers("tt_ints");
}

static void test_golden_filter(void **state)
{
	(void)state;
	add_trigger("tt_ints", "hist:keys=a:vals=b if b > 10");
	for (int i = 0; i < 20; i++)
		trace_tt_ints(i % 2, (unsigned int)i, 0);
	check_hist("tt_ints", "filter");
	/* The same keys without the filter are another trigger. */
	add_trigger("tt_ints", "hist:keys=a:vals=b");
	add_trigger("tt_ints", "!hist:keys=a:vals=b if b > 10");
	golden_check("filter_removed_trigger", read_file(EV("tt_ints/trigger")));
	clear_triggers("tt_ints");
}

static void test_hist_stacktrace(void **state)
{
	(void)state;
	add_trigger("tt_ints", "hist:keys=stacktrace");
	trace_tt_ints(1, 1, 1);
	read_file(EV("tt_ints/hist"));
	/* The caller first; at -O0, trace_tt_ints() itself is a frame before it. */
	if (!strstr(got, "{ stacktrace:\n         test_hist_stacktrace+0x") &&
	    !strstr(got, "{ stacktrace:\n         trace_tt_ints+0x"))
		fail_msg("no caller frame:\n%s", got);
	assert_non_null(strstr(got, "         test_hist_stacktrace+0x"));
	assert_non_null(strstr(got, "} hitcount:          1\n"));
	clear_triggers("tt_ints");
}

/* CLOCK_MONOTONIC now, in µs rounded as ns2usecs() rounds. */
static unsigned long long mono_usecs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec +
		500) / 1000;
}

static void test_hist_timestamp(void **state)
{
	unsigned long long v1, v2, before1, after1, before2, after2;
	char *p;

	(void)state;
	/*
	 * On the mono clock each common_timestamp.usecs lies between this
	 * thread's CLOCK_MONOTONIC readings (in µs) around its event: µs, not
	 * ns or ms, without sleeping between the two events.
	 */
	assert_int_equal(trev_write("trace_clock", "mono"), 0);
	add_trigger("tt_ints", "hist:keys=a:vals=common_timestamp.usecs");
	before1 = mono_usecs();
	trace_tt_ints(1, 1, 1);
	after1 = mono_usecs();
	before2 = mono_usecs();
	trace_tt_ints(2, 1, 1);
	after2 = mono_usecs();
	read_file(EV("tt_ints/hist"));
	p = strstr(got, "{ a:          1 } hitcount:          1  common_timestamp: ");
	assert_non_null(p);
	v1 = strtoull(p + strlen("{ a:          1 } hitcount:          1  common_timestamp: "),
		      NULL, 10);
	p = strstr(got, "{ a:          2 } hitcount:          1  common_timestamp: ");
	assert_non_null(p);
	v2 = strtoull(p + strlen("{ a:          2 } hitcount:          1  common_timestamp: "),
		      NULL, 10);
	print_message("  %llu <= %llu <= %llu, %llu <= %llu <= %llu\n", before1, v1, after1,
		      before2, v2, after2);
	assert_true(before1 <= v1 && v1 <= after1);
	assert_true(before2 <= v2 && v2 <= after2);
	clear_triggers("tt_ints");
	assert_int_equal(trev_write("trace_clock", "local"), 0);

	/* One field with .usecs puts every common_timestamp of the hist in µs (the kernel's
	 * ts_in_usecs): the key and the value of one event are the same number. */
	add_trigger("tt_ints", "hist:keys=common_timestamp.usecs:vals=common_timestamp");
	trace_tt_ints(3, 1, 1);
	read_file(EV("tt_ints/hist"));
	p = strstr(got, "{ common_timestamp: ");
	assert_non_null(p);
	v1 = strtoull(p + strlen("{ common_timestamp: "), &p, 10);
	p = strstr(p, "common_timestamp: ");
	assert_non_null(p);
	v2 = strtoull(p + strlen("common_timestamp: "), NULL, 10);
	print_message("  key %llu, value %llu\n", v1, v2);
	assert_true(v1 > 0);
	assert_int_equal(v1, v2);
	clear_triggers("tt_ints");
}


/* Two threads fire while the hist file is read and, in a second round, cleared. */
#define FIRE_EVENTS	50000
static atomic_int fire_go;

static void *fire_thread(void *arg)
{
	int base = (int)(intptr_t)arg;

	while (!atomic_load(&fire_go))
		;
	for (int i = 0; i < FIRE_EVENTS; i++)
		trace_tt_ints(base + i % 50, 1, 2);
	return NULL;
}

static unsigned long long hits_of(const char *text)
{
	const char *p = strstr(text, "    Hits: ");

	assert_non_null(p);
	return strtoull(p + 10, NULL, 10);
}

static void fire_round(bool clear)
{
	pthread_t t[2];

	atomic_store(&fire_go, 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, fire_thread, (void *)(intptr_t)(i * 25)),
				 0);
	atomic_store(&fire_go, 1);
	for (int r = 0; r < 20; r++) {
		read_file(EV("tt_ints/hist"));
		if (clear)
			add_trigger("tt_ints", "hist:keys=a:vals=b:clear");
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

static void test_hist_concurrent(void **state)
{
	(void)state;
	add_trigger("tt_ints", "hist:keys=a:vals=b");
	fire_round(false);
	/* Nothing lost, nothing counted twice: 75 keys, every event a hit. */
	read_file(EV("tt_ints/hist"));
	assert_int_equal(hits_of(got), 2 * FIRE_EVENTS);
	assert_non_null(strstr(got, "    Entries: 75\n    Dropped: 0\n"));
	fire_round(true);
	read_file(EV("tt_ints/hist"));
	assert_true(hits_of(got) <= 2 * FIRE_EVENTS);
	clear_triggers("tt_ints");
}


/* disable_hist/enable_hist on other events pause and continue tt_ints' histograms. */
static void test_hist_enable_disable(void **state)
{
	(void)state;
	add_trigger("tt_ints", "hist:keys=a");
	add_trigger("tt_close", "disable_hist:trev_test:tt_ints");
	add_trigger("tt_open", "enable_hist:trev_test:tt_ints:1");
	assert_string_equal(read_file(EV("tt_open/trigger")),
			    "enable_hist:trev_test:tt_ints:count=1\n");
	assert_string_equal(read_file(EV("tt_close/trigger")),
			    "disable_hist:trev_test:tt_ints:unlimited\n");
	trace_tt_ints(1, 0, 0);
	trace_tt_close(0, "x");
	trace_tt_ints(1, 0, 0);		/* paused: not counted */
	assert_non_null(strstr(read_file(EV("tt_ints/trigger")), "[paused]"));
	trace_tt_open(0, "x");
	trace_tt_ints(1, 0, 0);
	trace_tt_close(0, "x");
	trace_tt_open(0, "x");		/* its count is used up: stays paused */
	trace_tt_ints(1, 0, 0);
	read_file(EV("tt_ints/hist"));
	assert_non_null(strstr(got, "{ a:          1 } hitcount:          2\n"));
	assert_non_null(strstr(got, "[paused]"));
	assert_string_equal(read_file(EV("tt_open/trigger")),
			    "enable_hist:trev_test:tt_ints:count=0\n");
	clear_triggers("tt_open");
	clear_triggers("tt_close");
	clear_triggers("tt_ints");
}

/* Errors through the trigger file: the kernel's text, location and column. */
static void expect_error(const char *event, const char *text, int err, const char *msg,
			 int pos)
{
	char path[256], want[512];
	const char *cmd, *caret;
	int ret;

	assert_int_equal(trev_write("error_log", ""), 0);
	snprintf(path, sizeof(path), EV("%s/trigger"), event);
	ret = trev_append(path, text);
	if (ret != err)
		fail_msg("'%s': %d, want %d", text, ret, err);
	read_file("error_log");
	snprintf(want, sizeof(want), "] hist:trev_test:%s: error: %s\n", event, msg);
	if (!strstr(got, want))
		fail_msg("'%s': error_log:\n%s", text, got);
	cmd = strstr(got, "  Command: ");
	assert_non_null(cmd);
	caret = strchr(strchr(cmd, '\n') + 1, '^');
	assert_non_null(caret);
	if ((int)(caret - (strchr(cmd, '\n') + 1)) - 11 != pos)
		fail_msg("'%s': caret at %d, want %d:\n%s", text,
			 (int)(caret - (strchr(cmd, '\n') + 1)) - 11, pos, got);
}

/* hist_debug: each hist's fields with the kernel's flag names, types and sizes. */
static void test_hist_debug(void **state)
{
	const char *t;

	(void)state;
	add_trigger("tt_ints", "hist:keys=a.hex,common_pid.execname:vals=c.percent");
	t = read_file(EV("tt_ints/hist_debug"));
	assert_non_null(strstr(t, "# trigger info: hist:keys=a.hex,common_pid.execname:"
				  "vals=hitcount,c.percent:sort=hitcount:size=2048 [active]\n"));
	assert_non_null(strstr(t, "# n_vals: 2\n# n_keys: 2\n# n_fields: 4\n"));
	assert_non_null(strstr(t, "\n# hist_data->fields[0]:\n    flags:\n"
				  "      VAL: HIST_FIELD_FL_HITCOUNT\n    type: u64\n"));
	assert_non_null(strstr(t, "\n# hist_data->fields[1]:\n    flags:\n"
				  "      VAL: normal u64 value\n      HIST_FIELD_FL_PERCENT\n"
				  "    ftrace_event_field name: c\n    type: long long\n    size: 8\n"
				  "    is_signed: 1\n"));
	assert_non_null(strstr(t, "\n# key fields:\n\n# hist_data->fields[2]:\n    flags:\n"
				  "      HIST_FIELD_FL_KEY\n      HIST_FIELD_FL_HEX\n"
				  "    ftrace_event_field name: a\n    type: int\n    size: 8\n"));
	assert_non_null(strstr(t, "      HIST_FIELD_FL_KEY\n      HIST_FIELD_FL_EXECNAME\n"
				  "    ftrace_event_field name: common_pid\n"));
	clear_triggers("tt_ints");
	assert_string_equal(read_file(EV("tt_ints/hist_debug")), "");
}

static void test_hist_errors(void **state)
{
	(void)state;
	expect_error("tt_ints", "hist:keys=nope", -EINVAL, "Couldn't find field", 10);
	expect_error("tt_ints", "hist:keys=a:sort=b.up", -EINVAL,
		     "Sort field must be a key or a val", 17);
	expect_error("tt_ints", "hist:keys=a.frob", -EINVAL, "Invalid field modifier", 12);
	expect_error("tt_ints", "hist:keys=a:cont", -ENOENT,
		     "Can't clear or continue a nonexistent hist trigger", 0);
	add_trigger("tt_ints", "hist:keys=a");
	expect_error("tt_ints", "hist:keys=a:size=4096", -EEXIST, "Hist trigger already exists", 0);
	add_trigger("tt_ints", "hist:name=n1:keys=a");
	expect_error("tt_types", "hist:name=n1:keys=uc", -EINVAL,
		     "Named hist trigger doesn't match existing named trigger (includes variables)",
		     5);
	/* The state before the refused writes is in force. */
	assert_string_equal(read_file(EV("tt_ints/trigger")),
			    "hist:name=n1:keys=a:vals=hitcount:sort=hitcount:size=2048 [active]\n"
			    "hist:keys=a:vals=hitcount:sort=hitcount:size=2048 [active]\n");
	/* Removing: the named one goes, then the other. */
	add_trigger("tt_ints", "!hist:name=n1:keys=a");
	add_trigger("tt_ints", "!hist:keys=a");
	assert_non_null(strstr(read_file(EV("tt_ints/trigger")), "# Available triggers:"));
	assert_string_equal(read_file(EV("tt_ints/hist")), "");
	clear_triggers("tt_types");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_insert_lookup),
		cmocka_unit_test(test_map_full_drops),
		cmocka_unit_test(test_map_insert_word),
		cmocka_unit_test(test_map_two_threads),
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_attrs),
		cmocka_unit_test_setup(test_golden_single_key, golden_setup),
		cmocka_unit_test_setup(test_golden_compound_values, golden_setup),
		cmocka_unit_test_setup(test_golden_strings, golden_setup),
		cmocka_unit_test_setup(test_golden_hex_sort_desc, golden_setup),
		cmocka_unit_test_setup(test_golden_sym, golden_setup),
		cmocka_unit_test_setup(test_golden_execname, golden_setup),
		cmocka_unit_test_setup(test_golden_syscall, golden_setup),
		cmocka_unit_test_setup(test_golden_percent_graph, golden_setup),
		cmocka_unit_test_setup(test_golden_log2_buckets, golden_setup),
		cmocka_unit_test_setup(test_golden_named, golden_setup),
		cmocka_unit_test_setup(test_golden_pause_cont_clear, golden_setup),
		cmocka_unit_test_setup(test_golden_filter, golden_setup),
		cmocka_unit_test(test_hist_pause_new_cont),
		cmocka_unit_test(test_hist_num_keys),
		cmocka_unit_test(test_hist_stacktrace),
		cmocka_unit_test(test_hist_timestamp),
		cmocka_unit_test(test_hist_debug),
		cmocka_unit_test(test_hist_errors),
		cmocka_unit_test(test_hist_concurrent),
		cmocka_unit_test(test_hist_enable_disable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
