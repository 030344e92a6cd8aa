/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function_graph tracer's events, ftrace/funcgraph_entry (id 11) and
 * ftrace/funcgraph_exit (id 10), with the kernel's format files and, as
 * their plain event text, the kernel's print fmt.
 */
#include "ftrace/ft_fast.h"	/* first: see there */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>


#include <trev/ring_buffer.h>
#include <trev/trace_event.h>
#include <trev/tracepoint.h>

#include "base/rcu.h"
#include "events/events_internal.h"
#include "ftrace/fgraph.h"
#include "ftrace/ftrace.h"
#include "output/sym_print.h"
#include "sym/symbols.h"
#include "write/write.h"
#include "write/write_api.h"

static int fg_field(struct trev_event_call *call, const char *type, const char *name,
		    size_t offset, size_t size)
{
	return trev_event_define_field(call, type, name, (int)offset, (int)size, 0,
				       TREV_FILTER_OTHER);
}

static int fg_ent_fields(struct trev_event_call *call)
{
	return fg_field(call, "unsigned long", "func",
			offsetof(struct trev_fgraph_ent_entry, func), sizeof(unsigned long)) ?:
	       fg_field(call, "unsigned int", "depth",
			offsetof(struct trev_fgraph_ent_entry, depth), sizeof(unsigned int)) ?:
	       fg_field(call, "unsigned long[]", "args",
			offsetof(struct trev_fgraph_ent_args_entry, args), 0);
}

static int fg_ret_fields(struct trev_event_call *call)
{
	return fg_field(call, "unsigned long", "func",
			offsetof(struct trev_fgraph_ret_entry, func), sizeof(unsigned long)) ?:
	       fg_field(call, "unsigned long", "retval",
			offsetof(struct trev_fgraph_ret_entry, retval), sizeof(unsigned long)) ?:
	       fg_field(call, "unsigned int", "depth",
			offsetof(struct trev_fgraph_ret_entry, depth), sizeof(unsigned int)) ?:
	       fg_field(call, "unsigned int", "overrun",
			offsetof(struct trev_fgraph_ret_entry, overrun), sizeof(unsigned int)) ?:
	       fg_field(call, "unsigned long long", "calltime",
			offsetof(struct trev_fgraph_ret_entry, calltime),
			sizeof(unsigned long long)) ?:
	       fg_field(call, "unsigned long long", "rettime",
			offsetof(struct trev_fgraph_ret_entry, rettime),
			sizeof(unsigned long long));
}

/* "--> %ps (%u)" */
static int fg_ent_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	const struct trev_fgraph_ent_entry *e = (const void *)iter->ent;

	(void)call;
	if (iter->ent_size < offsetof(struct trev_fgraph_ent_entry, pad))
		return -1;
	trev_seq_puts(&iter->seq, "--> ");
	trev__sym_print(&iter->seq, e->func, 0);
	trev_seq_printf(&iter->seq, " (%u)\n", e->depth);
	return 0;
}

/*
 * "<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx", "over" being
 * depth as in the kernel's fmt
 */
static int fg_ret_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	const struct trev_fgraph_ret_entry *e = (const void *)iter->ent;

	(void)call;
	if (iter->ent_size < sizeof(*e))
		return -1;
	trev_seq_puts(&iter->seq, "<-- ");
	trev__sym_print(&iter->seq, e->func, 0);
	trev_seq_printf(&iter->seq, " (%u) (start: %llx  end: %llx) over: %u retval: %lx\n",
			e->depth, e->calltime, e->rettime, e->depth, e->retval);
	return 0;
}

static const struct trev_event_class fg_ent_class = {
	TREV_ABI_HDR(struct trev_event_class), "ftrace", NULL, fg_ent_fields,
	sizeof(struct trev_fgraph_ent_entry)
};

static const struct trev_event_class fg_ret_class = {
	TREV_ABI_HDR(struct trev_event_class), "ftrace", NULL, fg_ret_fields,
	sizeof(struct trev_fgraph_ret_entry)
};

struct trev_event_call trev__ftrace_event_funcgraph_entry = {
	TREV_ABI_HDR(struct trev_event_call), &fg_ent_class, "funcgraph_entry", NULL,
	"\"--> %ps (%u)\", (void *)REC->func, REC->depth",
	fg_ent_output, TREV_EVENT_FL_FTRACE, 0, NULL
};

struct trev_event_call trev__ftrace_event_funcgraph_exit = {
	TREV_ABI_HDR(struct trev_event_call), &fg_ret_class, "funcgraph_exit", NULL,
	"\"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx\", (void *)REC->func, "
	"REC->depth, REC->calltime, REC->rettime, REC->depth, REC->retval",
	fg_ret_output, TREV_EVENT_FL_FTRACE, 0, NULL
};

/* ------------------------------------------------------------------ */
/* The shadow stack                                                     */

/*
 * One frame of a thread's shadow stack:
 *   ret       the return address the traced function's caller gave it
 *   func      the traced function's site
 *   slot      the stack word that held @ret and now holds trev__fg_return;
 *             FG_SLOT_BUSY while the frame is being written
 *   calltime  the instance's clock at the entry (ns)
 *   depth     its nesting: the frames below it on the shadow stack
 *   flags     FG_F_*
 */
struct fg_frame {
	unsigned long ret;
	unsigned long func;
	unsigned long slot;
	unsigned long long calltime;
	unsigned int depth;
	unsigned int flags;
};

#define FG_F_NOTRACE	0x1u	/* set_graph_notrace: no records, callees not pushed */
#define FG_F_INGRAPH	0x2u	/* inside a set_graph_function call tree */
#define FG_F_UNHOOKED	0x4u	/* its slot got @ret back (an unwinder runs) */
#define FG_F_NOHOOK	0x8u	/* the hooks' entry declined it: no exit hook */
#define FG_F_CALLED	0x10u	/* the graph trampoline called its body: return with `ret` */
#define FG_F_PROBE	0x20u	/* pushed for return probes (src/probe/): no records */

/* Inherited by a frame's callees. */
#define FG_F_INHERIT	(FG_F_NOTRACE | FG_F_INGRAPH)

/* A frame being written: never stale (see fg_stale()), never matches a return. */
#define FG_SLOT_BUSY	0ul

/*
 * How far above a frame's slot a new entry's slot may be for the frame to
 * count as stale (left by longjmp, an exception, a cancelled thread): a
 * frame on the same stack. A signal handler on an alternate stack lying
 * less than this above the interrupted stack would drop live frames; that
 * is refused at their return (fg_lost()). docs/function-tracer.md.
 */
#define FG_STALE_SPAN	(64ul << 20)

/*
 * @curr frames are pushed; frames[0] is the outermost. Only the owning
 * thread (and its signal handlers, which nest) touches it.
 */
struct fg_stack {
	unsigned int curr;
	unsigned int overrun;		/* entries refused because the stack was full */
	unsigned long dropped;		/* stale frames dropped */
	struct fg_frame frames[TREV_FG_DEPTH_MAX];
};

static __thread struct fg_stack *fg_cur __attribute__((tls_model("initial-exec")));
static pthread_key_t fg_key;
static bool fg_key_ok;

/*
 * What the hot path reads. fg_tr, fg_thresh_ns and fg_max_depth are
 * settings read relaxed: a call sees the old or the new value, and the
 * records' events were set up (their file's tr) before fg_tr is stored.
 * fg_hooks and fg_map are published with release (compare-exchange,
 * exchange) and read with acquire, so their contents are seen whole; the
 * old map is freed, and removed hooks are left, only after an RCU grace
 * period (the hot path reads them inside a read section).
 * fg_dropped_total is a statistic, relaxed.
 */
static _Atomic(struct trev_trace_array *) fg_tr;	/* NULL: no graph records */
static _Atomic(const struct trev_fg_hooks *) fg_hooks;
static _Atomic(struct trev_fg_map *) fg_map;
/* tracing_max_latency (ns); docs/function-tracer.md, "The latency of a call tree". */
static _Atomic unsigned long long fg_max_lat_ns;
static _Atomic unsigned long long fg_thresh_ns;
static atomic_uint fg_max_depth;
static atomic_ulong fg_dropped_total;

/*
 * fg_opts: a bit for each of the settings above that takes a call off the
 * plain path (fg_entry_plain(), the exit's plain record): records off,
 * hooks, a graph map, max_graph_depth, tracing_thresh. Each setter stores
 * its value, then its bit with an atomic or/and; a call that reads 0
 * (relaxed) acts as one that read every setting just before a change.
 * Records off: the bit is set before fg_tr is cleared and cleared after it
 * is stored, so the plain path's writes go to an instance that was made.
 */
#define FG_OPT_OFF	0x01u	/* fg_tr NULL */
#define FG_OPT_HOOKS	0x02u	/* fg_hooks set */
#define FG_OPT_MAP	0x04u	/* fg_map set */
#define FG_OPT_DEPTH	0x08u	/* fg_max_depth not 0 */
#define FG_OPT_THRESH	0x10u	/* fg_thresh_ns not 0 */
#define FG_OPT_ARGS	0x20u	/* funcgraph-args: entries record the argument registers (the
				 * full entry); the exits stay on their plain path */
static atomic_uint fg_opts = FG_OPT_OFF;

static void fg_opt_set(unsigned int bit, bool on)
{
	if (on)
		atomic_fetch_or(&fg_opts, bit);
	else
		atomic_fetch_and(&fg_opts, ~bit);
}

/*
 * Set the number of frames of @st. The compiler barriers keep the frame's
 * stores before and after this one in program order, which is the order a
 * signal handler of this thread sees (no other thread reads @st).
 */
static inline void fg_set_curr(struct fg_stack *st, unsigned int curr)
{
	atomic_signal_fence(memory_order_seq_cst);
	st->curr = curr;
	atomic_signal_fence(memory_order_seq_cst);
}

/* A thread's stack, made at its first graph entry (mmap is async-signal-safe). */
static __attribute__((noinline)) struct fg_stack *fg_stack_new(void)
{
	struct fg_stack *st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (st == MAP_FAILED)
		return NULL;
	fg_cur = st;
	if (fg_key_ok)
		pthread_setspecific(fg_key, st);
	return st;
}

/* A thread ends: its frames can no longer return. */
static void fg_stack_free(void *p)
{
	if (fg_cur == p)
		fg_cur = NULL;
	munmap(p, sizeof(struct fg_stack));
}

/*
 * A frame whose return slot lies below @slot (the stack grows down) on the
 * same stack belongs to a function that is gone: left by longjmp(), an
 * exception, or a thread cancelled. An equal slot is a tail call's (the
 * callee returns into trev__fg_return, which then returns for the caller).
 */
static inline bool fg_stale(const struct fg_frame *f, unsigned long slot)
{
	if (f->slot < slot)
		return slot - f->slot < FG_STALE_SPAN;
	/*
	 * Above the new slot, so on the live part of the stack: a frame whose
	 * slot no longer holds the trampoline is gone too (the longjmp went to
	 * a caller that then called deeper than where the frame was). A slot
	 * further away is on another stack (a handler's, a coroutine's), which
	 * may be gone: not read.
	 */
	return f->slot != FG_SLOT_BUSY && !(f->flags & FG_F_UNHOOKED) &&
	       f->slot - slot < FG_STALE_SPAN &&
	       *(const unsigned long *)f->slot != (unsigned long)trev__fg_return;
}

/* Drop the stale frames on top of @st before a push at @slot. */
static inline unsigned int fg_drop_stale(struct fg_stack *st, unsigned long slot)
{
	unsigned int curr = st->curr, was = curr;

	while (curr && fg_stale(&st->frames[curr - 1], slot))
		curr--;
	if (trev_unlikely(curr != was)) {
		fg_set_curr(st, curr);
		st->dropped += was - curr;
		atomic_fetch_add_explicit(&fg_dropped_total, was - curr, memory_order_relaxed);
	}
	return curr;
}

static unsigned int fg_site_flags(const struct trev_fg_map *m, unsigned long ip)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->e[mid].addr == ip)
			return m->e[mid].flags;
		if (m->e[mid].addr < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static inline unsigned long long fg_clock(struct trev_trace_array *tr)
{
	return trev_rb_clock_now(__atomic_load_n(&tr->rb, __ATOMIC_ACQUIRE));
}

/* The records' instance's clock, else the hooks' (function_graph off), else 0. */
static inline unsigned long long fg_clock_of(struct trev_trace_array *tr,
					     const struct trev_fg_hooks *hooks)
{
	if (!tr)
		tr = hooks ? hooks->clock : NULL;
	return tr ? fg_clock(tr) : 0;
}

/*
 * Push, in this order (a signal handler can run between any two steps and
 * push and pop frames of its own, always returning before we go on):
 *   1. frames[i].slot = BUSY, .depth        (i = curr)
 *   2. curr = i + 1                         the frame is ours now
 *   2b. frames[i].slot still BUSY? else again from 1
 *   3. frames[i]: every field but slot, again
 *   4. *slot = trev__fg_return              the return is hooked
 *   5. frames[i].slot = slot                the frame can be matched
 * A handler between 1 and 2 uses frames[i] itself and pops it again,
 * leaving its own slot there; a second handler between 2 and 2b could take
 * that slot for a stale frame's and drop frames[i] (curr = i): 2b sees the
 * slot changed and does 1 and 2 again. Once 2b passes, a handler sees
 * frames[i] as the top with a BUSY slot, which is never stale and never
 * matches a return, and its depth (written in 1 and 3). Only after 5 can a handler's push test the
 * frame for staleness, and then its slot holds the trampoline, as it does
 * until the pop (trev__fg_return leaves the slot alone). A handler that
 * longjmps out of the middle leaves a BUSY frame, which an outer return
 * drops (trev__fg_exit()).
 */
/* Two u32 fields in a u64 word of a record, as the record's byte order lays them out. */
static inline uint64_t fg_u32_pair(uint32_t first, uint32_t second)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return first | (uint64_t)second << 32;
#else
	return (uint64_t)first << 32 | second;
#endif
}

/* Steps 1 to 5 of a push (above) at frames[@curr]; returns the frame. */
static inline __attribute__((always_inline)) struct fg_frame *
fg_push(struct fg_stack *st, unsigned int curr, unsigned long ip, unsigned long *slot,
	unsigned long long calltime, unsigned int depth, unsigned int flags)
{
	struct fg_frame *f = &st->frames[curr];

	do {
		f->slot = FG_SLOT_BUSY;
		f->depth = depth;
		fg_set_curr(st, curr + 1);
	} while (trev_unlikely(f->slot != FG_SLOT_BUSY));
	f->ret = *slot;
	f->func = ip;
	f->calltime = calltime;
	f->depth = depth;
	f->flags = flags;
	/* Steps 3, 4, 5 in this order for a handler of this thread (compiler barriers). */
	atomic_signal_fence(memory_order_seq_cst);
	*slot = (unsigned long)trev__fg_return;
	atomic_signal_fence(memory_order_seq_cst);
	f->slot = (unsigned long)slot;
	return f;
}

/*
 * The entry record; its own time stamp is the frame's calltime (one clock
 * read for both: event_write_stamped_words()). Only the frame's return
 * reads calltime, after the caller stores it.
 */
static inline __attribute__((always_inline)) unsigned long long fg_ent_record(unsigned long ip,
									      unsigned int depth)
{
	/* struct trev_fgraph_ent_entry's payload: func; depth, pad. */
	uint64_t w[2] = { ip, fg_u32_pair(depth, 0) };

	return event_write_stamped_words(&trev__event_rt(&trev__ftrace_event_funcgraph_entry)->file,
					 w, 2, false);
}

/* fg_ent_record() when the ring's fast path takes it (event_write_words_try()). */
static inline __attribute__((always_inline)) struct words_try fg_ent_record_try(unsigned long ip,
										 unsigned int depth)
{
	uint64_t w[2] = { ip, fg_u32_pair(depth, 0) };

	return event_write_words_try(&trev__event_rt(&trev__ftrace_event_funcgraph_entry)->file,
				     w, 2, false);
}

/*
 * The entry record with funcgraph-args: the argument registers the
 * trampoline saved below @slot (ftrace.h: slot[-4] rdi ... slot[-9] r9).
 */
static void fg_ent_args_record(unsigned long ip, unsigned int depth, const unsigned long *slot)
{
	struct trev_fgraph_ent_args_entry rec = { .func = ip, .depth = depth };

	for (int i = 0; i < TREV_FG_NR_ARGS; i++)
		rec.args[i] = slot[-4 - i];
	trev_event_write(&trev__event_rt(&trev__ftrace_event_funcgraph_entry)->file, &rec,
			 sizeof(rec));
}

static __attribute__((noinline)) bool fg_entry_full(unsigned long ip, unsigned long *slot,
						    bool called)
{
	/*
	 * Acquire: pairs with trev__fg_set()'s store, so what made the instance
	 * before it (its buffer, tr->rb) is seen by fg_clock() here.
	 */
	struct trev_trace_array *tr = atomic_load_explicit(&fg_tr, memory_order_acquire);
	const struct trev_fg_hooks *hooks = atomic_load_explicit(&fg_hooks, memory_order_acquire);
	struct fg_stack *st = fg_cur;
	unsigned long s = (unsigned long)slot;
	unsigned int curr, flags = called ? FG_F_CALLED : 0, depth, max;
	struct trev_fg_map *map;
	struct fg_frame *f;
	unsigned long long now, thresh;
	/* Relaxed, as the other settings: a call racing the switch has its arguments or not. */
	bool args = atomic_load_explicit(&fg_opts, memory_order_relaxed) & FG_OPT_ARGS;
	bool stamped;

	if (trev_unlikely(!tr && !hooks))
		return false;
	if (trev_unlikely(!st) && !(st = fg_stack_new()))
		return false;
	curr = fg_drop_stale(st, s);
	if (curr) {
		const struct fg_frame *parent = &st->frames[curr - 1];

		if (parent->flags & FG_F_NOTRACE)
			return false;
		flags |= parent->flags & FG_F_INHERIT;
	}
	/* The graph lists and max_graph_depth shape function_graph's records, not the hooks'. */
	map = tr ? atomic_load_explicit(&fg_map, memory_order_acquire) : NULL;
	if (trev_unlikely(map != NULL)) {
		unsigned int sf = fg_site_flags(map, ip);
		bool graph = map->graph;

		/* For TSan: the grace period orders these reads before trev__fg_map_replace()'s free. */
		trev_tsan_release(map);
		if (sf & TREV_FG_SITE_NOTRACE)
			flags |= FG_F_NOTRACE;
		else if (sf & TREV_FG_SITE_GRAPH)
			flags |= FG_F_INGRAPH;
		else if (graph && !(flags & FG_F_INGRAPH))
			return false;
	}
	depth = curr;
	max = tr ? atomic_load_explicit(&fg_max_depth, memory_order_relaxed) : 0;
	if (max && depth >= max)
		return false;
	if (trev_unlikely(curr >= TREV_FG_DEPTH_MAX)) {
		st->overrun++;
		return false;
	}
	thresh = tr ? atomic_load_explicit(&fg_thresh_ns, memory_order_relaxed) : 0;
	/*
	 * The common case: the entry record's own time stamp is calltime
	 * (event_write_stamped_words()), one clock read for both. The hooks
	 * want the time before the push, tracing_thresh writes no entry.
	 */
	stamped = tr && !hooks && !thresh && !(flags & FG_F_NOTRACE) && !args;
	now = stamped ? 0 : fg_clock_of(tr, hooks);
	if (hooks && hooks->entry && !(flags & FG_F_NOTRACE) && !hooks->entry(ip, depth, now)) {
		if (!tr)
			return false;
		flags |= FG_F_NOHOOK;
	}
	f = fg_push(st, curr, ip, slot, now, depth, flags);
	if (tr && !thresh && !(flags & FG_F_NOTRACE)) {
		if (stamped)
			f->calltime = fg_ent_record(ip, depth);
		else if (args)
			fg_ent_args_record(ip, depth, slot);
		else
			trev_event_write(&trev__event_rt(&trev__ftrace_event_funcgraph_entry)->file,
					 &(struct trev_fgraph_ent_entry){ .func = ip, .depth = depth },
					 sizeof(struct trev_fgraph_ent_entry));
	}
	return true;
}

/* Undo the fg_push() of @f, the thread's top frame, as if it had never been. */
static inline __attribute__((always_inline)) void fg_unpush(struct fg_frame *f)
{
	struct fg_stack *st = fg_cur;
	unsigned long *slot = (unsigned long *)f->slot;

	/* In this order for a handler: no longer matched nor tested for staleness first. */
	f->slot = FG_SLOT_BUSY;
	atomic_signal_fence(memory_order_seq_cst);
	*slot = f->ret;
	fg_set_curr(st, (unsigned int)(f - st->frames));
}

/*
 * The plain path (fg_opts 0: records on, no hooks, graph lists, depth
 * limit or threshold): what fg_entry_full() does when none of them is set.
 * A frame pushed before a list went away may still hide its callees.
 * With @fast (a constant), the fast call's (trev__fg_entry_fast()): what
 * would call out of line (the thread's first frame, stale frames to drop,
 * a full stack, the ring's slow path) returns TREV_FT_FULL instead, with
 * nothing changed: as the kernel's function_graph_enter(), the frame is
 * pushed before the record and taken off again when the record fails.
 * Return: 1 when a frame was pushed, else 0 or TREV_FT_FULL.
 */
static inline __attribute__((always_inline)) int fg_entry_plain(unsigned long ip,
								 unsigned long *slot, bool called,
								 bool fast)
{
	struct fg_stack *st = fg_cur;
	unsigned int curr, flags = called ? FG_F_CALLED : 0;
	struct fg_frame *f;

	/* Acquire, as in fg_entry_full(): the instance the records go to is seen whole. */
	if (trev_unlikely(!atomic_load_explicit(&fg_tr, memory_order_acquire)))
		return 0;
	if (trev_unlikely(!st)) {
		if (fast)
			return TREV_FT_FULL;
		if (!(st = fg_stack_new()))
			return 0;
	}
	if (fast) {
		curr = st->curr;
		if (curr && trev_unlikely(fg_stale(&st->frames[curr - 1], (unsigned long)slot)))
			return TREV_FT_FULL;
	} else {
		curr = fg_drop_stale(st, (unsigned long)slot);
	}
	if (curr) {
		unsigned int pf = st->frames[curr - 1].flags;

		if (trev_unlikely(pf & FG_F_NOTRACE))
			return 0;
		flags |= pf & FG_F_INHERIT;
	}
	if (trev_unlikely(curr >= TREV_FG_DEPTH_MAX)) {
		if (fast)
			return TREV_FT_FULL;
		st->overrun++;
		return 0;
	}
	f = fg_push(st, curr, ip, slot, 0, curr, flags);
	if (fast) {
		struct words_try r = fg_ent_record_try(ip, curr);

		if (trev_unlikely(!r.done)) {
			fg_unpush(f);
			return TREV_FT_FULL;
		}
		f->calltime = r.ts;
	} else {
		f->calltime = fg_ent_record(ip, curr);
	}
	return 1;
}

static inline __attribute__((always_inline)) bool fg_entry(unsigned long ip, unsigned long *slot,
							     bool called)
{
	if (trev_likely(!atomic_load_explicit(&fg_opts, memory_order_relaxed)))
		return fg_entry_plain(ip, slot, called, false);
	return fg_entry_full(ip, slot, called);
}

static trev_fg_probe_exit_fn fg_probe_exit;

void trev__fg_probe_exit_set(trev_fg_probe_exit_fn fn)
{
	__atomic_store_n(&fg_probe_exit, fn, __ATOMIC_RELEASE);
}

bool trev__fg_entry_probe(unsigned long ip, unsigned long *slot, bool called)
{
	struct fg_stack *st = fg_cur;
	unsigned int curr;

	if (trev_unlikely(!st) && !(st = fg_stack_new()))
		return false;
	curr = fg_drop_stale(st, (unsigned long)slot);
	if (trev_unlikely(curr >= TREV_FG_DEPTH_MAX)) {
		st->overrun++;
		return false;
	}
	fg_push(st, curr, ip, slot, 0, curr, FG_F_PROBE | FG_F_NOHOOK | (called ? FG_F_CALLED : 0));
	return true;
}

bool trev__fg_entry(unsigned long ip, unsigned long *slot, bool called)
{
	return fg_entry(ip, slot, called);
}

int trev__fg_entry_alone(unsigned long ip, unsigned long *slot)
{
	struct trev_rcu_section rcu;
	int pushed;

	rcu = trev_rcu_read_lock();
	pushed = fg_entry(ip, slot, true);
	trev_rcu_read_unlock(rcu);
	return pushed;
}

/*
 * The graph trampolines' fast calls (trampoline.c) do only what calls
 * nothing out of line, and return TREV_FT_FULL, having changed nothing,
 * for everything else: a thread's first graph entry, a thread not yet
 * without its RCU reader yet, settings off the plain path (fg_opts), stale frames
 * to drop, a full shadow stack, a record the ring's fast path does not
 * take, funcgraph-snapshot at a call tree's root. The trampoline then
 * keeps the vector registers at their full width and calls the full path.
 * As the kernel's function_graph_enter() and ftrace_return_to_handler(),
 * the entry pushes the frame before its record (and takes it off again
 * when the record cannot be written here), the exit writes its record
 * before the pop, so a signal handler in between finds the frame whole.
 */
int trev__fg_entry_fast(unsigned long ip, unsigned long *slot)
{
	unsigned int *rcu;
	int ret;

	if (trev_unlikely(!ft_rcu_ready() || atomic_load_explicit(&fg_opts, memory_order_relaxed)))
		return TREV_FT_FULL;
	rcu = trev__rcu_lock_known();
	ret = fg_entry_plain(ip, slot, true, true);
	trev__rcu_unlock_known(rcu);
	return ret;
}

/*
 * A call tree's root returned after @d ns: as the kernel's latency tracers'
 * report_latency(), a new tracing_max_latency when @d is above it (or, with
 * tracing_thresh @thresh, at least @thresh).
 * Return: true when @d is the new maximum.
 * Context: any thread, signal-safe; calls nothing.
 */
static inline bool fg_latency_max(unsigned long long d, unsigned long long thresh)
{
	unsigned long long cur = atomic_load_explicit(&fg_max_lat_ns, memory_order_relaxed);

	if (thresh) {
		if (d < thresh)
			return false;
		atomic_store_explicit(&fg_max_lat_ns, d, memory_order_relaxed);
		return true;
	}
	/* Relaxed: a value of its own; of racing calls, the longest stays. */
	do {
		if (d <= cur)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&fg_max_lat_ns, &cur, d,
							memory_order_relaxed,
							memory_order_relaxed));
	return true;
}

/* The option funcgraph-snapshot: a new maximum swaps the buffer into the snapshot. */
static inline bool fg_snapshot_on(const struct trev_trace_array *tr)
{
	/* Relaxed: an option's word; the option's arm keeps the snapshot buffer. */
	return __atomic_load_n(&tr->trace_flags, __ATOMIC_RELAXED) & TREV_ITER_FG_SNAPSHOT;
}

/*
 * fg_latency_max(), and, as the kernel's update_max_tr(), with the option
 * funcgraph-snapshot the buffer swapped into the snapshot on a new maximum,
 * which then keeps that call's records.
 * Context: trev__fg_exit(), inside its RCU read section.
 */
static void fg_latency(struct trev_trace_array *tr, unsigned long long d,
		       unsigned long long thresh)
{
	if (fg_latency_max(d, thresh) && fg_snapshot_on(tr))
		trev__snapshot_swap_probe(tr);
}

/*
 * What the function returned in rax: trev__fg_return saved it two words
 * below the return slot @slot (trampoline.c), on both of its paths.
 */
#define FG_RETVAL(slot)	((slot)[-2])

/* A return for which no frame is left: where to go is lost. */
static __attribute__((noreturn, noinline)) void fg_lost(unsigned long slot)
{
	static const char msg[] = "trev: function_graph: a return with no frame on the "
				  "thread's shadow stack; cannot continue\n";

	(void)slot;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		abort();
	abort();
}

/*
 * The exit record of the popped frame @f, its thread's @overrun, the
 * function's @retval, when
 * fg_opts is not 0: hooks, tracing_thresh, records off. In a read section
 * of its own.
 */
static __attribute__((noinline)) void fg_exit_full(struct fg_frame f, unsigned int overrun,
						    unsigned long retval)
{
	struct trev_rcu_section rcu;
	struct trev_trace_array *tr;
	const struct trev_fg_hooks *hooks;

	rcu = trev_rcu_read_lock();
	tr = atomic_load_explicit(&fg_tr, memory_order_acquire);	/* as in trev__fg_entry() */
	hooks = atomic_load_explicit(&fg_hooks, memory_order_acquire);
	if (tr || (hooks && hooks->exit)) {
		struct trev_fgraph_ret_entry rec;
		unsigned long long thresh = atomic_load_explicit(&fg_thresh_ns,
								 memory_order_relaxed);
		struct trev_event_file *file = &trev__event_rt(&trev__ftrace_event_funcgraph_exit)->file;

		rec.func = f.func;
		rec.retval = retval;
		rec.depth = f.depth;
		rec.overrun = overrun;
		rec.calltime = f.calltime;
		if (tr && !hooks && !thresh) {
			/* The record's own time stamp is rettime (payload as trev__fg_exit()'s). */
			uint64_t w[4] = { f.func, retval, fg_u32_pair(f.depth, overrun), f.calltime };

			rec.rettime = event_write_stamped_words(file, w, 4, true);
		} else {
			rec.rettime = fg_clock_of(tr, hooks);
			if (hooks && hooks->exit && !(f.flags & FG_F_NOHOOK))
				hooks->exit(f.func, f.depth, f.calltime, rec.rettime);
			/* The kernel's trace_graph_thresh_return(): only calls that lasted tracing_thresh. */
			if (tr && (!thresh || rec.rettime - rec.calltime >= thresh))
				trev_event_write(file, &rec, sizeof(rec));
		}
		if (tr && f.depth == 0)
			fg_latency(tr, rec.rettime - rec.calltime, thresh);
	}
	trev_rcu_read_unlock(rcu);
}

/*
 * Pop, in this order: find the frame whose slot is @slot (frames above it
 * are stale: a longjmp left them), copy it, then curr = its index. A
 * signal handler before the store of curr pushes above the frame and pops
 * again; after it, it may overwrite the frame, which was copied.
 * Context: trev__fg_return, any thread, in the traced function's return.
 */
__attribute__((used)) struct trev_fg_ret trev__fg_exit(unsigned long *slot)
{
	struct trev_rcu_section rcu;
	struct fg_stack *st = fg_cur;
	unsigned long s = (unsigned long)slot;
	struct trev_trace_array *tr;
	unsigned long long rettime;
	struct fg_frame f;
	uint64_t w[4];
	unsigned int i;

	if (trev_unlikely(!st))
		fg_lost(s);
	i = st->curr;
	while (i && st->frames[i - 1].slot != s)
		i--;
	if (trev_unlikely(!i))
		fg_lost(s);
	i--;
	f.ret = st->frames[i].ret;
	f.func = st->frames[i].func;
	f.calltime = st->frames[i].calltime;
	f.depth = st->frames[i].depth;
	f.flags = st->frames[i].flags;
	if (trev_unlikely(i + 1 != st->curr)) {
		st->dropped += st->curr - (i + 1);
		atomic_fetch_add_explicit(&fg_dropped_total, st->curr - (i + 1),
					  memory_order_relaxed);
	}
	fg_set_curr(st, i);
	if (trev_unlikely(f.flags & FG_F_PROBE)) {
		trev_fg_probe_exit_fn fn = __atomic_load_n(&fg_probe_exit, __ATOMIC_ACQUIRE);

		/* Outside a read section: it may wait for a grace period (its own reads lock). */
		if (fn)
			fn(f.func, f.ret, slot);
		goto out;
	}
	if (f.flags & FG_F_NOTRACE)
		goto out;
	/* funcgraph-args shapes the entry only: the exit's plain record is the same. */
	if (trev_unlikely(atomic_load_explicit(&fg_opts, memory_order_relaxed) & ~FG_OPT_ARGS)) {
		fg_exit_full(f, st->overrun, FG_RETVAL(slot));
		goto out;
	}
	/*
	 * The plain path (fg_entry_plain()): the record's own time stamp is
	 * rettime. struct trev_fgraph_ret_entry's payload: func; retval;
	 * depth, overrun; calltime; rettime.
	 */
	w[0] = f.func;
	w[1] = FG_RETVAL(slot);
	w[2] = fg_u32_pair(f.depth, st->overrun);
	w[3] = f.calltime;
	rcu = trev_rcu_read_lock();
	/* Acquire, as in trev__fg_entry(); NULL: the records went off meanwhile. */
	tr = atomic_load_explicit(&fg_tr, memory_order_acquire);
	if (trev_likely(tr)) {
		rettime = event_write_stamped_words(
			&trev__event_rt(&trev__ftrace_event_funcgraph_exit)->file, w, 4, true);
		if (f.depth == 0)	/* a call tree's root */
			fg_latency(tr, rettime - f.calltime, 0);
	}
	trev_rcu_read_unlock(rcu);
out:
	/* Where the frame returns, and how (struct trev_fg_ret). */
	return (struct trev_fg_ret){ f.ret, f.flags & FG_F_CALLED };
}

struct trev_fg_ret trev__fg_exit_fast(unsigned long *slot)
{
	unsigned int *rcu;
	struct fg_stack *st = fg_cur;
	const struct fg_frame *f;
	struct trev_trace_array *tr;
	struct trev_fg_ret ret = { 0, 0 };	/* .to 0: TREV_FT_FULL */
	struct words_try r;
	unsigned int i;
	uint64_t w[4];

	if (trev_unlikely((atomic_load_explicit(&fg_opts, memory_order_relaxed) & ~FG_OPT_ARGS) ||
			  !st || !st->curr || !ft_rcu_ready()))
		return ret;
	i = st->curr - 1;
	f = &st->frames[i];
	/* Frames above it to drop, or one without records: the full path. */
	if (trev_unlikely(f->slot != (unsigned long)slot ||
			  (f->flags & (FG_F_NOTRACE | FG_F_PROBE))))
		return ret;
	/* struct trev_fgraph_ret_entry's payload: func; retval; depth, overrun; calltime; rettime. */
	w[0] = f->func;
	w[1] = FG_RETVAL(slot);
	w[2] = fg_u32_pair(f->depth, st->overrun);
	w[3] = f->calltime;
	rcu = trev__rcu_lock_known();
	tr = atomic_load_explicit(&fg_tr, memory_order_acquire);	/* as in trev__fg_exit() */
	if (trev_likely(tr) && !(f->depth == 0 && fg_snapshot_on(tr)) &&
	    (r = event_write_words_try(&trev__event_rt(&trev__ftrace_event_funcgraph_exit)->file,
				       w, 4, true)).done) {
		if (f->depth == 0)	/* a call tree's root */
			fg_latency_max(r.ts - f->calltime, 0);
		ret.to = f->ret;
		ret.called = f->flags & FG_F_CALLED;
		fg_set_curr(st, i);	/* the pop, after the record */
	}
	trev__rcu_unlock_known(rcu);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Frames that do not return: unwinders                                 */

/*
 * Give every frame of the thread whose slot lies above @sp (still live)
 * its real return address back, so that an unwinder reading the stack
 * sees the real callers; frames below @sp are gone and dropped. Inner
 * frames first: a tail call's two frames share a slot, the outer one's
 * address is the real one.
 */
static void fg_unhook_all(unsigned long sp)
{
	struct fg_stack *st = fg_cur;
	unsigned int i;

	if (!st)
		return;
	for (i = st->curr; i; i--) {
		struct fg_frame *f = &st->frames[i - 1];
		unsigned long *slot = (unsigned long *)f->slot;

		if (f->slot == FG_SLOT_BUSY || f->slot < sp)
			continue;
		if (!(f->flags & FG_F_UNHOOKED) && *slot == (unsigned long)trev__fg_return) {
			*slot = f->ret;
			f->flags |= FG_F_UNHOOKED;
		}
	}
}

/*
 * After an unwinder's landing pad is reached (a catch), or a backtrace is
 * taken: drop the frames below @sp (unwound), hook the live ones again.
 */
static void fg_rehook_all(unsigned long sp)
{
	struct fg_stack *st = fg_cur;
	unsigned int i, keep;

	if (!st)
		return;
	for (keep = st->curr; keep; keep--) {
		const struct fg_frame *f = &st->frames[keep - 1];

		if (f->slot == FG_SLOT_BUSY || f->slot > sp)
			break;
	}
	if (keep != st->curr) {
		st->dropped += st->curr - keep;
		atomic_fetch_add_explicit(&fg_dropped_total, st->curr - keep,
					  memory_order_relaxed);
		fg_set_curr(st, keep);
	}
	for (i = 0; i < keep; i++) {
		struct fg_frame *f = &st->frames[i];
		unsigned long *slot = (unsigned long *)f->slot;

		if (!(f->flags & FG_F_UNHOOKED))
			continue;
		if (*slot == f->ret)
			*slot = (unsigned long)trev__fg_return;
		f->flags &= ~FG_F_UNHOOKED;
	}
}

static inline unsigned long fg_sp(void)
{
	return (unsigned long)__builtin_frame_address(0);
}

/*
 * The next definition of @name (libgcc_s, libstdc++, libc), found once.
 * Threads racing on the first call all store the same pointer; the
 * release/acquire pair only keeps the cache a plain published value.
 */
static void *fg_next(_Atomic(void *) *cache, const char *name)
{
	void *fn = atomic_load_explicit(cache, memory_order_acquire);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		atomic_store_explicit(cache, fn, memory_order_release);
	}
	return fn;
}

/*
 * The unwinder's entry points, interposed (libtrev comes before libgcc_s,
 * libstdc++ and libc in a program's lookup order): before an exception,
 * a rethrow or a forced unwind walks the stack, the thread's frames get
 * their real return addresses back; __cxa_begin_catch() hooks the frames
 * still live again. glibc reaches libgcc_s's _Unwind_ForcedUnwind and
 * _Unwind_Backtrace through dlsym() for pthread_cancel() and backtrace(),
 * which no interposition sees: pthread_exit() and backtrace() are
 * interposed instead. docs/function-tracer.md, "Frames that do not return".
 */
#define FG_EXPORT __attribute__((visibility("default")))

FG_EXPORT int _Unwind_RaiseException(void *exc);
FG_EXPORT int _Unwind_Resume_or_Rethrow(void *exc);
FG_EXPORT int _Unwind_ForcedUnwind(void *exc, void *stop, void *arg);
FG_EXPORT void *__cxa_begin_catch(void *exc) __attribute__((nothrow));
FG_EXPORT void pthread_exit(void *ret) __attribute__((noreturn));
FG_EXPORT int backtrace(void **buf, int size);

static _Atomic(void *) next_raise, next_rethrow, next_forced, next_catch, next_exit,
	next_backtrace;

int _Unwind_RaiseException(void *exc)
{
	int (*fn)(void *) = (int (*)(void *))fg_next(&next_raise, "_Unwind_RaiseException");

	fg_unhook_all(fg_sp());
	return fn ? fn(exc) : 9;	/* _URC_FAILURE */
}

int _Unwind_Resume_or_Rethrow(void *exc)
{
	int (*fn)(void *) = (int (*)(void *))fg_next(&next_rethrow,
						     "_Unwind_Resume_or_Rethrow");

	fg_unhook_all(fg_sp());
	return fn ? fn(exc) : 9;
}

int _Unwind_ForcedUnwind(void *exc, void *stop, void *arg)
{
	int (*fn)(void *, void *, void *) =
		(int (*)(void *, void *, void *))fg_next(&next_forced, "_Unwind_ForcedUnwind");

	fg_unhook_all(fg_sp());
	return fn ? fn(exc, stop, arg) : 9;
}

void *__cxa_begin_catch(void *exc)
{
	void *(*fn)(void *) = (void *(*)(void *))fg_next(&next_catch, "__cxa_begin_catch");

	/* The catching function's frame is live: everything below this one's is not. */
	fg_rehook_all(fg_sp());
	return fn ? fn(exc) : NULL;
}

void pthread_exit(void *ret)
{
	void (*fn)(void *) = (void (*)(void *))fg_next(&next_exit, "pthread_exit");

	fg_unhook_all(fg_sp());
	if (!fn)
		abort();
	fn(ret);
	abort();
}

int backtrace(void **buf, int size)
{
	int (*fn)(void **, int) = (int (*)(void **, int))fg_next(&next_backtrace, "backtrace");
	unsigned long sp = fg_sp();
	void *small[65];	/* the caller's @size frames and this wrapper's */
	void **out = buf;
	int n;

	if (!fn || size <= 0)
		return 0;
	if (size < (int)(sizeof(small) / sizeof(small[0])))
		out = small;
	fg_unhook_all(sp);
	n = fn(out, out == small ? size + 1 : size);
	fg_rehook_all(sp);
	/* The first address is the one into this wrapper: the caller's comes next. */
	if (n <= 0)
		return 0;
	n--;
	memmove(buf, out + 1, (size_t)n * sizeof(*buf));
	return n;
}

/* ------------------------------------------------------------------ */
/* Control                                                              */

void trev__fg_set(struct trev_trace_array *tr, bool on)
{
	struct trev_event_rt *e = trev__event_rt(&trev__ftrace_event_funcgraph_entry);
	struct trev_event_rt *r = trev__event_rt(&trev__ftrace_event_funcgraph_exit);

	/*
	 * As trev__ftrace_set_tracer() does for ftrace/function: the files'
	 * tr is set once, before the seq-cst store of fg_tr that lets calls
	 * write (relaxed: set once, under ft_lock, never changed after).
	 */
	if (on) {
		if (e && !__atomic_load_n(&e->file.tr, __ATOMIC_RELAXED))
			__atomic_store_n(&e->file.tr, tr, __ATOMIC_RELAXED);
		if (r && !__atomic_load_n(&r->file.tr, __ATOMIC_RELAXED))
			__atomic_store_n(&r->file.tr, tr, __ATOMIC_RELAXED);
	}
	if (!on)
		fg_opt_set(FG_OPT_OFF, true);
	atomic_store(&fg_tr, on ? tr : NULL);
	if (on)
		fg_opt_set(FG_OPT_OFF, false);
}

void trev__fg_args_set(bool on)
{
	fg_opt_set(FG_OPT_ARGS, on);
}

void trev__fg_map_replace(struct trev_fg_map *map)
{
	struct trev_fg_map *old = atomic_exchange_explicit(&fg_map, map, memory_order_acq_rel);

	fg_opt_set(FG_OPT_MAP, map != NULL);

	if (old) {
		trev__rcu_synchronize();
		trev_tsan_acquire(old);
		free(old);
	}
}

void trev__fg_set_thresh(unsigned long long ns)
{
	atomic_store(&fg_thresh_ns, ns);
	fg_opt_set(FG_OPT_THRESH, ns != 0);
}

unsigned long long trev__fg_thresh(void)
{
	return atomic_load(&fg_thresh_ns);
}

void trev__fg_set_max_depth(unsigned int depth)
{
	atomic_store(&fg_max_depth, depth);
	fg_opt_set(FG_OPT_DEPTH, depth != 0);
}

unsigned int trev__fg_max_depth(void)
{
	return atomic_load(&fg_max_depth);
}

int trev__fg_hooks_set(const struct trev_fg_hooks *h)
{
	const struct trev_fg_hooks *none = NULL;

	if (!h) {
		/* Calls still in the hooks finish before the caller may free what they use. */
		atomic_store(&fg_hooks, NULL);
		fg_opt_set(FG_OPT_HOOKS, false);
		trev__rcu_synchronize();
		return 0;
	}
	if (atomic_load(&fg_hooks) == h)
		return 0;
	/* Seq-cst: publishes *h to the hot path's acquire load. */
	if (!atomic_compare_exchange_strong(&fg_hooks, &none, h))
		return -EBUSY;
	fg_opt_set(FG_OPT_HOOKS, true);
	return 0;
}

void trev__fg_set_max_latency(unsigned long long ns)
{
	atomic_store(&fg_max_lat_ns, ns);
}

unsigned long long trev__fg_max_latency(void)
{
	return atomic_load(&fg_max_lat_ns);
}

unsigned long trev__fg_dropped(void)
{
	return atomic_load_explicit(&fg_dropped_total, memory_order_relaxed);
}

static __attribute__((constructor)) void fg_init(void)
{
	fg_key_ok = pthread_key_create(&fg_key, fg_stack_free) == 0;
}
