/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event registry and trace instances (the kernel's trace.h and
 * trace_events.c state): which events exist, their ids, fields and files,
 * and the instance their records go to.
 */
#ifndef TREV_EVENTS_INTERNAL_H
#define TREV_EVENTS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <trev/ring_buffer.h>
#include <trev/trace_event.h>

#include "base/pid_list.h"

/* Ids of the built-in ftrace events, as the kernel numbers them (enum trace_type). */
#define TREV_TYPE_PRINT		5
#define TREV_TYPE_BPRINT	6
#define TREV_TYPE_KERNEL_STACK	12	/* the stacktrace trigger's records */
#define TREV_TYPE_BPUTS		14
#define TREV_TYPE_RAW_DATA	18
/* Events defined with TRACE_EVENT() get ids from here on, never reused. */
#define TREV_FIRST_EVENT_ID	1000
#define TREV_MAX_EVENT_ID	65535

/* Output options (trace_options), the kernel's TRACE_ITER_* meanings. */
#define TREV_ITER_PRINT_PARENT	0x0001u
#define TREV_ITER_SYM_OFFSET	0x0002u
#define TREV_ITER_SYM_ADDR	0x0004u
#define TREV_ITER_RAW		0x0008u
#define TREV_ITER_HEX		0x0010u
#define TREV_ITER_BIN		0x0020u
#define TREV_ITER_CONTEXT_INFO	0x0040u
#define TREV_ITER_LATENCY_FMT	0x0080u
#define TREV_ITER_IRQ_INFO	0x0100u
#define TREV_ITER_RECORD_TGID	0x0200u
/* function_graph's options (the kernel's TRACE_GRAPH_PRINT_*, src/ftrace/graph_output.c). */
#define TREV_ITER_FG_OVERRUN	0x0400u		/* funcgraph-overrun */
#define TREV_ITER_FG_CPU	0x0800u		/* funcgraph-cpu */
#define TREV_ITER_FG_OVERHEAD	0x1000u		/* funcgraph-overhead */
#define TREV_ITER_FG_PROC	0x2000u		/* funcgraph-proc */
#define TREV_ITER_FG_DURATION	0x4000u		/* funcgraph-duration */
#define TREV_ITER_FG_ABSTIME	0x8000u		/* funcgraph-abstime */
#define TREV_ITER_FG_IRQS	0x20000u	/* funcgraph-irqs */
#define TREV_ITER_FG_TAIL	0x40000u	/* funcgraph-tail */
#define TREV_ITER_DEFAULT	(TREV_ITER_PRINT_PARENT | TREV_ITER_CONTEXT_INFO | \
				 TREV_ITER_IRQ_INFO | TREV_ITER_FG_CPU | TREV_ITER_FG_OVERHEAD | \
				 TREV_ITER_FG_DURATION | TREV_ITER_FG_IRQS)
/* Not an option: the buffer's clock counts ns (the kernel's TRACE_FILE_TIME_IN_NS). */
#define TREV_ITER_TIME_IN_NS	0x10000u
/* The function tracer's option func_stack_trace (the kernel's TRACE_FUNC_OPT_STACK). */
#define TREV_ITER_FUNC_STACK_TRACE	0x100000u
/* funcgraph-snapshot: each new tracing_max_latency swaps into the snapshot (trev's own). */
#define TREV_ITER_FG_SNAPSHOT	0x200000u
/* options/stacktrace: a kernel_stack record after each event (the kernel's TRACE_ITER_STACKTRACE). */
#define TREV_ITER_STACKTRACE	0x400000u
/* options/event-fork: a fork()'s child joins its parent's set_event_pid (TRACE_ITER_EVENT_FORK). */
#define TREV_ITER_EVENT_FORK	0x800000u
/*
 * The function tracers' arguments and return values (the kernel's
 * TRACE_FUNC_OPT_ARGS, TRACE_GRAPH_ARGS, TRACE_GRAPH_PRINT_RETVAL and
 * TRACE_GRAPH_PRINT_RETVAL_HEX; docs/function-tracer.md, "Arguments and
 * return values").
 */
#define TREV_ITER_FUNC_ARGS	0x1000000u	/* func-args: ftrace/function records args[] */
#define TREV_ITER_FG_ARGS	0x2000000u	/* funcgraph-args: funcgraph_entry records args[] */
#define TREV_ITER_FG_RETVAL	0x4000000u	/* funcgraph-retval: the text shows retval */
#define TREV_ITER_FG_RETVAL_HEX	0x8000000u	/* funcgraph-retval-hex: always in hex */

struct trev_event_file;
struct trev_tracer;

/* The longest system or event name kept (tracefs paths, trigger locations). */
#define TREV_NAME_MAX	128

/* One error_log entry (the kernel's struct tracing_log_err). */
struct trev_err_entry {
	uint64_t ts;			/* trace clock, ns */
	char *loc;			/* "set_event", "hist:sched:sched_switch", ... */
	char *msg;			/* the error text */
	char *cmd;			/* the command written */
	int pos;			/* column of the error in @cmd */
};
#define TREV_ERR_LOG_MAX	16	/* the kernel keeps the last 16 */

/* A set_event_pid or set_event_notrace_pid list: replaced whole, freed after a grace period. */

/* tracing_cpumask's bits: as many as CPU_SETSIZE (trev_nr_cpumask_bits() is at most that). */
#define TREV_CPUMASK_WORDS	(1024 / (8 * sizeof(unsigned long)))

/* A trace instance (the kernel's struct trace_array); see instance.c. */
struct trev_trace_array {
	char *name;			/* "" for the top instance */
	struct trev_rb *rb;		/* where its records go; swapped by snapshot */
	struct trev_rb *snapshot;	/* the snapshot buffer, NULL until allocated */
	pthread_rwlock_t buf_lock;	/* readers of rb vs. a snapshot swap */
	unsigned long trace_flags;	/* TREV_ITER_*; written under tfs_lock with atomics,
					 * read by trace_pipe without it */
	struct trev_event_file **files;	/* by event id (named instances only) */
	unsigned int nr_files;
	int ref;			/* open control files (tracefs lock) */
	struct trev_err_entry errs[TREV_ERR_LOG_MAX]; /* error_log ring (tracefs lock) */
	unsigned int nr_errs;		/* entries ever logged */
	struct trev_sys_filter *sys_filters; /* events/<sys>/filter texts */
	_Atomic int snap_arms;		/* snapshot triggers: probes may swap */
	_Atomic unsigned long snap_swaps; /* swaps done by probes */
	unsigned long snap_settled;	/* snap_swaps at the last grace period (tfs lock) */
	_Atomic unsigned long snap_refused; /* probe swaps refused (buffers busy) */
	int lent;			/* rb lent to recorders (trev__instance_lend()): no swaps */
	int buf_holders;		/* streamed readers walking rb or snapshot (tfs lock) */
	struct trev_rb_held *freed;	/* snapshot buffers freed while held (tfs lock) */
	const struct trev_tracer *tracer; /* current_tracer (events/tracer.h; NULL: nop) */
	/* set_event_pid [0], set_event_notrace_pid [1]: RCU, NULL when empty (inst_filter.c) */
	struct trev_pid_list *_Atomic event_pids[2];
	/* tracing_cpumask, inverted: a set bit is a CPU whose events are not recorded */
	_Atomic unsigned long cpus_off[TREV_CPUMASK_WORDS];
	unsigned int file_bits;		/* TREV_FILE_FL_INST bits its files carry (registry lock) */
	struct trev_trace_array *next;	/* named instances list */
};

/* A snapshot buffer freed while a reader walks it: destroyed when the last one is done. */
struct trev_rb_held {
	struct trev_rb *rb;
	struct trev_rb_held *next;
};

/* The text last written to events/<system>/filter of an instance. */
struct trev_sys_filter {
	char *system;
	char *text;
	struct trev_sys_filter *next;
};

/*
 * Flags of struct trev_event_file (the kernel's EVENT_FILE_FL_*). The
 * TREV_FILE_FL_SLOW bits are all below 0x80, so that the probe's one test
 * of them takes an 8-bit immediate (a wider one costs an instruction of
 * padding in trev_event_write(): docs/benchmarks.md).
 */
#define TREV_FILE_FL_ENABLED		0x1u	/* the probe is registered */
#define TREV_FILE_FL_STACK		0x2u	/* options/stacktrace: a stack after each record */
#define TREV_FILE_FL_SOFT_DISABLED	0x4u	/* registered, records nothing */
#define TREV_FILE_FL_FILTERED		0x8u	/* ->filter is set */
#define TREV_FILE_FL_TRIGGER_MODE	0x10u	/* ->triggers is not empty */
#define TREV_FILE_FL_PID		0x20u	/* set_event_pid or set_event_notrace_pid is set */
#define TREV_FILE_FL_CPUMASK		0x40u	/* tracing_cpumask leaves a CPU out */
#define TREV_FILE_FL_SOFT_MODE		0x100u	/* registered for triggers */
#define TREV_FILE_FL_TRIGGER_COND	0x200u	/* a trigger needs the record */
/* The instance's, on each of its files (inst_filter.c). */
#define TREV_FILE_FL_INST	(TREV_FILE_FL_PID | TREV_FILE_FL_CPUMASK | TREV_FILE_FL_STACK)
/* Any of these: the probe leaves the fast path (event_buffer.c). */
#define TREV_FILE_FL_SLOW	(TREV_FILE_FL_SOFT_DISABLED | TREV_FILE_FL_FILTERED | \
				 TREV_FILE_FL_TRIGGER_MODE | TREV_FILE_FL_INST)

/* An event in one instance: the probe's data pointer. */
struct trev_event_file {
	struct trev_event_call *call;
	struct trev_trace_array *tr;
	_Atomic unsigned int flags;	/* TREV_FILE_FL_* */
	int sm_ref;			/* soft-mode users; under events_lock */
	struct trev_filter *filter;	/* RCU; NULL = none; holds its text (src/filter/) */
	struct trev_event_trigger *triggers; /* RCU list (src/trigger/) */
};

/* One field of an event's records. */
struct trev_field {
	char *type;		/* as the format file shows it */
	char *name;
	int offset;
	int size;
	int is_signed;
	int filter_type;	/* enum trev_filter_type */
};

/* Which return addresses of a backtrace belong to the tracing machinery (write/kernel_stack.c). */
struct trev_stack_skip {
	unsigned long iter_lo, iter_hi;	  /* __traceiter_<event>(), maybe with the probe inlined */
	unsigned long probe_lo, probe_hi; /* the event's probe function */
};

/* Library state of a registered event: call->rt. */
struct trev_event_rt {
	struct trev_event_file file;	/* the top instance's */
	struct trev_stack_skip stack_skip; /* options/stacktrace's, set when it is turned on */
	struct trev_field *fields;
	int nr_fields;
	int fields_cap;
	int nr_data_locs;		/* fields whose type starts "__data_loc" */
	char *print_fmt;		/* with TRACE_DEFINE_ENUM values; NULL: call->print_fmt */
};

static inline struct trev_event_rt *trev__event_rt(const struct trev_event_call *call)
{
	return (struct trev_event_rt *)call->rt;
}

/* The print fmt the format file shows: enum names replaced (eval_map.c). */
static inline const char *trev__event_print_fmt(const struct trev_event_call *call)
{
	const struct trev_event_rt *rt = trev__event_rt(call);

	return rt && rt->print_fmt ? rt->print_fmt : call->print_fmt;
}

int trev__eval_update_printk(char *fmt, const char *name, unsigned long value);
int trev__eval_print_fmt(const struct trev_event_call *call,
			 const struct trev_eval_map *const *start,
			 const struct trev_eval_map *const *stop, char **out);

/*
 * trev__events_register_module() - register the events and tracepoints of
 * an object whose module record @mod is in this library's layout (the
 * public entry points, frontend/register.c, convert older layouts); an
 * object registered twice is counted, not added again. Then the hook set
 * with trev__events_on_register() is told: the ids from @first_id on are
 * new, and @section (in the object's event or tracepoint section) names it.
 * trev__events_unregister_module() withdraws it at the last unregister.
 * Context: not a probe, not a signal handler; no registry lock held.
 */
/*
 * What hangs on an event file from the layer above (filters, triggers,
 * docs/architecture.md): release() frees it when the file goes (an instance
 * removed, an object unloaded), call_gone() drops what names @call before
 * the call goes (context: the registry lock held for writing);
 * triggers_call() and triggers_post_call() run the file's triggers for one
 * event, from the write path below them (src/trigger/trigger.h says how;
 * context: the event's probe). Set at start-up (frontend/init.c), before
 * anything can hang there.
 */
struct trev__event_file_ops {
	void (*release)(struct trev_event_file *file);
	void (*call_gone)(struct trev_event_call *call);
	unsigned int (*triggers_call)(struct trev_event_file *file, void *rec, unsigned int len);
	void (*triggers_post_call)(struct trev_event_file *file, unsigned int tt);
};
void trev__event_file_ops_set(const struct trev__event_file_ops *ops);
/* The file's filter and triggers go (no probe uses them any more). */
void trev__event_file_release(struct trev_event_file *file);
/* The write path's calls of the file's triggers, through the ops above (0: none set). */
unsigned int trev__event_triggers_call(struct trev_event_file *file, void *rec, unsigned int len);
void trev__event_triggers_post_call(struct trev_event_file *file, unsigned int tt);

typedef void (*trev__events_registered_fn)(unsigned int first_id, const void *section);
void trev__events_on_register(trev__events_registered_fn fn);
void trev__events_register_module(const struct trev_module *mod);
void trev__events_unregister_module(const struct trev_module *mod);

/* The top instance, made on first use. Context: not signal-safe the first time. */
struct trev_trace_array *trev__top_instance(void);
/* The top instance if it exists, else NULL. Context: any, signal-safe. */
struct trev_trace_array *trev__top_instance_if_made(void);
/* The top instance's buffer size in KiB when it is made (0: the default); frontend/env.c. */
void trev__top_size_kb_set(unsigned int kb);

/*
 * Where the top instance's region is made: a higher layer's hook (the
 * flight recorder, frontend/flight.c), set at start-up before the top
 * instance exists. open() returns a file to make the region in, or -1 for
 * an anonymous memfd; abandon() is told when that file could not be used.
 */
struct trev__top_region_ops {
	int (*open)(void);
	void (*abandon)(int fd);
};
void trev__top_region_set(const struct trev__top_region_ops *ops);

/*
 * In the child that writes a dying process's trace (frontend/crash.c), the one
 * thread left: the registry's and the instances' locks made anew, as no
 * thread that held one exists there. Context: async-signal-safe.
 */
void trev__events_crash_child(void);
void trev__instances_crash_child(void);

/*
 * Named instances (instance.c). All under the registry lock: lookup and
 * for_each for reading, create and remove for writing. "" names the top.
 */
struct trev_trace_array *trev__instance_lookup(const char *name);
int trev__instance_for_each(int (*fn)(struct trev_trace_array *tr, void *arg), void *arg);
/*
 * trev__instance_create_locked() - Context: tfs_lock held too (a refusal
 * for want of a ring buffer, -ENOSPC, is logged in the top's error_log).
 * Return: 0, -EEXIST, -ENOMEM, -ENOSPC (64 ring buffers exist).
 */
int trev__instance_create_locked(const char *name);
int trev__instance_remove_locked(struct trev_trace_array *tr);
/* The instance's file of @call (made when @create); under the registry lock. */
struct trev_event_file *trev__event_file(struct trev_trace_array *tr,
					 struct trev_event_call *call, bool create);
/* @call is going away: free its files in the named instances. */
void trev__event_files_drop(struct trev_event_call *call);

/*
 * The snapshot file (echo 1/0/2 > snapshot): swap the main and snapshot
 * buffers (allocating it), free it, clear it. A buffer freed while a
 * streamed reader holds the instance's buffers leaves the instance at once
 * and is destroyed by the last trev__instance_buffers_put(). Context: the
 * tracefs lock.
 */
int trev__snapshot_take(struct trev_trace_array *tr);
int trev__snapshot_free(struct trev_trace_array *tr);
int trev__snapshot_clear(struct trev_trace_array *tr);
/*
 * A reader that walks a buffer of @tr across calls without tr->buf_lock
 * (the `trace` and `snapshot` streams) holds the instance's buffers from
 * its open to its release: whichever of them it walks, swapped or freed
 * meanwhile, stays alive until put. Context: the tracefs lock.
 */
void trev__instance_buffers_get(struct trev_trace_array *tr);
void trev__instance_buffers_put(struct trev_trace_array *tr);
/*
 * The snapshot trigger (docs/triggers.md, "snapshot"): arm allocates the
 * snapshot buffer and lets probes swap; disarm undoes one arm (registry
 * lock). trev__snapshot_swap_probe() swaps from a probe, without waiting:
 * false (counted in snap_refused) when the buffers are busy.
 * trev__snapshot_settle() waits for the writers of a buffer a probe swapped
 * out, before it is read as the snapshot (tfs lock, no RCU read side).
 */
/*
 * trev__instance_lend() - lend the top instance's buffer to a recorder in
 * another process: *@memfd is its region, and with @consume its consuming
 * position goes with it (trev_rb_lend_consumer()). While lent, snapshot
 * swaps are refused (-EBUSY, or counted in snap_refused from a probe), so
 * the region handed out stays the buffer events go to.
 * trev__instance_unlend() ends one lend. Return: 0 or -errno.
 */
int trev__instance_lend(bool consume, int *memfd);
void trev__instance_unlend(bool consume);
/* The staged events a consuming borrower hands back (trev_rb_stage_import()). */
int trev__instance_restage(const void *buf, size_t len);
/* The top instance's staged events, to its consuming borrower (trev_rb_stage_export()). */
ssize_t trev__instance_unstage(void *buf, size_t size);
/* In a forked child: its buffers are its own, lent to nobody. */
void trev__instance_lends_forget(void);
int trev__snapshot_arm(struct trev_trace_array *tr);
void trev__snapshot_disarm(struct trev_trace_array *tr);
bool trev__snapshot_swap_probe(struct trev_trace_array *tr);
void trev__snapshot_settle(struct trev_trace_array *tr);

/* The registry lock for writing (instance create/remove, control writes). */
void trev__events_write_lock(void);
void trev__events_write_unlock(void);

/*
 * The registry lock: held for reading while a record is printed (its
 * event's code and text must stay mapped), for writing while events come
 * and go.
 */
void trev__events_read_lock(void);
void trev__events_read_unlock(void);

/* Under the read lock: the event with @id, or NULL. */
struct trev_event_call *trev__event_by_id(unsigned int id);
/* Under the read lock: visit every registered event, in id order; stop on non-zero. */
int trev__events_for_each(int (*fn)(struct trev_event_call *call, void *arg), void *arg);

/*
 * trev__set_event() - set_event syntax: "[!][system:]event", "system:*",
 * "*:*"; "!" disables; in the top instance.
 * Return: 0, -EINVAL when nothing matched, -ENOMEM.
 * Context: not under the registry lock.
 */
int trev__set_event(const char *spec);
/* The same, only for events with ids from @min_id on. */
int trev__set_event_from(const char *spec, unsigned int min_id);
/* The same in instance @tr; @min_id 0 for all events. */
int trev__set_event_tr(struct trev_trace_array *tr, const char *spec, unsigned int min_id);
/*
 * Enable or disable one event in @tr, or every event of a system (@event
 * NULL), or all (@system and @event NULL), as the events/.../enable files
 * do. Return: 0, -ENOENT when nothing matched, or a negative errno.
 */
int trev__event_enable(struct trev_trace_array *tr, const char *system, const char *event,
		       bool enable);
/* Disable every event of @tr (removing an instance, opening set_event with O_TRUNC). */
void trev__events_disable_all(struct trev_trace_array *tr);
/* Soft mode for triggers: probe registered, records only while enabled (top instance). */
int trev__event_soft_mode(struct trev_event_call *call, bool take);
/* The same for one instance's file; under the registry lock for writing. */
int trev__file_soft_mode_locked(struct trev_event_file *file, bool take);

/*
 * trev__events_register_builtin() - register one of the built-in ftrace
 * events (write/write.h) under its fixed id @type (TREV_TYPE_*).
 * Return: 0 or a negative errno (logged).
 */
int trev__events_register_builtin(struct trev_event_call *call, unsigned int type);

struct trev_buf;
/*
 * inst_filter.c: which threads and CPUs an instance records events from.
 *
 * trev__inst_file_bits() - the TREV_FILE_FL_INST bits a file of @call in
 * @tr carries now (a new file starts with them). Context: registry lock.
 */
unsigned int trev__inst_file_bits(const struct trev_trace_array *tr,
				  const struct trev_event_call *call);
/*
 * trev__inst_bits_set() - set (@on) or clear @bits (TREV_FILE_FL_INST) on
 * every event file of @tr that they apply to: PID and STACK on events
 * defined with TRACE_EVENT(), CPUMASK on all. Context: the registry lock
 * held for writing.
 */
void trev__inst_bits_set(struct trev_trace_array *tr, unsigned int bits, bool on);
/*
 * set_event_pid (@notrace false) and set_event_notrace_pid (true) of @tr:
 * write adds the thread ids of @text (decimal, space-separated) to the
 * list; a bad one (column in *@err_pos) refuses the whole write with
 * -EINVAL and the list stays. clear empties it; show prints one per line.
 * Context: not in a probe; they take the registry lock.
 */
int trev__event_pids_write(struct trev_trace_array *tr, bool notrace, const char *text,
			   size_t len, int *err_pos);
void trev__event_pids_clear(struct trev_trace_array *tr, bool notrace);
int trev__event_pids_show(struct trev_trace_array *tr, bool notrace, struct trev_buf *out);
/*
 * tracing_cpumask of @tr: the kernel's "%*pb" (hex, 32-bit groups split
 * by commas, trev_nr_cpumask_bits() bits). A write of a mask with a bit
 * past the last CPU or not in that form is refused (-EINVAL, *@why, the
 * column in *@err_pos) and the mask stays. Context: as above.
 */
int trev__cpumask_write(struct trev_trace_array *tr, const char *text, size_t len,
			int *err_pos, const char **why);
int trev__cpumask_show(struct trev_trace_array *tr, struct trev_buf *out);
/*
 * trev__inst_ignores() - whether @tr's set_event_pid, set_event_notrace_pid
 * (@flags has TREV_FILE_FL_PID) or tracing_cpumask (TREV_FILE_FL_CPUMASK)
 * leave out an event of thread @tid on CPU @cpu.
 * Context: the event's probe (inside an RCU read section), signal-safe.
 */
bool trev__inst_ignores(const struct trev_trace_array *tr, unsigned int flags, pid_t tid,
			int cpu);
/*
 * trev__events_register_dynamic() - register an event made at run time (a
 * synthetic event, src/trigger/synth.c) under the next free id; its class's
 * define_fields() runs here. trev__events_unregister_dynamic() withdraws it:
 * -EBUSY while its probe is registered in any instance (enabled, or in soft
 * mode for a trigger), as the kernel's probe_remove_event_call() refuses.
 * Return: 0 or a negative errno. Context: not under the registry lock.
 */
int trev__events_register_dynamic(struct trev_event_call *call);
int trev__events_unregister_dynamic(struct trev_event_call *call);

/* Format texts. Return: 0 and a malloc'd string, or -errno. */
int trev__event_format_text(struct trev_event_call *call, char **text);
extern const char trev__header_page_text[];
extern const char trev__header_event_text[];

/* error_log.c: an instance's error_log. */
struct trev_buf;
/*
 * trev__tracing_log_err() - add an error_log entry in the kernel's shape and keep it:
 *   [   12.345678] @loc: error: @msg
 *     Command: @cmd
 *                ^ (under column @pos)
 * Context: tfs_lock held (it guards @tr->errs).
 */
void trev__tracing_log_err(struct trev_trace_array *tr, const char *loc, const char *cmd,
			   int pos, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The error_log file's text; the write that clears it. Context: tfs_lock held. */
int trev__error_log_show(struct trev_trace_array *tr, struct trev_buf *out);
void trev__error_log_clear(struct trev_trace_array *tr);

#endif /* TREV_EVENTS_INTERNAL_H */
