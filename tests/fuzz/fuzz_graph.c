/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for function_graph's text (src/ftrace/graph_output.c over
 * graph_layout.c): any sequence of funcgraph_entry/funcgraph_exit records,
 * whole or cut short, from any threads and CPUs, with any depths, functions and times,
 * under any options, read by a source that sometimes has nothing more for
 * now (as trace_pipe's): the layout reads ahead and takes leaves out
 * without losing or repeating a record, and every line stays in its seq.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Compiled in (instrumented), as fuzz_bprint.c does with its decoder. */
#include "output/graph_layout.c"
#include "ftrace/graph_output.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input record: kind, buffer, CPU, length cut, depth, function, duration. */
#define REC_BYTES	16

struct fz_src {
	const uint8_t *data;
	size_t size, pos;
	unsigned long long given;	/* records handed out */
	_Alignas(8) unsigned char rec[sizeof(struct trev_fgraph_ret_entry)];
};

static const unsigned long fz_funcs[] = {
	(unsigned long)LLVMFuzzerTestOneInput, (unsigned long)trev__graph_new,
	(unsigned long)graph_peek, 0,
};

static int fz_next(void *arg, struct trev_rb_event *ev)
{
	struct fz_src *s = arg;
	const uint8_t *r;
	uint32_t depth, fn, dur;
	bool ret;

	r = s->data + s->pos;
	/* Kind 0x80: "nothing now", once (a pipe that has not been written yet). */
	if (s->pos < s->size && r[0] == 0x80) {
		s->pos += 1;
		return 0;
	}
	if (s->pos + REC_BYTES > s->size) {
		s->pos = s->size;	/* the end: the rest is too short for a record */
		return 0;
	}
	s->pos += REC_BYTES;
	ret = r[0] & 1;
	memcpy(&depth, r + 4, 4);
	memcpy(&fn, r + 8, 4);
	memcpy(&dur, r + 12, 4);
	memset(s->rec, 0, sizeof(s->rec));
	if (ret) {
		struct trev_fgraph_ret_entry *e = (void *)s->rec;

		e->ent.type = TREV_TYPE_GRAPH_RET;
		e->func = fn < 4 * 64 ? fz_funcs[fn % 4] : fn;
		e->depth = depth;
		e->overrun = r[3];
		e->calltime = 1000;
		e->rettime = 1000ULL + (unsigned long long)dur * ((r[0] >> 4) + 1);
		ev->len = sizeof(*e);
	} else {
		struct trev_fgraph_ent_entry *e = (void *)s->rec;

		e->ent.type = TREV_TYPE_GRAPH_ENT;
		e->func = fn < 4 * 64 ? fz_funcs[fn % 4] : fn;
		e->depth = depth;
		ev->len = sizeof(*e);
	}
	((struct trev_entry *)(void *)s->rec)->pid = r[1] & 0xf;
	/* Some records cut short (only the printer's checks stand between them and a read). */
	if (r[0] & 2)
		ev->len = r[3] % ev->len;
	ev->data = s->rec;
	ev->buffer = r[1] & 0xf;
	ev->tid = r[1] & 0xf;
	ev->cpu = (int)(int8_t)r[2];
	ev->ts = s->given;
	ev->lost = r[0] & 4 ? r[3] : 0;
	s->given++;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trev_trace_iter iter;
	struct fz_src s = { data, size, 2, 0, { 0 } };
	struct trev_graph_src src = { NULL, fz_next, &s };
	struct trev_buf hdr = TREV_BUF_INIT;
	unsigned long long shown = 0, leaves = 0;
	struct trev_rb_event ev;
	unsigned long flags;
	int ret;

	if (size < 2)
		return 0;
	flags = ((unsigned long)data[0] << 8 | data[1]) &
		(TREV_ITER_CONTEXT_INFO | TREV_ITER_LATENCY_FMT | TREV_ITER_FG_OVERRUN |
		 TREV_ITER_FG_CPU | TREV_ITER_FG_OVERHEAD | TREV_ITER_FG_PROC |
		 TREV_ITER_FG_DURATION | TREV_ITER_FG_ABSTIME | TREV_ITER_FG_TAIL);
	if (trev__graph_header(trev__graph_opts(flags), data[0] & 1, &hdr))
		abort();
	trev__buf_free(&hdr);
	src.g = trev__graph_new();
	if (!src.g)
		abort();
	for (;;) {
		struct trev_event_call *call;

		ret = trev__graph_next(&src, &ev);
		if (ret == 0 && s.pos < s.size)
			continue;	/* "nothing now": the reader comes back */
		if (ret <= 0)
			break;
		shown++;
		trev_seq_init(&iter.seq);
		iter.ent = (struct trev_entry *)(uintptr_t)ev.data;
		iter.ent_size = ev.len;
		iter.cpu = ev.cpu;
		iter.ts = ev.ts;
		iter.buffer = ev.buffer;
		iter.trace_flags = flags;
		if (ev.len < sizeof(struct trev_entry))
			continue;
		call = iter.ent->type == TREV_TYPE_GRAPH_ENT ? &trev__ftrace_event_funcgraph_entry :
		       &trev__ftrace_event_funcgraph_exit;
		if (trev__graph_print(&src, &iter, call, "fuzz-comm-longer-than-16") &&
		    iter.ent->type == TREV_TYPE_GRAPH_ENT && iter.seq.len >= 4 &&
		    memcmp(iter.seq.buffer + iter.seq.len - 4, "();\n", 4) == 0)
			leaves++;
		if (iter.seq.len >= TREV_SEQ_SIZE || iter.seq.buffer[iter.seq.len] != '\0')
			abort();
	}
	/* Every record shown once, or taken as a leaf's return. */
	if (ret == 0 && shown + leaves != s.given)
		abort();
	trev__graph_free(src.g);
	return 0;
}
