/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function tracer (layer 3, docs/function-tracer.md): the patchable
 * entries of registered objects, their selection (set_ftrace_filter,
 * set_ftrace_notrace, set_ftrace_pid), the tracer's switch, and the
 * ftrace/function event its records are. tracefs (files_ftrace.c) calls it.
 */
#ifndef TREV_FTRACE_H
#define TREV_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <trev/common.h>

#include "events/events_internal.h"

struct trev_buf;

/* The kernel's TRACE_FN: ftrace/function's id. */
#define TREV_TYPE_FN		1

extern struct trev_event_call trev__ftrace_event_function;

/* The public entry points of <trev/fentry.h>. */
TREV_API void trev_function_register(const void *const *start, const void *const *stop);
TREV_API void trev_function_unregister(const void *const *start);

/*
 * Register ftrace/function and funcgraph under their ids, their printers
 * and the tracers function and function_graph (frontend/init.c, at start-up).
 */
void trev__ftrace_fn_register(void);
/* The tracers and printers of tracers.c (called by trev__ftrace_fn_register()). */
void trev__ftrace_tracers_register(void);
/* The program's entries, read from its ELF file before its constructors run. */
void trev__ftrace_register_program(void);

/* The engine's modes: the tracers function and function_graph (tracers.c), or none. */
enum trev_ft_mode {
	TREV_TRACER_NOP,
	TREV_TRACER_FUNCTION,
	TREV_TRACER_GRAPH,	/* function_graph: the top instance only */
};

/*
 * trev__ftrace_set_tracer() - switch instance @tr's tracer: patch the sites
 * it selects to call the trampoline, or put the nops back where no instance
 * wants them any more. function_graph is the top instance's only.
 * Return: 0, or a negative errno with @why set to a message for error_log
 * (-EBUSY: a thread blocks SIGTRAP; -ENOSYS: no membarrier SYNC_CORE;
 * -ENOSPC: too many instances trace functions). Context: the tracefs lock.
 */
int trev__ftrace_set_tracer(struct trev_trace_array *tr, enum trev_ft_mode tracer,
			    const char **why);

/*
 * trev__ftrace_instance_remove() - instance @tr goes (rmdir): its tracer
 * stops, as the kernel's __remove_instance() sets nop, its lists and pid
 * lists go, and no trampoline call uses it any more when this returns.
 * Context: the tracefs lock, before the instance is freed.
 */
void trev__ftrace_instance_remove(struct trev_trace_array *tr);

/* Which list a filter call works on. */
enum trev_ft_list {
	TREV_FT_FILTER,		/* set_ftrace_filter */
	TREV_FT_NOTRACE,	/* set_ftrace_notrace */
	TREV_FT_GRAPH,		/* set_graph_function */
	TREV_FT_GRAPH_NOTRACE,	/* set_graph_notrace */
};

/*
 * The lists of instance @tr: set_ftrace_filter and set_ftrace_notrace in
 * every instance, set_graph_function and set_graph_notrace in the top one.
 */

/* Empty @list (opening its file with O_TRUNC). */
int trev__ftrace_list_clear(struct trev_trace_array *tr, enum trev_ft_list list);

/*
 * trev__ftrace_list_write() - apply one write of set_ftrace_filter or
 * set_ftrace_notrace: whitespace-separated terms "glob", "!glob",
 * "glob:mod:NAME", ":mod:NAME"
 * @err_pos: on error, the column of the term at fault in @text
 * @why: on error, the message for error_log
 * All terms or none: a bad one leaves the list as it was. Function
 * commands only in the top instance's set_ftrace_filter.
 * Return: 0, -EINVAL (a term matched nothing, or an unknown command) or
 * -ENOSPC (too many instances trace functions).
 */
int trev__ftrace_list_write(struct trev_trace_array *tr, enum trev_ft_list list,
			    const char *text, size_t len, int *err_pos, const char **why);

/* The files' texts. Return: 0 or -ENOMEM. */
int trev__ftrace_list_show(struct trev_trace_array *tr, enum trev_ft_list list,
			   struct trev_buf *out);
int trev__ftrace_available_show(struct trev_buf *out);

/*
 * options/func_stack_trace of @tr was set to @on: with the function tracer,
 * each ftrace/function record of @tr is followed by a kernel_stack record
 * (func_cmd.c; an instance's option is read by the trampoline's instance
 * path, this only primes the unwinder). Context: the tracefs lock.
 */
void trev__ftrace_func_stack_set(struct trev_trace_array *tr, bool on);

/*
 * options/func-args or options/funcgraph-args of @tr was set or cleared
 * (its trace_flags hold the new value): while one of the top instance's is
 * on, its traced calls take the full call,
 * whose C code reads the argument registers the trampoline saved (the fast
 * calls never do: off, a traced call costs what it did). An instance's
 * func-args is read where its records are made; funcgraph-args is the top
 * instance's only, as function_graph is. Context: the tracefs lock.
 */
void trev__ftrace_args_set(struct trev_trace_array *tr);

/* The argument registers a traced call's records carry (the kernel's FTRACE_REGS_MAX_ARGS). */
#define TREV_FT_NR_ARGS		6

/*
 * function_profile_enabled: count the selected functions' calls per CPU
 * (func_profile.c); enabling starts the counts from zero. Return: 0 or a
 * negative errno with @why set, as trev__ftrace_set_tracer().
 */
int trev__ftrace_profile_set(bool on, const char **why);
bool trev__ftrace_profile_on(void);
/* trace_stat/function<@cpu>: the kernel's "Function  Hit" table. */
int trev__ftrace_profile_show(int cpu, struct trev_buf *out);

/*
 * The stack tracer (stack_tracer.c, docs/function-tracer.md "The stack
 * tracer"): stack_tracer_enabled patches the functions of
 * stack_trace_filter (all when it is empty) and measures the stack at
 * their entries. trev__ftrace_stack_set() returns 0 or a negative errno
 * with @why set, as trev__ftrace_set_tracer(). Context: the tracefs lock.
 */
int trev__ftrace_stack_set(bool on, const char **why);
bool trev__ftrace_stack_on(void);
/* stack_trace_filter: set_ftrace_filter's syntax, without function commands. */
int trev__ftrace_stack_filter_clear(void);
int trev__ftrace_stack_filter_write(const char *text, size_t len, int *err_pos, const char **why);
int trev__ftrace_stack_filter_show(struct trev_buf *out);

/* function_graph's max_graph_depth (0 = no limit) and tracing_thresh (ns, 0 = off). */
unsigned int trev__ftrace_graph_max_depth(void);
void trev__ftrace_graph_set_max_depth(unsigned int depth);
unsigned long long trev__ftrace_graph_thresh(void);
void trev__ftrace_graph_set_thresh(unsigned long long ns);

/*
 * set_ftrace_pid (@notrace false) and set_ftrace_notrace_pid (true) of
 * instance @tr: thread ids. A thread is traced when it is not in the
 * notrace list and the other list is empty or holds it. Write: -EINVAL
 * with *@err_pos at a word that is not a thread id, -ENOSPC as above.
 */
int trev__ftrace_pid_clear(struct trev_trace_array *tr, bool notrace);
int trev__ftrace_pid_write(struct trev_trace_array *tr, bool notrace, const char *text,
			   size_t len, int *err_pos);
int trev__ftrace_pid_show(struct trev_trace_array *tr, bool notrace, struct trev_buf *out);

/*
 * Probes at patchable entries (src/probe/, docs/probes.md). The full call
 * of a trampoline gets the callee-saved registers the trampoline pushed
 * (struct trev_ft_cs); the argument registers are in the trampoline's
 * frame, below @slot (the stack word holding the return address into the
 * caller; the probed function's stack pointer at its entry):
 *   slot[-3] rax, slot[-4] rdi, slot[-5] rsi, slot[-6] rdx, slot[-7] rcx,
 *   slot[-8] r8, slot[-9] r9, slot[-10] r10
 * (both trampolines lay them out so). r11 is scratch at a call.
 */
struct trev_ft_cs {
	unsigned long bx, bp, r12, r13, r14, r15;
};

/*
 * The probe layer's handler of a probed entry: @ip the site. Return: true
 * when the site has a return probe: the caller pushes a frame whose
 * return calls @exit (trev__fg_entry_probe()).
 */
typedef bool (*trev_ft_probe_fn)(unsigned long ip, unsigned long *slot,
				 const struct trev_ft_cs *cs);
/* A probed function returned: its site @func, its return address @ret, its return slot. */
typedef void (*trev_ft_probe_exit_fn)(unsigned long func, unsigned long ret, unsigned long *slot);

/*
 * The probe layer's fast call at a probed entry (the tracer nop, no
 * instance tracing functions): the registers as trev_ft_probe_fn has them
 * but the callee-saved ones (slot[-2] is rbp). It must call nothing out of
 * line but the ring's RB_LEAVE_SLOW and write no vector register (built as
 * src/ftrace/ft_fast.h says). Return: 0, done; TREV_FT_FULL: nothing was
 * done, the trampoline makes the full call (trev_ft_probe_fn).
 * Context: the trampoline's fast call, inside an RCU read section.
 */
typedef int (*trev_ft_probe_fast_fn)(unsigned long ip, unsigned long *slot);

/* Set the handlers, once, before the first trev__ftrace_probe_site() (src/probe/). */
void trev__ftrace_probe_hook_set(trev_ft_probe_fn fn, trev_ft_probe_exit_fn exit,
				 trev_ft_probe_fast_fn fast);

/*
 * trev__ftrace_probe_site() - the site at @addr gets (@on) or loses a
 * probe: it is patched while one is on, and its calls reach the handler,
 * whatever the tracers do. Calls nest: as many offs as ons.
 * Return: 0; -ENOENT (not a patchable entry); or as trev__ftrace_set_tracer(),
 * with @why set. Context: the tracefs lock.
 */
int trev__ftrace_probe_site(uintptr_t addr, bool on, const char **why);

/*
 * trev__ftrace_probe_lookup() - the patchable entry of function @sym in
 * the object @path (NULL: any, the program first; "" the program only; a
 * name without '/': the library of that module name, "libfoo").
 * Return: 0 with *@addr, -ENOENT.
 */
int trev__ftrace_probe_lookup(const char *path, const char *sym, uintptr_t *addr);

/* @addr is a patchable entry of a registered object; its function's name in @name. */
bool trev__ftrace_probe_valid(uintptr_t addr, char *name, size_t size);

#endif /* TREV_FTRACE_H */
