/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function commands of set_ftrace_filter ("glob:traceoff:3", the
 * kernel's function probes) and the func_stack_trace option
 * (func_cmd.c): what ftrace.c calls, under its lock and from the
 * trampoline's C side. docs/function-tracer.md, "Function commands".
 */
#ifndef TREV_FUNC_CMD_H
#define TREV_FUNC_CMD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "events/events_internal.h"
#include "ftrace/ftrace.h"

struct trev_buf;
struct fc_ent;

/* Bits of trev__ft_extra: what the trampoline does besides the tracer's record. */
#define TREV_FT_EXTRA_PROBES	0x1u	/* some function has a command */
#define TREV_FT_EXTRA_STACK	0x2u	/* func_stack_trace: a stack after each record */
#define TREV_FT_EXTRA_PROFILE	0x4u	/* function_profile_enabled (func_profile.c) */
#define TREV_FT_EXTRA_INST	0x8u	/* an instance runs the function tracer (ftrace.c) */
#define TREV_FT_EXTRA_NOPID	0x10u	/* the top's set_ftrace_notrace_pid is not empty */
#define TREV_FT_EXTRA_ARGS	0x20u	/* the top's func-args or funcgraph-args: the registers */
extern _Atomic unsigned int trev__ft_extra;

/* ------------------------------------------------------------------ */
/* What ftrace.c offers func_cmd.c                                      */

typedef void (*trev_ft_match_fn)(void *arg, uintptr_t addr, const char *name,
				 const char *mod);
/*
 * trev__ft_match() - call @fn for every listed function whose name matches
 * @glob and, when @mod is not NULL, whose module matches @mod.
 * Return: how many. Context: ft_lock.
 */
int trev__ft_match(const char *glob, const char *mod, trev_ft_match_fn fn, void *arg);
/* The function at @addr is selected by set_ftrace_filter/notrace. Context: ft_lock. */
bool trev__ft_selected(uintptr_t addr);
/* Its name, or NULL when no listed function is there. Context: ft_lock. */
const char *trev__ft_site_name(uintptr_t addr);

/* ------------------------------------------------------------------ */
/* The control side (ftrace.c, under ft_lock)                            */

/*
 * trev__fc_term() - one term of a write of instance @tr's set_ftrace_filter
 * that names a command: "[!]FUNC[:mod:MOD]:CMD[:ARG]", split by ftrace.c
 * into @func, @mod and @cmd ("CMD[:ARG]"); @term is the whole term (for
 * error columns). The command acts on @tr (its tracing_on, snapshot,
 * events, buffer), as the kernel's probes of tr->func_probes.
 * Adding or removing is staged until trev__fc_commit() or trev__fc_abort().
 * Context: ft_lock and the registry lock for writing.
 * Return: 1, or a negative errno with *@off (column in @term) and *@why set.
 */
int trev__fc_term(struct trev_trace_array *tr, enum trev_ft_list list, const char *term,
		  const char *func, const char *mod, char *cmd, bool remove, int *off,
		  const char **why);
/* The write's terms all passed: make the staged changes the commands in force. */
void trev__fc_commit(void);
/* A term was refused: forget what this write staged. Context: also the registry lock. */
void trev__fc_abort(void);
/*
 * Free what no longer has a function (after the publish of ft_apply):
 * with @locked (the registry lock held for writing) also the commands'
 * resources (a snapshot buffer's arm, an event's soft mode).
 */
void trev__fc_reap(bool locked);

/* Some function has a command: its site is patched whatever the tracer. */
bool trev__fc_site_probed(uintptr_t addr);
bool trev__fc_any(void);
/*
 * trev__fc_publish() - make the table the trampoline reads: the functions
 * with commands, and which of them the tracer records (trev__ft_selected()).
 * @transition: also keep the functions of the table in force (before a
 * batch changes sites: a call to a site still patched finds its entry).
 * Waits a grace period when it replaced a table. Context: ft_lock.
 */
int trev__fc_publish(bool transition);
/* The functions of [@lo, @hi] leave (their object is unloaded). Context: ft_lock. */
void trev__fc_sites_gone(uintptr_t lo, uintptr_t hi);
/* After the plain functions of @tr's set_ftrace_filter: its "func:cmd:..." lines. */
int trev__fc_show(const struct trev_trace_array *tr, struct trev_buf *out);
/*
 * Instance @tr goes: its commands are unlinked (the kernel's
 * clear_ftrace_function_probes()); the caller publishes (ft_apply) and
 * reaps with the registry lock. Context: ft_lock and the registry lock.
 */
void trev__fc_instance_gone(const struct trev_trace_array *tr);
/* Prime the unwinder (its first call loads libgcc_s): not under ft_lock. */
void trev__fc_stack_prepare(void);

/* ------------------------------------------------------------------ */
/* The trampoline's side (trev__ft_entry(), inside an RCU read section)  */

/* The commands of the function at @ip, or NULL. Context: any thread, signal-safe. */
const struct fc_ent *trev__fc_lookup(unsigned long ip);
/* The tracer records that function (its selection when the table was made). */
bool trev__fc_traced(const struct fc_ent *e);
/*
 * trev__fc_run() - run the commands of @e, counts taken with atomics
 * @ra: the return address into the trampoline (the stack's skip point)
 * Return: a dump to do after the read section (trev__fc_dump()), or 0.
 */
unsigned int trev__fc_run(const struct fc_ent *e, void *ra);
/* Out of the read section: the dump or cpudump trev__fc_run() asked for. */
void trev__fc_dump(unsigned int what);
/* func_stack_trace: a kernel_stack record after the function's, in @tr. */
void trev__fc_stack(struct trev_trace_array *tr, void *ra);

/* ------------------------------------------------------------------ */
/* The function profiler (func_profile.c)                               */

/*
 * trev__fp_publish() - with @on, a new table of the selected functions
 * (zeroed with @reset, else carrying the counts over) for the trampoline
 * to count in, @nr_cpus counters each; without, counting stops and the
 * counts stay. Context: ft_lock. Return: 0 or -ENOMEM.
 */
int trev__fp_publish(bool on, bool reset, int nr_cpus);
/* One call of the function at @ip. Context: inside an RCU read section, signal-safe. */
void trev__fp_hit(unsigned long ip);
/* trace_stat/function<@cpu>. Context: ft_lock. */
int trev__fp_show(int cpu, struct trev_buf *out);

#endif /* TREV_FUNC_CMD_H */
