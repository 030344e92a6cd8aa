/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function_graph tracer's records (layer 3, docs/function-tracer.md):
 * ftrace/funcgraph_entry and ftrace/funcgraph_exit, laid out and numbered
 * as the kernel's (enum trace_type, struct ftrace_graph_ent_entry and
 * struct ftrace_graph_ret_entry). fgraph.c writes them; the output layer
 * formats them as the kernel's trace_functions_graph.c does.
 */
#ifndef TREV_FGRAPH_H
#define TREV_FGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <trev/trace_event.h>

/* The kernel's TRACE_GRAPH_RET and TRACE_GRAPH_ENT. */
#define TREV_TYPE_GRAPH_RET	10
#define TREV_TYPE_GRAPH_ENT	11

/*
 * funcgraph_entry (the kernel's format since 6.15):
 *   OFFSET  SIZE  MEANING
 *   0       8     struct trev_entry (common fields)
 *   8       8     func: the traced function's patched entry
 *   16      4     depth: its nesting on the thread's graph stack, 0 = outermost
 *   20      4     (padding)
 *   24      0|48  args[]: with funcgraph-args, rdi, rsi, rdx, rcx, r8, r9 at
 *                 the entry (the record's size tells; the format says size 0)
 */
struct trev_fgraph_ent_entry {
	struct trev_entry ent;
	unsigned long func;
	unsigned int depth;
	unsigned int pad;
};

/* The argument registers a funcgraph_entry carries with funcgraph-args (ftrace.h's TREV_FT_NR_ARGS). */
#define TREV_FG_NR_ARGS		6

/* A funcgraph_entry with its args[]: struct trev_fgraph_ent_entry, then the registers. */
struct trev_fgraph_ent_args_entry {
	struct trev_entry ent;
	unsigned long func;
	unsigned int depth;
	unsigned int pad;
	unsigned long args[TREV_FG_NR_ARGS];
};

/*
 * funcgraph_exit (the kernel's with CONFIG_FUNCTION_GRAPH_RETVAL, packed):
 *   OFFSET  SIZE  MEANING
 *   0       8     struct trev_entry
 *   8       8     func: as in its entry
 *   16      8     retval: rax when the function returned
 *   24      4     depth: as in its entry
 *   28      4     overrun: entries the thread's graph stack could not hold
 *   32      8     calltime: the trace clock at entry (ns, the buffer's clock)
 *   40      8     rettime: the trace clock at return
 */
struct trev_fgraph_ret_entry {
	struct trev_entry ent;
	unsigned long func;
	unsigned long retval;
	unsigned int depth;
	unsigned int overrun;
	unsigned long long calltime;
	unsigned long long rettime;
};

extern struct trev_event_call trev__ftrace_event_funcgraph_entry;
extern struct trev_event_call trev__ftrace_event_funcgraph_exit;

struct trev_trace_array;

/*
 * The function_graph mechanism (fgraph.c; docs/function-tracer.md,
 * "function_graph"). The function tracer's trampoline calls
 * trev__fg_entry() at a traced entry; it pushes a frame on the thread's
 * shadow stack and replaces the return address on the stack with
 * trev__fg_return, whose call of trev__fg_exit() pops the frame and gives
 * back the real return address.
 */

/* A thread's shadow stack holds this many frames; more are counted in overrun. */
#define TREV_FG_DEPTH_MAX	256

/* Graph flags of a site (ftrace.c computes them from set_graph_*). */
#define TREV_FG_SITE_GRAPH	0x1u	/* in set_graph_function: a call tree's root */
#define TREV_FG_SITE_NOTRACE	0x2u	/* in set_graph_notrace: it and its callees hidden */

/* Sites with graph flags, sorted by address; published whole (RCU). */
struct trev_fg_map {
	size_t n;
	bool graph;		/* set_graph_function is not empty */
	struct trev_fg_map_ent {
		uintptr_t addr;
		unsigned int flags;	/* TREV_FG_SITE_* */
	} e[];
};

/*
 * trev__fg_entry() - a traced entry under function_graph
 * @ip: the site (the function's patched entry)
 * @slot: the stack word holding the return address into the caller
 * @called: the graph trampoline (trev__fg_trampoline) will call the
 *	function's body when this returns true; else the call trampoline
 *	returns into it and its `ret` comes back through the hooked slot
 * Return: true when a frame was pushed and @slot now holds trev__fg_return.
 * Context: the trampoline's C call, inside an RCU read section, any thread,
 * signal handlers too; no lock, no system call, no allocation after the
 * thread's first frame.
 */
bool trev__fg_entry(unsigned long ip, unsigned long *slot, bool called);

/*
 * trev__fg_args_set() - the top instance's funcgraph-args: funcgraph_entry
 * records carry the argument registers the trampoline saved below the
 * return slot (ftrace.h). While it is on, entries take the full path.
 * Context: the tracefs lock.
 */
void trev__fg_args_set(bool on);

/*
 * trev__fg_entry_alone() - trev__fg_entry(@ip, @slot, true) in an RCU read
 * section of its own, as an int (trev__ft_entry_jmp() returns it): the graph
 * trampoline's full call while function_graph is the top's tracer with
 * nothing else of the function tracer on (no command, profiler, instance,
 * pid list).
 * Context: trev__ft_entry_jmp(); as trev__fg_entry(), outside a read section.
 */
int trev__fg_entry_alone(unsigned long ip, unsigned long *slot);

/*
 * trev__fg_entry_fast() - trev__fg_entry_alone() where that calls nothing
 * out of line: the graph trampoline's fast call while function_graph is
 * alone (trampoline.c).
 * Return: 1 when a frame was pushed, 0 when none is, TREV_FT_FULL (ft_fast.h) when
 * nothing was done and trev__ft_entry_jmp() must run.
 * Context: as trev__fg_entry_alone().
 */
int trev__fg_entry_fast(unsigned long ip, unsigned long *slot);

/* What trev__fg_exit() gives the return trampoline, in rax and rdx. */
struct trev_fg_ret {
	unsigned long to;	/* the real return address */
	unsigned long called;	/* not 0: the graph trampoline called the function, so
				 * the return stack predicts @to: go there with `ret` */
};

/* The return trampoline (assembly in trampoline.c) and the C function it calls. */
void trev__fg_return(void);
struct trev_fg_ret trev__fg_exit(unsigned long *slot);
/*
 * trev__fg_exit_fast() - trev__fg_exit() of the plain case (the top frame,
 * records on, the ring's fast path), which calls nothing out of line: the
 * return trampoline's fast call (trampoline.c).
 * Return: as trev__fg_exit(); .to 0 when nothing was done and
 * trev__fg_exit() must run.
 */
struct trev_fg_ret trev__fg_exit_fast(unsigned long *slot);

/*
 * trev__fg_set() - switch the graph records on or off (current_tracer)
 * @tr: the instance its events write to (the top one)
 */
void trev__fg_set(struct trev_trace_array *tr, bool on);

/* Replace the site map (NULL: no set_graph_* list); frees the old one after a grace period. */
void trev__fg_map_replace(struct trev_fg_map *map);

/* tracing_thresh (ns; 0 = off) and max_graph_depth (0 = no limit). */
void trev__fg_set_thresh(unsigned long long ns);
unsigned long long trev__fg_thresh(void);
void trev__fg_set_max_depth(unsigned int depth);
unsigned int trev__fg_max_depth(void);

/*
 * tracing_max_latency (ns): under function_graph, the longest call tree (a
 * root's call, depth 0) seen since it was last written, or with
 * tracing_thresh the last that lasted at least that long; with the option
 * funcgraph-snapshot, each new one swaps the buffer into the snapshot.
 */
void trev__fg_set_max_latency(unsigned long long ns);
unsigned long long trev__fg_max_latency(void);

/*
 * Hooks on the same frames, for the function profiler's time columns
 * (func_profile.c). One user at a time. They run while function_graph is
 * the tracer and, with function_graph off, for the entries the entry
 * trampoline's C call, trev__ft_entry(), hands to trev__fg_entry() for the
 * profiler; the graph lists and max_graph_depth shape only the records.
 *
 * @entry: before the frame is pushed; @func, its @depth and @calltime (the
 *         instance's clock in ns, or @clock's while function_graph is off).
 *         Return false to leave the call alone: not pushed and its return
 *         not hooked when function_graph's records are off; else pushed for
 *         the records, without @exit.
 * @exit: at the return, before the frame's record; @calltime and
 *        @rettime on the same clock. Not for frames under set_graph_notrace.
 * Both run in the traced thread, possibly in a signal handler, inside an
 * RCU read section: the rules of trev__fg_entry() apply.
 */
struct trev_fg_hooks {
	bool (*entry)(unsigned long func, unsigned int depth, unsigned long long calltime);
	void (*exit)(unsigned long func, unsigned int depth, unsigned long long calltime,
		     unsigned long long rettime);
	struct trev_trace_array *clock;	/* whose clock times the frames while records are off */
};

/*
 * trev__fg_hooks_set() - install @h (NULL: remove); the caller patches the
 * sites it wants (trev__ftrace_set_tracer()'s lock is the one to hold).
 * Return: 0, or -EBUSY when another user holds them.
 */
int trev__fg_hooks_set(const struct trev_fg_hooks *h);

/*
 * Return probes (src/probe/, docs/probes.md): trev__fg_entry_probe() pushes
 * a frame that writes no graph record (as trev__fg_entry(), @called the
 * same); its return calls the function set with trev__fg_probe_exit_set()
 * with the function's site, where it returns to, and its return slot
 * (the return trampoline saved rax at slot[-2], rdx at slot[-3]), outside
 * any RCU read section (it takes its own; it may also change probe sites,
 * which waits for grace periods: the probe layer does so at dlopen()'s and
 * dlclose()'s returns). A site handler may push such a frame too, with
 * @slot its regs->sp at a function's first instruction (@called false).
 */
typedef void (*trev_fg_probe_exit_fn)(unsigned long func, unsigned long ret,
				      unsigned long *slot);
bool trev__fg_entry_probe(unsigned long ip, unsigned long *slot, bool called);
void trev__fg_probe_exit_set(trev_fg_probe_exit_fn fn);

/* Frames the thread's shadow stack dropped as stale, for tests and docs. */
unsigned long trev__fg_dropped(void);

#endif /* TREV_FGRAPH_H */
