/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading the function_graph records back from the top instance's ring
 * (not through `trace`, whose text layout is the output layer's) and
 * checking that they pair up: each funcgraph_exit matches the open
 * funcgraph_entry on top (same function, same depth), depth is the
 * nesting, calltime <= rettime, and a call's interval holds its callees'.
 * The calls come out as text, "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}", for
 * exact comparison. Shared by test_fgraph.c and test_fgraph_cxx.cpp.
 */
#ifndef FG_CHECK_H
#define FG_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <trev/ring_buffer.h>
#include <trev/trev.h>

#define FG_TYPE_RET	10
#define FG_TYPE_ENT	11

struct fg_rec {
	int type;
	unsigned long func;
	unsigned int depth, overrun;
	unsigned long long calltime, rettime, ts;
	unsigned long retval;		/* exit: rax */
	unsigned int nr_args;		/* entry: 6 with funcgraph-args, else 0 */
	unsigned long args[6];		/* entry: rdi, rsi, rdx, rcx, r8, r9 */
	pid_t tid;
};

struct fg_name {
	unsigned long ip;
	const char *name;
};

static struct fg_name fg_names[64];
/*
 * How far an entry's depth may be from the records' nesting: 0, but 1
 * where signal handlers run traced calls at any instruction. A handler
 * that interrupts trev__fg_exit() between its pop and its record (or
 * trev__fg_entry() between its push and its record) gets a depth one off
 * the nesting the records show (docs/function-tracer.md).
 */
static unsigned int fg_depth_slack;
/* Records the ring says it lost, in the last fg_collect() (of any thread). */
static unsigned long long fg_lost;
static int fg_nr_names;

/* The site of function @fn: its address, or 4 bytes on behind an endbr64. */
static inline unsigned long fg_ip(const void *fn)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };

	return (unsigned long)fn + (memcmp(fn, endbr64, 4) ? 0 : 4);
}

static inline void fg_name_add(const void *fn, const char *name)
{
	fg_names[fg_nr_names].ip = fg_ip(fn);
	fg_names[fg_nr_names].name = name;
	fg_nr_names++;
}

static inline const char *fg_name_of(unsigned long ip)
{
	static char buf[32];

	for (int i = 0; i < fg_nr_names; i++)
		if (fg_names[i].ip == ip)
			return fg_names[i].name;
	snprintf(buf, sizeof(buf), "?%lx", ip);
	return buf;
}

/* The graph records of thread @tid (0: all) in the ring, oldest first. Return: how many. */
static inline size_t fg_collect(pid_t tid, struct fg_rec *out, size_t max)
{
	struct trev_rb_iter *it = trev_rb_iter_start(trev_trace_buffer());
	struct trev_rb_event ev;
	size_t n = 0;

	fg_lost = 0;
	if (!it)
		return 0;
	while (trev_rb_iter_next(it, &ev) > 0 && n < max) {
		fg_lost += ev.lost;
		const unsigned char *d = (const unsigned char *)ev.data;
		unsigned short type;
		struct fg_rec r;

		memcpy(&type, d, sizeof(type));
		if ((type != FG_TYPE_ENT && type != FG_TYPE_RET) || (tid && ev.tid != tid))
			continue;
		memset(&r, 0, sizeof(r));
		r.type = type;
		r.tid = ev.tid;
		r.ts = ev.ts;
		memcpy(&r.func, d + 8, 8);
		if (type == FG_TYPE_RET) {	/* func, retval, depth, overrun, calltime, rettime */
			memcpy(&r.retval, d + 16, 8);
			memcpy(&r.depth, d + 24, 4);
			memcpy(&r.overrun, d + 28, 4);
			memcpy(&r.calltime, d + 32, 8);
			memcpy(&r.rettime, d + 40, 8);
		} else {			/* func, depth, pad, args[] */
			memcpy(&r.depth, d + 16, 4);
			if (ev.len >= 24 + sizeof(r.args)) {
				memcpy(r.args, d + 24, sizeof(r.args));
				r.nr_args = 6;
			}
		}
		out[n++] = r;
	}
	trev_rb_iter_finish(it);
	return n;
}

/*
 * Render @n records of one thread as "name{...}" and check them. Return:
 * NULL when they pair up, else what is wrong (@text holds what was read).
 */
static inline const char *fg_render(const struct fg_rec *r, size_t n, char *text, size_t len)
{
	static char why[256];
	struct {
		unsigned long func;
		unsigned int depth;
		unsigned long long lo, hi;	/* the callees' span */
	} st[512];
	size_t sp = 0, at = 0;

	text[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (r[i].type == FG_TYPE_ENT) {
			if (r[i].depth + fg_depth_slack < sp || r[i].depth > sp + fg_depth_slack) {
				snprintf(why, sizeof(why), "record %zu: %s entered at depth %u, "
					 "nesting %zu", i, fg_name_of(r[i].func), r[i].depth, sp);
				return why;
			}
			if (sp == sizeof(st) / sizeof(st[0]))
				return "too deep";
			st[sp].func = r[i].func;
			st[sp].depth = r[i].depth;
			st[sp].lo = ~0ull;
			st[sp].hi = 0;
			sp++;
			at += (size_t)snprintf(text + at, at < len ? len - at : 0, "%s{",
					       fg_name_of(r[i].func));
			continue;
		}
		if (!sp || st[sp - 1].func != r[i].func || st[sp - 1].depth != r[i].depth) {
			snprintf(why, sizeof(why), "record %zu: exit of %s (%u) does not match %s",
				 i, fg_name_of(r[i].func), r[i].depth,
				 sp ? fg_name_of(st[sp - 1].func) : "nothing");
			return why;
		}
		if (r[i].calltime > r[i].rettime || (!fg_depth_slack && st[sp - 1].lo != ~0ull &&
		    (st[sp - 1].lo < r[i].calltime || st[sp - 1].hi > r[i].rettime))) {
			snprintf(why, sizeof(why), "record %zu: %s [%llu, %llu] does not hold its "
				 "callees [%llu, %llu]", i, fg_name_of(r[i].func), r[i].calltime,
				 r[i].rettime, st[sp - 1].lo, st[sp - 1].hi);
			return why;
		}
		sp--;
		if (sp) {
			if (r[i].calltime < st[sp - 1].lo)
				st[sp - 1].lo = r[i].calltime;
			if (r[i].rettime > st[sp - 1].hi)
				st[sp - 1].hi = r[i].rettime;
		}
		at += (size_t)snprintf(text + at, at < len ? len - at : 0, "}");
	}
	if (sp)
		return "calls left open";
	return at < len ? NULL : "text too long";
}

#endif
