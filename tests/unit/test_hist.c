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
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
	assert_null(trev__tmap_create(7, 8, 4, NULL));
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
		e = trev__tmap_insert(h->m, &key);
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
	{ "tt_ints", "keys=a.syscall", NULL, "Invalid field modifier", 12 },
	{ "tt_ints", "keys=", NULL, "Empty assignment", 5 },
	{ "tt_ints", "keys=a:sort=", NULL, "Empty assignment", 12 },
	{ "tt_ints", "keys=a:sort=b", NULL, "Sort field must be a key or a val", 17 },
	{ "tt_ints", "keys=a:sort=a.up", NULL, "Invalid sort modifier", 19 },
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
	{ "tt_ints", "keys=a:onmax($x).save(a)", NULL, "No action found", 12 },
	{ "tt_ints", "keys=a:", NULL, "No action found", 12 },
	{ "tt_ints", "keys=a:x=b", NULL, "Variables and expressions are not supported", 12 },
	{ "tt_ints", "keys=a+b", NULL, "Variables and expressions are not supported", 10 },
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
		struct tfs_text t = { NULL, 0, 0 };
		int ret;

		trev__events_read_lock();
		ret = trev__hist_parse(call, tr, c->param, &ht, &err);
		trev__events_read_unlock();
		if (c->text) {
			if (ret)
				fail_msg("'%s': refused: %s at %d", c->param, err.msg, err.pos);
			assert_int_equal(trev__hist_print(ht, &t), 0);
			assert_non_null(t.buf);
			if (strcmp(t.buf, c->text))
				fail_msg("'%s': got '%s'", c->param, t.buf);
			free(t.buf);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_insert_lookup),
		cmocka_unit_test(test_map_full_drops),
		cmocka_unit_test(test_map_two_threads),
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_attrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
