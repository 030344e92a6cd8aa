/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function tracer (the kernel's ftrace.c and trace_functions.c): the
 * patchable entries of every registered object, which of them are
 * selected, the tracer's switch, and the record each traced call makes,
 * ftrace/function (id 1, the kernel's FTRACE_ENTRY_REG(function, ...)).
 *
 * Locking: ft_lock guards the modules, their sites and the lists. It is
 * taken from control files (under tfs_lock) and from an object's
 * constructor (under the loader's lock), so nothing done under it may
 * take the loader's lock: names come from the ELF files (elf_symtab.c),
 * never from dladdr() or dl_iterate_phdr(). A write of set_ftrace_filter
 * that may hold function commands takes the registry lock before ft_lock
 * (func_cmd.c); nothing under ft_lock takes the registry lock.
 *
 * Instances (the kernel's ftrace_ops of each trace_array): the top
 * instance's state is the variables ft_tracer, ft_list_set and ft_pids,
 * which the trampoline's fast path reads. A named instance that uses a
 * file of the function tracer gets a slot, 1 .. FT_MAX_INST - 1: its bit
 * in each site's imask[] (its lists) and in the table the trampoline reads
 * while some instance runs the tracer. A site is patched when any instance
 * (or a function command, or the profiler) wants it:
 *
 *   site --call--> trampoline --> trev__ft_entry()
 *        extra == 0 (only the top instance):  the top's record, as before
 *        TREV_FT_EXTRA_INST:  ft_itab lookup of the site: bit 0 the top's
 *                             record, bit N the record of slot N's instance
 */
#include "ftrace/ft_fast.h"	/* first: see there */

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>


#include <trev/tracepoint.h>

#include "base/buf.h"
#include "base/pid_list.h"
#include "base/rcu.h"
#include "base/log.h"
#include "ftrace/fgraph.h"
#include "ftrace/ftrace.h"
#include "ftrace/ftrace_internal.h"
#include "ftrace/func_cmd.h"
#include "ftrace/stack_tracer.h"
#include "output/graph_layout.h"
#include "output/sym_print.h"
#include "sym/demangle.h"
#include "sym/elf_symtab.h"
#include "sym/symbols.h"
#include "write/write_api.h"

/* Site flags. */
#define FT_FILTER	0x01u	/* in set_ftrace_filter */
#define FT_NOTRACE	0x02u	/* in set_ftrace_notrace */
#define FT_ON		0x04u	/* patched: calls the trampoline (or jumps: FT_JMP) */
#define FT_BAD		0x08u	/* not 5 bytes of nops: never patched, not listed */
#define FT_NEW		0x10u	/* the list being built by a write */
#define FT_GRAPH	0x20u	/* in set_graph_function */
#define FT_GNOTRACE	0x40u	/* in set_graph_notrace */
#define FT_JMP		0x80u	/* patched: jumps to its graph stub (function_graph) */
/* Per site: how many probes are on it, in the high bits of its flags. */
#define FT_PROBE_SHIFT	16
#define FT_PROBE_ONE	(1u << FT_PROBE_SHIFT)

struct ft_site {
	uintptr_t addr;			/* the 5 bytes at the function's entry */
	char *name;			/* its function; NULL until named */
	unsigned int flags;		/* FT_* */
	uint64_t imask[2];		/* slots whose set_ftrace_filter [0], set_ftrace_notrace [1]
					 * hold it (bit 0, the top's, unused: FT_FILTER, FT_NOTRACE) */
};

/* One object that registered its entries. */
struct ft_module {
	const void *const *key;		/* its __start___patchable_function_entries */
	int refs;			/* registrations (one per file that includes fentry.h) */
	struct ft_site *sites;		/* sorted by address */
	size_t nr_sites;
	char *path;			/* its file ("/proc/self/exe" for the program) */
	char *mod;			/* module name for " [mod]"; NULL for the program */
	uintptr_t bias;			/* load bias: run-time minus link-time address */
	uintptr_t target;		/* what its sites call: trampoline or stub */
	void *stub;			/* its near stub, or NULL */
	int stub_err;			/* trev__ft_stub_get()'s error, when it failed */
	uint8_t *gstubs;		/* its sites' graph stubs (gstubs_make()), or NULL */
	size_t gstubs_size;		/* their mapping's size */
	bool gstubs_failed;		/* no room for them: its sites call, under function_graph too */
	bool named;			/* sites[].name filled in */
	struct ft_module *next;
};

/* Thread ids of set_ftrace_pid; replaced whole, freed after a grace period. */
static pthread_mutex_t ft_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ft_module *ft_modules;	/* registration order (ft_lock) */
static enum trev_ft_mode ft_tracer;	/* current_tracer (ft_lock) */
static bool ft_list_set[4];		/* enum trev_ft_list: the list is not empty (ft_lock) */

/*
 * A term "FUNC:mod:LIB" of set_ftrace_filter or set_ftrace_notrace for a
 * library not registered yet (the kernel's ftrace_mod_load, kept for a
 * module not loaded yet): applied, and dropped, when LIB registers its
 * entries (trev_function_register(), at its dlopen()). Newest first.
 */
struct ft_pend {
	char *func;			/* as written: "" for ":mod:LIB", all its functions */
	char *mod;			/* LIB, compared whole with a module's name */
	struct ft_pend *next;
};

/* The top's pending terms of set_ftrace_filter [0] and set_ftrace_notrace [1] (ft_lock). */
static struct ft_pend *ft_pend_top[2];
static bool ft_profile;			/* function_profile_enabled (ft_lock) */
static bool ft_profile_reset;		/* the next profile table starts from zero (ft_lock) */
static _Atomic int ft_active;		/* enum trev_ft_mode trev__ft_entry() serves */
/*
 * NULL: every thread. Replaced whole with a release exchange, read with an
 * acquire load (what rcu_dereference() is on x86, and what TSan follows);
 * the old list is freed after an RCU grace period.
 */
static _Atomic(struct trev_pid_list *) ft_pids;
/* The top's set_ftrace_notrace_pid, as ft_pids; not NULL: TREV_FT_EXTRA_NOPID is set. */
static _Atomic(struct trev_pid_list *) ft_nopids;
static __thread pid_t ft_tid __attribute__((tls_model("initial-exec")));

#define FT_MAX_INST	64	/* slot 0 is the top instance's, 63 the stack tracer's, 62 the
				 * probes': 61 named instances */
#define FT_STACK_SLOT	(FT_MAX_INST - 1)
#define FT_PROBE_SLOT	(FT_MAX_INST - 2)

/* A named instance's function tracer. */
struct ft_inst {
	struct trev_trace_array *tr;	/* its instance */
	unsigned int slot;		/* 1 .. FT_MAX_INST - 1 */
	enum trev_ft_mode tracer;	/* nop or function (ft_lock) */
	bool list_set[2];		/* its filter / notrace list is not empty (ft_lock) */
	struct ft_pend *pend[2];	/* its pending ":mod:" terms, as ft_pend_top (ft_lock) */
	_Atomic(struct trev_pid_list *) pids;	/* set_ftrace_pid; NULL: every thread (as ft_pids) */
	_Atomic(struct trev_pid_list *) nopids; /* set_ftrace_notrace_pid; NULL: none */
	struct trev_event_file file;	/* its ftrace/function records go here */
};

/*
 * The stack tracer (stack_tracer.c) is a slot of its own: its bit in a site's
 * imask[TREV_FT_FILTER] is stack_trace_filter, in ft_inst_on its switch
 * (stack_tracer_enabled); the trampoline's instance path calls
 * trev__st_check() for it instead of writing a record. No instance gets it.
 */
static struct ft_inst ft_stack_inst = { .slot = FT_STACK_SLOT };
/*
 * The probes (src/probe/) are a slot too: its bit in a site's
 * imask[TREV_FT_FILTER] says the site has a probe on, its bit in
 * ft_inst_on that some site has; the slot is always "filtered". The
 * instance path calls ft_probe_fn for it.
 */
static struct ft_inst ft_probe_inst = { .slot = FT_PROBE_SLOT };
static unsigned int ft_probe_sites;	/* sites with a probe on (ft_lock) */
static trev_ft_probe_fn ft_probe_fn;
/* Called by the function trampoline itself after TREV_FT_PROBE; set before any probe is on. */
__attribute__((used)) trev_ft_probe_fast_fn trev__ft_probe_fast_fn;
/*
 * ft_inst_on holds the probes' slot and nothing else: with the tracer nop,
 * a patched site is a probed one and the probes' fast call may take it
 * (trev__ft_entry_fast()). Set by ft_apply() before its batch (relaxed:
 * a call racing with an instance's enable may miss that instance's record,
 * as a call racing with any enable may).
 */
static _Atomic bool ft_probe_alone;
/* By slot; [0] unused, [FT_STACK_SLOT] the stack tracer's, [FT_PROBE_SLOT] the probes' (ft_lock). */
static struct ft_inst *ft_insts[FT_MAX_INST] = { [FT_STACK_SLOT] = &ft_stack_inst,
						  [FT_PROBE_SLOT] = &ft_probe_inst };
/* The slots' instances and tracers for readers without ft_lock: plain values, never freed. */
static _Atomic(const struct trev_trace_array *) ft_slot_tr[FT_MAX_INST];
static _Atomic int ft_slot_tracer[FT_MAX_INST];
static uint64_t ft_inst_on;		/* slots whose tracer is function (ft_lock) */
static uint64_t ft_inst_filtered = 1ull << FT_PROBE_SLOT; /* slots whose set_ftrace_filter is
							    * not empty (ft_lock) */

/*
 * What trev__ft_entry() reads while TREV_FT_EXTRA_INST is set: every site
 * some instance records, sorted by address, with a mask of slots (bit 0:
 * the top instance, site_itab_mask()). Replaced whole under ft_lock before
 * a batch of patches, so a site patched for an instance finds its entry;
 * the old table is freed after a grace period. Published with a release
 * exchange, read with an acquire load, as ft_pids.
 */
struct ft_itab {
	_Atomic(struct ft_inst *) inst[FT_MAX_INST];	/* slot -> its instance; NULL: gone */
	size_t n;
	struct ft_ient {
		uintptr_t addr;		/* the site */
		uint64_t mask;		/* the slots that record its calls */
	} e[];
};
static _Atomic(struct ft_itab *) ft_itab;

/* ------------------------------------------------------------------ */
/* The record                                                           */

/*
 * Record layout (the kernel's struct ftrace_entry, 6.15 and later):
 *   OFFSET  SIZE  MEANING
 *   0       8     struct trev_entry (common fields)
 *   8       8     ip: the traced function's patched entry
 *   16      8     parent_ip: the return address into its caller
 *   24      0|48  args[]: with func-args, rdi, rsi, rdx, rcx, r8, r9 at the
 *                 entry (the record's size tells; the format says size 0)
 */
struct ftrace_entry {
	struct trev_entry ent;
	unsigned long ip;
	unsigned long parent_ip;
};

/* A record with its arguments: struct ftrace_entry, then args[]. */
struct ftrace_args_entry {
	struct trev_entry ent;
	unsigned long ip;
	unsigned long parent_ip;
	unsigned long args[TREV_FT_NR_ARGS];
};
_Static_assert(offsetof(struct ftrace_args_entry, args) == sizeof(struct ftrace_entry),
	       "args[] follows struct ftrace_entry's fields");

/*
 * The argument registers of a traced call, from the trampoline's frame
 * below @slot (ftrace.h: slot[-4] rdi ... slot[-9] r9).
 */
static inline void ft_args_of(const unsigned long *slot, unsigned long *args)
{
	for (int i = 0; i < TREV_FT_NR_ARGS; i++)
		args[i] = slot[-4 - i];
}

/* Whether @tr's func-args is on (relaxed: an option's word, as func_stack_trace's). */
static inline bool ft_args_on(const struct trev_trace_array *tr)
{
	return tr && (__atomic_load_n(&tr->trace_flags, __ATOMIC_RELAXED) & TREV_ITER_FUNC_ARGS);
}

/* One ftrace/function record of @rec into @file, with @rec's args when @tr has func-args. */
static void ft_fn_write(struct trev_event_file *file, const struct trev_trace_array *tr,
			struct ftrace_args_entry *rec, const unsigned long *slot)
{
	if (slot && ft_args_on(tr)) {
		ft_args_of(slot, rec->args);
		trev_event_write(file, rec, sizeof(*rec));
	} else {
		trev_event_write(file, rec, sizeof(struct ftrace_entry));
	}
}

/* The calling thread is in @p. */
static bool ft_pid_ok(const struct trev_pid_list *p)
{
	pid_t tid = ft_tid;

	if (trev_unlikely(!tid))
		tid = ft_tid = (pid_t)syscall(SYS_gettid);	/* once per thread */
	return trev__pid_list_has(p, tid);
}

/*
 * ft_pid_ok() for the trampolines' fast calls, which make no system call:
 * 1 when @p is NULL or holds the thread, 0 when it does not, TREV_FT_FULL
 * when the thread's id is not known yet (the full call reads it).
 * Context: inside the RCU read section @p was loaded in.
 */
static inline int ft_pids_fast(const struct trev_pid_list *p)
{
	if (!p)
		return 1;
	if (trev_unlikely(!ft_tid))
		return TREV_FT_FULL;
	return trev__pid_list_has(p, ft_tid);
}

/* The thread's id is in neither list's way: @pids NULL or holding it, @nopids not. */
static bool ft_tid_ok(const struct trev_pid_list *pids, const struct trev_pid_list *nopids)
{
	return (!pids || ft_pid_ok(pids)) && (!nopids || !ft_pid_ok(nopids));
}

/* The slots that record a call of @ip (0: not in the table). */
static uint64_t ft_itab_mask(const struct ft_itab *t, uintptr_t ip)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->e[mid].addr == ip)
			return t->e[mid].mask;
		if (t->e[mid].addr < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * One record in each named instance of @mask (bit 0 left out) whose pid
 * lists take the thread; the stack tracer's check for its slot (@slot:
 * where the traced function's return address is).
 */
static bool ft_inst_records(struct ft_itab *t, uint64_t mask, struct ftrace_args_entry *rec,
			    void *ra, unsigned long *slot, const struct trev_ft_cs *cs, bool called)
{
	bool pushed = false;

	for (mask &= ~1ull; mask; mask &= mask - 1) {
		unsigned int i = (unsigned int)__builtin_ctzll(mask);
		struct ft_inst *in = atomic_load_explicit(&t->inst[i], memory_order_relaxed);
		struct trev_pid_list *pids, *nopids;

		if (i == FT_STACK_SLOT) {
			if (in)
				trev__st_check(rec->ip, rec->parent_ip, slot);
			continue;
		}
		if (i == FT_PROBE_SLOT) {
			trev_ft_probe_fn fn = __atomic_load_n(&ft_probe_fn, __ATOMIC_RELAXED);

			/* A return probe: a frame of its own (one more when the graph pushed one). */
			if (in && fn && cs && fn(rec->ip, slot, cs))
				pushed |= trev__fg_entry_probe(rec->ip, slot, called);
			continue;
		}
		if (!in)
			continue;	/* its instance is going (trev__ftrace_instance_remove()) */
		pids = atomic_load_explicit(&in->pids, memory_order_acquire);
		nopids = atomic_load_explicit(&in->nopids, memory_order_acquire);
		/* Its tracing_cpumask: in->file is not among the instance's files (inst_filter.c). */
		if (ft_tid_ok(pids, nopids) &&
		    !trev__inst_ignores(in->tr, TREV_FILE_FL_CPUMASK, 0, trev__rb_this_cpu())) {
			ft_fn_write(&in->file, in->tr, rec, slot);
			if (trev_unlikely(__atomic_load_n(&in->tr->trace_flags, __ATOMIC_RELAXED) &
					  TREV_ITER_FUNC_STACK_TRACE))
				trev__fc_stack(in->tr, ra);
		}
		/* For TSan: the grace period orders these reads before the frees. */
		if (pids)
			trev_tsan_release(pids);
		if (nopids)
			trev_tsan_release(nopids);
		trev_tsan_release(in);
	}
	return pushed;
}

/*
 * Everything but the top instance's plain record: function commands, the
 * profiler, func_stack_trace, instances, the top's notrace pids.
 * @ra: where trev__ft_entry() returns into the trampoline (stacks' skip point).
 */
static __attribute__((noinline)) bool ft_entry_extra(unsigned long ip, unsigned long parent_ip,
						     unsigned long *slot, unsigned int extra,
						     int mode, bool called, void *ra,
						     const struct trev_ft_cs *cs)
{
	struct trev_rcu_section rcu;
	bool on = mode != TREV_TRACER_NOP;
	bool top = true;	/* the top instance records the site (bit 0 of its mask) */
	struct ftrace_args_entry rec;	/* args[] filled only when a record takes them */
	const struct fc_ent *cmds = NULL;
	struct ft_itab *itab = NULL;
	unsigned int dump = 0;
	uint64_t mask = 0;
	bool pushed = false;

	if (!on && !(extra & (TREV_FT_EXTRA_PROBES | TREV_FT_EXTRA_PROFILE | TREV_FT_EXTRA_INST)))
		return false;
	memset(&rec.ent, 0, sizeof(rec.ent));
	rec.ip = ip;
	rec.parent_ip = parent_ip;
	/* As a tracepoint's probes: a snapshot swap waits for the section to end. */
	rcu = trev_rcu_read_lock();
	/* A site patched for an instance only is not the top's (NULL: the table is going). */
	if (extra & TREV_FT_EXTRA_INST) {
		itab = atomic_load_explicit(&ft_itab, memory_order_acquire);
		if (itab) {
			mask = ft_itab_mask(itab, ip);
			top = mask & 1;
		}
	}
	if ((extra & TREV_FT_EXTRA_PROFILE) && top)
		trev__fp_hit(ip);
	/* A function with commands (func_cmd.c) is patched whatever the tracer: is it traced? */
	if (extra & TREV_FT_EXTRA_PROBES) {
		cmds = trev__fc_lookup(ip);
		if (cmds && !trev__fc_traced(cmds))
			on = false;
	}
	if (on && top) {
		struct trev_event_file *file = &trev__event_rt(&trev__ftrace_event_function)->file;
		struct trev_pid_list *pids = atomic_load_explicit(&ft_pids, memory_order_acquire);
		struct trev_pid_list *nopids = (extra & TREV_FT_EXTRA_NOPID) ?
			atomic_load_explicit(&ft_nopids, memory_order_acquire) : NULL;

		if (ft_tid_ok(pids, nopids)) {
			if (mode == TREV_TRACER_GRAPH) {
				pushed = trev__fg_entry(ip, slot, called);
			} else {
				ft_fn_write(file, (extra & TREV_FT_EXTRA_ARGS) ?
					    __atomic_load_n(&file->tr, __ATOMIC_RELAXED) : NULL,
					    &rec, slot);
				if (extra & TREV_FT_EXTRA_STACK)
					trev__fc_stack(__atomic_load_n(&file->tr, __ATOMIC_RELAXED), ra);
			}
		}
		if (pids)
			trev_tsan_release(pids);
		if (nopids)
			trev_tsan_release(nopids);
	}
	if (mask > 1)
		pushed |= ft_inst_records(itab, mask, &rec, ra, slot, cs, called);
	if (itab)
		trev_tsan_release(itab);
	/* The profiler's time: function_graph's frames, pushed for it when the tracer is not. */
	if ((extra & TREV_FT_EXTRA_PROFILE) && top && mode != TREV_TRACER_GRAPH)
		pushed |= trev__fg_entry(ip, slot, called);
	if (cmds)
		dump = trev__fc_run(cmds, ra);
	trev_rcu_read_unlock(rcu);
	if (trev_unlikely(dump))
		trev__fc_dump(dump);
	return pushed;
}

/* The top instance's ftrace/function record, written inline (struct ftrace_entry: ip, parent_ip). */
static inline __attribute__((always_inline)) void ft_fn_record(unsigned long ip,
								unsigned long parent_ip)
{
	uint64_t w[2] = { ip, parent_ip };

	event_write_stamped_words(&trev__event_rt(&trev__ftrace_event_function)->file, w, 2, false);
}

/*
 * What both trampolines' C calls do (@called: the graph trampoline's, which
 * calls the body itself when a graph frame is pushed; @ra: where the call
 * returns into the trampoline, the skip point of a stack trace). Return:
 * a graph frame was pushed.
 */
static inline __attribute__((always_inline)) bool ft_entry(unsigned long ip,
							     unsigned long parent_ip,
							     unsigned long *slot, bool called,
							     void *ra, const struct trev_ft_cs *cs)
{
	struct trev_rcu_section rcu;
	/*
	 * Relaxed, as ft_active: what else there is to do (commands, stacks,
	 * the profiler, instances); the tables it leads to are loaded with acquire.
	 */
	unsigned int extra = atomic_load_explicit(&trev__ft_extra, memory_order_relaxed);
	int mode = atomic_load_explicit(&ft_active, memory_order_relaxed);
	struct trev_pid_list *pids;
	bool pushed = false;

	if (trev_unlikely(extra))
		return ft_entry_extra(ip, parent_ip, slot, extra, mode, called, ra, cs);
	if (mode == TREV_TRACER_NOP)
		return false;
	rcu = trev_rcu_read_lock();
	pids = atomic_load_explicit(&ft_pids, memory_order_acquire);
	if (trev_likely(!pids) || ft_pid_ok(pids)) {
		if (mode == TREV_TRACER_GRAPH)
			pushed = trev__fg_entry(ip, slot, called);
		else
			ft_fn_record(ip, parent_ip);
	}
	/* For TSan: the grace period orders this read before pids_replace()'s free. */
	if (pids)
		trev_tsan_release(pids);
	trev_rcu_read_unlock(rcu);
	return pushed;
}

/*
 * trev__ft_entry_fast() - the function trampoline's fast call: the top
 * instance's ftrace/function record, when that is all there is to do (the
 * function tracer, nothing of trev__ft_extra; a thread set_ftrace_pid
 * takes) and the ring's fast path takes it
 * Return: 0, or TREV_FT_FULL: nothing was done, call trev__ft_entry().
 * Context: as trev__ft_entry(); calls nothing out of line (trampoline.c).
 */
__attribute__((used)) int trev__ft_entry_fast(unsigned long ip, unsigned long parent_ip)
{
	unsigned int *rcu;
	/* Relaxed, as in ft_entry(). */
	unsigned int extra = atomic_load_explicit(&trev__ft_extra, memory_order_relaxed);
	int mode = atomic_load_explicit(&ft_active, memory_order_relaxed);
	/* struct ftrace_entry's payload: ip, parent_ip. */
	uint64_t w[2] = { ip, parent_ip };
	struct trev_pid_list *pids;
	int ret;

	if (trev_unlikely(extra || mode != TREV_TRACER_FUNCTION || !ft_rcu_ready())) {
		/* A probed site, and nothing else to do: the probes' fast call. */
		if (extra == TREV_FT_EXTRA_INST && mode == TREV_TRACER_NOP && ft_rcu_ready() &&
		    atomic_load_explicit(&ft_probe_alone, memory_order_relaxed))
			return TREV_FT_PROBE;
		return !extra && mode == TREV_TRACER_NOP ? 0 : TREV_FT_FULL;
	}
	rcu = trev__rcu_lock_known();
	pids = atomic_load_explicit(&ft_pids, memory_order_acquire);	/* as in ft_entry() */
	ret = ft_pids_fast(pids);
	if (trev_likely(ret == 1))
		ret = event_write_words_try(&trev__event_rt(&trev__ftrace_event_function)->file,
					    w, 2, false).done ? 0 : TREV_FT_FULL;
	/* For TSan: the grace period orders this read before pids_replace()'s free. */
	if (pids)
		trev_tsan_release(pids);
	trev__rcu_unlock_known(rcu);
	return ret;
}

/*
 * trev__ft_entry() - the trampoline's call: one ftrace/function record
 * @ip: the site (the traced function's entry)
 * @parent_ip: where the function returns to
 * @slot: where @parent_ip is on the stack (function_graph replaces it)
 *
 * The common case, the top instance alone with no command, profiler or
 * option, is this function's own; anything else (trev__ft_extra not 0)
 * goes to ft_entry_extra().
 *
 * Context: any thread, at the entry of a traced function, also in a signal
 * handler; no allocation (after a thread's first record), lock or system call.
 */
__attribute__((used)) void trev__ft_entry(unsigned long ip, unsigned long parent_ip,
					  unsigned long *slot, const struct trev_ft_cs *cs)
{
	ft_entry(ip, parent_ip, slot, false, __builtin_return_address(0), cs);
}

/* trev__ft_entry_jmp() when function_graph is not alone; @ra: its return address. */
static __attribute__((noinline)) int ft_entry_jmp_other(unsigned long ip, unsigned long parent_ip,
							 unsigned long *slot, void *ra,
							 const struct trev_ft_cs *cs)
{
	return ft_entry(ip, parent_ip, slot, true, ra, cs);
}

/* function_graph alone, for every thread: the graph's plain path, in a read section of its own. */
static inline bool ft_graph_alone(void)
{
	/* Relaxed, as in ft_entry(); the pid list is only tested for NULL here. */
	return !atomic_load_explicit(&trev__ft_extra, memory_order_relaxed) &&
	       atomic_load_explicit(&ft_active, memory_order_relaxed) == TREV_TRACER_GRAPH &&
	       !atomic_load_explicit(&ft_pids, memory_order_relaxed);
}

/*
 * trev__ft_entry_jmp() - trev__ft_entry() for a site that jumps to the
 * graph trampoline (function_graph is the tracer)
 * Return: not 0 when a graph frame was pushed: the trampoline then calls
 * the function's body itself (trev__fg_entry()'s @called).
 * Context: as trev__ft_entry().
 */
__attribute__((used)) int trev__ft_entry_jmp(unsigned long ip, unsigned long parent_ip,
					     unsigned long *slot, const struct trev_ft_cs *cs)
{
	if (trev_likely(ft_graph_alone()))
		return trev__fg_entry_alone(ip, slot);
	return ft_entry_jmp_other(ip, parent_ip, slot, __builtin_return_address(0), cs);
}

/*
 * trev__ft_entry_jmp_fast() - the graph trampoline's fast call:
 * trev__fg_entry_fast() when function_graph is the tracer with nothing
 * else to do, for the threads set_ftrace_pid takes.
 * Return: as trev__fg_entry_fast(); TREV_FT_FULL: call trev__ft_entry_jmp().
 */
__attribute__((used)) int trev__ft_entry_jmp_fast(unsigned long ip, unsigned long *slot)
{
	/* Relaxed, as in ft_entry(); the pid list's pointer first only tested for NULL. */
	unsigned int extra = atomic_load_explicit(&trev__ft_extra, memory_order_relaxed);
	int mode = atomic_load_explicit(&ft_active, memory_order_relaxed);

	if (trev_unlikely(extra || mode != TREV_TRACER_GRAPH))
		return TREV_FT_FULL;
	if (trev_unlikely(atomic_load_explicit(&ft_pids, memory_order_relaxed))) {
		unsigned int *rcu;
		struct trev_pid_list *pids;
		int ok;

		if (!ft_rcu_ready())
			return TREV_FT_FULL;
		rcu = trev__rcu_lock_known();
		pids = atomic_load_explicit(&ft_pids, memory_order_acquire);
		ok = ft_pids_fast(pids);
		if (pids)
			trev_tsan_release(pids);
		trev__rcu_unlock_known(rcu);
		if (ok != 1)
			return ok;	/* 0: not this thread's, nothing pushed */
	}
	return trev__fg_entry_fast(ip, slot);
}

/* The kernel's trace_fn_trace(): "func <-parent", options sym-offset and sym-addr. */
static int fn_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	const struct ftrace_args_entry *e = (const struct ftrace_args_entry *)(const void *)iter->ent;

	(void)call;
	if (iter->ent_size < sizeof(struct ftrace_entry))
		return -1;
	trev__sym_print_ip(&iter->seq, e->ip, iter->trace_flags);
	/* As the kernel: the arguments whenever the record has them (func-args was on). */
	if (iter->ent_size >= sizeof(struct ftrace_args_entry)) {
		unsigned long long a[TREV_FT_NR_ARGS];
		char text[TREV_FN_ARGS_TEXT];

		for (int i = 0; i < TREV_FT_NR_ARGS; i++)
			a[i] = e->args[i];
		trev_seq_putmem(&iter->seq, text, trev__fn_args_fmt(text, a, TREV_FT_NR_ARGS));
	}
	if ((iter->trace_flags & TREV_ITER_PRINT_PARENT) && e->parent_ip) {
		trev_seq_puts(&iter->seq, " <-");
		trev__sym_print_ip(&iter->seq, e->parent_ip, iter->trace_flags);
	}
	trev_seq_putc(&iter->seq, '\n');
	return 0;
}

static int fn_fields(struct trev_event_call *call)
{
	return trev_event_define_field(call, "unsigned long", "ip",
				       (int)offsetof(struct ftrace_entry, ip),
				       (int)sizeof(unsigned long), 0, TREV_FILTER_OTHER) ?:
	       trev_event_define_field(call, "unsigned long", "parent_ip",
				       (int)offsetof(struct ftrace_entry, parent_ip),
				       (int)sizeof(unsigned long), 0, TREV_FILTER_OTHER) ?:
	       trev_event_define_field(call, "unsigned long[]", "args",
				       (int)offsetof(struct ftrace_args_entry, args), 0, 0,
				       TREV_FILTER_OTHER);
}

static const struct trev_event_class fn_class = { TREV_ABI_HDR(struct trev_event_class), "ftrace",
						  NULL, fn_fields, sizeof(struct ftrace_entry) };

struct trev_event_call trev__ftrace_event_function = {
	TREV_ABI_HDR(struct trev_event_call), &fn_class, "function", NULL,
	"\" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip",
	fn_output, TREV_EVENT_FL_FTRACE, 0, NULL
};

void trev__ftrace_args_set(struct trev_trace_array *tr)
{
	bool fn, fg;

	if (tr != trev__top_instance_if_made())
		return;	/* an instance's func-args is read by its records' path */
	/* The trampoline loads the word relaxed: a racing call has its arguments or not. */
	fn = __atomic_load_n(&tr->trace_flags, __ATOMIC_RELAXED) & TREV_ITER_FUNC_ARGS;
	fg = __atomic_load_n(&tr->trace_flags, __ATOMIC_RELAXED) & TREV_ITER_FG_ARGS;
	if (fn)
		atomic_fetch_or(&trev__ft_extra, TREV_FT_EXTRA_ARGS);
	else
		atomic_fetch_and(&trev__ft_extra, ~TREV_FT_EXTRA_ARGS);
	trev__fg_args_set(fg);
}

void trev__ftrace_fn_register(void)
{
	trev__events_register_builtin(&trev__ftrace_event_function, TREV_TYPE_FN);
	trev__events_register_builtin(&trev__ftrace_event_funcgraph_exit, TREV_TYPE_GRAPH_RET);
	trev__events_register_builtin(&trev__ftrace_event_funcgraph_entry, TREV_TYPE_GRAPH_ENT);
	trev__ftrace_tracers_register();
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */

static int site_cmp(const void *a, const void *b)
{
	const struct ft_site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int fg_ent_cmp(const void *a, const void *b)
{
	const struct trev_fg_map_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct ft_where {
	uintptr_t addr;
	const char *name;	/* dlpi_name of the object holding addr */
	uintptr_t bias;
	bool main;		/* it is the program */
	bool found;
};

static int where_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct ft_where *w = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && w->addr >= lo && w->addr - lo < ph->p_memsz) {
			w->name = info->dlpi_name;
			w->bias = info->dlpi_addr;
			w->main = !info->dlpi_name || !info->dlpi_name[0];
			w->found = true;
			return 1;
		}
	}
	return 0;
}

/* "libfoo" of ".../libfoo.so.1", as a kernel module's name is its file's. */
static char *module_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strcspn(base, ".");
	return strndup(base, len ? len : strlen(base));
}

/*
 * A site is 5 one-byte nops (gcc) or one 5-byte nop (clang); gcc's are made
 * into one here, before any thread can be in the middle of them.
 */
static unsigned int site_prepare(uintptr_t addr)
{
	static const uint8_t nops1[FT_SITE_SIZE] = { 0x90, 0x90, 0x90, 0x90, 0x90 };
	const uint8_t *b = (const uint8_t *)addr;

	if (!memcmp(b, nops1, FT_SITE_SIZE))
		return trev__ft_text_init(addr, trev__ft_nop5) ? FT_BAD : 0;
	if (!memcmp(b, trev__ft_nop5, 3))	/* 0f 1f 44 00 xx */
		return 0;
	return FT_BAD;
}

static struct ft_module *module_find(const void *const *key)
{
	for (struct ft_module *m = ft_modules; m; m = m->next)
		if (m->key == key)
			return m;
	return NULL;
}

struct ft_inst;
static int ft_apply(pid_t *blocker);
static int ft_nr_cpus(void);
static void list_recount(struct ft_inst *in, enum trev_ft_list list);
static int fg_map_publish(void);
static void pend_apply(struct ft_module *m);
static void pend_free(struct ft_pend *e);

/**
 * trev_function_register() - register an object's patchable function entries
 * @start: its __start___patchable_function_entries
 * @stop: its __stop___patchable_function_entries
 *
 * Called by the constructor <trev/fentry.h> puts in each file built with
 * `pkg-config --variable=function_cflags trev`, before the object's code can
 * run. When the function tracer is on, the new functions it selects are
 * patched at once.
 *
 * Context: an object's constructor (the loader's lock may be held).
 */
void trev_function_register(const void *const *start, const void *const *stop)
{
	struct ft_where w = { .addr = start < stop ? (uintptr_t)start[0] : 0 };
	struct ft_module *m;
	size_t n = start < stop ? (size_t)(stop - start) : 0;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	pid_t blocker;

	if (!n)
		return;
	/* The loader's lock, if any, is already ours: before ft_lock, never under it. */
	dl_iterate_phdr(where_cb, &w);
	trev__demangle_resolve();	/* a C++ object may have brought its runtime */
	pthread_mutex_lock(&ft_lock);
	m = module_find(start);
	if (m) {
		m->refs++;
		goto out_unlock;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		goto out_nomem;
	m->sites = calloc(n, sizeof(*m->sites));
	m->path = strdup(!w.found || w.main ? "/proc/self/exe" : w.name);
	m->mod = w.found && !w.main ? module_name(w.name) : NULL;
	if (!m->sites || !m->path || (w.found && !w.main && !m->mod))
		goto out_free;
	m->key = start;
	m->refs = 1;
	m->bias = w.bias;
	for (size_t i = 0; i < n; i++) {
		if (!start[i])
			continue;
		m->sites[m->nr_sites].addr = (uintptr_t)start[i];
		m->sites[m->nr_sites].flags = site_prepare((uintptr_t)start[i]);
		if ((uintptr_t)start[i] < lo)
			lo = (uintptr_t)start[i];
		if ((uintptr_t)start[i] > hi)
			hi = (uintptr_t)start[i];
		m->nr_sites++;
	}
	qsort(m->sites, m->nr_sites, sizeof(*m->sites), site_cmp);
	m->stub_err = trev__ft_stub_get(lo, hi + FT_SITE_SIZE, &m->target, &m->stub);
	if (m->stub_err)
		trev__log(TREV_LOG_ERR, "function tracer: no room for a stub near %s: its "
			  "functions cannot be traced\n", m->path);
	m->next = ft_modules;
	ft_modules = m;
	pend_apply(m);
	if ((ft_tracer || ft_profile || ft_inst_on) && ft_apply(&blocker))
		trev__log(TREV_LOG_ERR, "function tracer: %s: its functions are not patched yet "
			  "(%s); the next change of a list or of the tracer tries again\n",
			  m->path, blocker ? "a thread blocks SIGTRAP" : "patching failed");
	goto out_unlock;

out_free:
	free(m->sites);
	free(m->path);
	free(m->mod);
	free(m);
out_nomem:
	trev__log(TREV_LOG_ERR, "function tracer: out of memory registering %zu functions\n", n);
out_unlock:
	pthread_mutex_unlock(&ft_lock);
}

static int main_bias_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1;	/* the first object is the program */
}

/**
 * trev__ftrace_register_program() - register the program's entries from its ELF file
 *
 * The program's own constructors (<trev/fentry.h>) run after libtrev's, so
 * its entries would be unknown to TREV_WRITE's set_ftrace_filter at start-up.
 * This finds the section __patchable_function_entries in /proc/self/exe
 * and registers it under the same key the constructor later uses (which
 * then only counts one more registration). It runs in libtrev's start-up,
 * before the program's code: the nops' conversion is safe then.
 *
 * Context: libtrev's start-up (frontend/init.c).
 */
void trev__ftrace_register_program(void)
{
	uintptr_t bias = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;
	size_t shstrndx;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out_close;
	dl_iterate_phdr(main_bias_cb, &bias);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, "__patchable_function_entries") && sh.sh_size) {
			const void *const *start = (const void *const *)(bias + sh.sh_addr);

			trev_function_register(start, start + sh.sh_size / sizeof(void *));
			break;
		}
	}
out_close:
	if (elf)
		elf_end(elf);
	close(fd);
}

/**
 * trev_function_unregister() - forget an object's entries (its destructor)
 * @start: as given to trev_function_register()
 *
 * After the last registration of the object goes, its patched sites get
 * their nops back (other threads may still be inside it until dlclose()
 * unmaps it), and its functions leave every list.
 *
 * Context: an object's destructor.
 */
void trev_function_unregister(const void *const *start)
{
	struct ft_module **pp, *m;
	struct trev_ft_patch *p;
	size_t n = 0;
	pid_t blocker;

	pthread_mutex_lock(&ft_lock);
	for (pp = &ft_modules; *pp && (*pp)->key != start; pp = &(*pp)->next)
		;
	m = *pp;
	if (!m || --m->refs > 0) {
		pthread_mutex_unlock(&ft_lock);
		return;
	}
	p = calloc(m->nr_sites ? m->nr_sites : 1, sizeof(*p));
	for (size_t i = 0; p && i < m->nr_sites; i++) {
		if (!(m->sites[i].flags & FT_ON))
			continue;
		p[n].addr = m->sites[i].addr;
		memcpy(p[n].bytes, trev__ft_nop5, FT_SITE_SIZE);
		n++;
	}
	if (p && trev__ft_patch_batch(p, n, &blocker))
		trev__log(TREV_LOG_ERR, "function tracer: %s unloaded with its entries patched\n",
			  m->path);
	free(p);
	*pp = m->next;
	/* Its probed sites go with it (the probes see it go at dlclose()'s return). */
	for (size_t i = 0; i < m->nr_sites; i++)
		if (m->sites[i].flags >> FT_PROBE_SHIFT)
			ft_probe_sites--;
	if (!ft_probe_sites)
		ft_inst_on &= ~(1ull << FT_PROBE_SLOT);
	/*
	 * As the kernel when a module goes: its functions leave the lists, and
	 * a filter left empty selects every function again.
	 */
	for (int l = TREV_FT_FILTER; l <= TREV_FT_GRAPH_NOTRACE; l++)
		list_recount(NULL, (enum trev_ft_list)l);
	for (unsigned int i = 1; i < FT_MAX_INST; i++)
		if (ft_insts[i]) {
			list_recount(ft_insts[i], TREV_FT_FILTER);
			list_recount(ft_insts[i], TREV_FT_NOTRACE);
		}
	fg_map_publish();
	if (m->nr_sites)
		trev__fc_sites_gone(m->sites[0].addr, m->sites[m->nr_sites - 1].addr);
	if (ft_tracer || ft_profile || ft_inst_on || trev__fc_any())
		ft_apply(&blocker);
	pthread_mutex_unlock(&ft_lock);
	trev__ft_stub_put(m->stub);
	if (m->gstubs)
		munmap(m->gstubs, m->gstubs_size);
	for (size_t i = 0; i < m->nr_sites; i++)
		free(m->sites[i].name);
	free(m->sites);
	free(m->path);
	free(m->mod);
	free(m);
}

/* Give each site of @m its function's name, from the object's file. Context: ft_lock. */
static void module_name_sites(struct ft_module *m)
{
	struct trev_symtab tab = { 0 };
	int fd;

	if (m->named)
		return;
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		trev__symtab_load(&tab, fd);
		close(fd);
	}
	for (size_t i = 0; i < m->nr_sites; i++) {
		struct ft_site *s = &m->sites[i];
		const struct trev_symtab_ent *e = tab.nsyms ?
			trev__symtab_find(&tab, s->addr - m->bias) : NULL;

		if (e)
			s->name = strdup(tab.names + e->name);
		else if (asprintf(&s->name, "0x%lx", (unsigned long)s->addr) < 0)
			s->name = NULL;
	}
	trev__symtab_free(&tab);
	m->named = true;
}

/* ------------------------------------------------------------------ */
/* Patching the selection                                               */

/*
 * Under function_graph the functions of set_graph_function and
 * set_graph_notrace are patched whatever set_ftrace_filter says: a call
 * tree's root must be seen, and so must the function whose callees are
 * hidden.
 */
static bool site_selected(const struct ft_site *s)
{
	if (s->flags & FT_BAD)
		return false;
	if (ft_tracer == TREV_TRACER_GRAPH && (s->flags & (FT_GRAPH | FT_GNOTRACE)))
		return true;
	if (s->flags & FT_NOTRACE)
		return false;
	return !ft_list_set[TREV_FT_FILTER] || (s->flags & FT_FILTER);
}

/*
 * Graph stubs. Under function_graph a site jumps to a stub of its own,
 * which names the site and goes on to trev__fg_trampoline (trampoline.c):
 * entered by a jmp, the trampoline can call the function's body itself and
 * both returns are predicted (docs/function-tracer.md, "The mechanism").
 * One mapping per module, within a rel32's reach of its sites, made when
 * function_graph first patches them and unmapped with the module:
 *
 *   OFFSET       SIZE  MEANING
 *   0            8     the address of trev__fg_trampoline
 *   8            8     (zero)
 *   16 + 16 i    10    movabs $sites[i].addr, %r11    49 bb imm64
 *   26 + 16 i    6     jmp *(offset 0)(%rip)          ff 25 rel32
 */
#define GSTUB_HDR	16
#define GSTUB_SIZE	16

static uintptr_t gstub_addr(const struct ft_module *m, size_t i)
{
	return (uintptr_t)m->gstubs + GSTUB_HDR + GSTUB_SIZE * i;
}

/* Make @m's graph stubs if it has none. Context: ft_lock. Return: they exist. */
static bool gstubs_make(struct ft_module *m)
{
	uintptr_t tramp = (uintptr_t)trev__fg_trampoline;
	size_t size;
	uint8_t *g;

	if (m->gstubs || m->gstubs_failed || !m->nr_sites)
		return m->gstubs != NULL;
	size = GSTUB_HDR + GSTUB_SIZE * m->nr_sites;
	g = trev__text_near_map(m->sites[0].addr, m->sites[m->nr_sites - 1].addr + FT_SITE_SIZE,
				size);
	if (!g) {
		m->gstubs_failed = true;
		return false;
	}
	memset(g, 0, GSTUB_HDR);
	memcpy(g, &tramp, sizeof(tramp));
	for (size_t i = 0; i < m->nr_sites; i++) {
		uint8_t *st = g + GSTUB_HDR + GSTUB_SIZE * i;
		uint64_t site = m->sites[i].addr;
		int32_t rel = -(int32_t)(GSTUB_HDR + GSTUB_SIZE * (i + 1));

		st[0] = 0x49;
		st[1] = 0xbb;
		memcpy(st + 2, &site, sizeof(site));
		st[10] = 0xff;
		st[11] = 0x25;
		memcpy(st + 12, &rel, sizeof(rel));
	}
	if (mprotect(g, size, PROT_READ | PROT_EXEC)) {
		munmap(g, size);
		m->gstubs_failed = true;
		return false;
	}
	m->gstubs = g;
	m->gstubs_size = size;
	return true;
}

/*
 * The one decision "is this site patched": the tracer selects it, or a
 * function command is set on it (func_cmd.c; the kernel registers an
 * ftrace_ops per probe, so its functions are called whatever the tracer).
 */
/* The slots of the named instances running the tracer that select @s. Context: ft_lock. */
static uint64_t site_inst_mask(const struct ft_site *s)
{
	if (!ft_inst_on || (s->flags & FT_BAD))
		return 0;
	return ft_inst_on & ~s->imask[TREV_FT_NOTRACE] &
	       (~ft_inst_filtered | s->imask[TREV_FT_FILTER]);
}

static bool site_wanted(const struct ft_module *m, const struct ft_site *s)
{
	if (m->stub_err || (s->flags & FT_BAD))
		return false;
	return ((ft_tracer || ft_profile) && site_selected(s)) || site_inst_mask(s) ||
	       trev__fc_site_probed(s->addr);
}

/*
 * ft_itab's mask of @s: its instances, and bit 0 when the top instance
 * records it (its tracer or the profiler on, its lists selecting it): with
 * the top's tracer off, the table holds the instances' sites only.
 */
static uint64_t site_itab_mask(const struct ft_module *m, const struct ft_site *s)
{
	if (m->stub_err || (s->flags & FT_BAD))
		return 0;
	return site_inst_mask(s) | ((ft_tracer || ft_profile) && site_selected(s) ? 1 : 0);
}

static int itab_ent_cmp(const void *a, const void *b)
{
	const struct ft_ient *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The table for the tracers and lists in force. Context: ft_lock. Return: NULL, no memory. */
static struct ft_itab *itab_build(void)
{
	struct ft_itab *t;
	size_t n = 0, k = 0;

	for (struct ft_module *m = ft_modules; m; m = m->next)
		for (size_t i = 0; i < m->nr_sites; i++)
			n += site_itab_mask(m, &m->sites[i]) != 0;
	t = calloc(1, sizeof(*t) + n * sizeof(t->e[0]));
	if (!t)
		return NULL;
	for (unsigned int i = 1; i < FT_MAX_INST; i++)
		atomic_init(&t->inst[i], ((ft_inst_on >> i) & 1) ? ft_insts[i] : NULL);
	for (struct ft_module *m = ft_modules; m; m = m->next)
		for (size_t i = 0; i < m->nr_sites; i++) {
			uint64_t mask = site_itab_mask(m, &m->sites[i]);

			if (mask) {
				t->e[k].addr = m->sites[i].addr;
				t->e[k].mask = mask;
				k++;
			}
		}
	t->n = k;
	qsort(t->e, k, sizeof(t->e[0]), itab_ent_cmp);
	return t;
}

/* Publish @t (NULL: none) and free the old table after a grace period. Context: ft_lock. */
static void itab_replace(struct ft_itab *t)
{
	struct ft_itab *old = atomic_exchange_explicit(&ft_itab, t, memory_order_acq_rel);

	if (old) {
		trev__rcu_synchronize();
		trev_tsan_acquire(old);
		free(old);
	}
}

static struct ft_site *site_find(uintptr_t addr)
{
	for (struct ft_module *m = ft_modules; m; m = m->next) {
		struct ft_site key = { .addr = addr };

		if (!m->nr_sites || addr < m->sites[0].addr ||
		    addr > m->sites[m->nr_sites - 1].addr)
			continue;
		return bsearch(&key, m->sites, m->nr_sites, sizeof(key), site_cmp);
	}
	return NULL;
}

const char *trev__ft_site_name(uintptr_t addr)
{
	const struct ft_site *s = site_find(addr);

	return s ? s->name : NULL;
}

bool trev__ft_selected(uintptr_t addr)
{
	const struct ft_site *s = site_find(addr);

	return s && site_selected(s);
}

/*
 * Publish the sites of set_graph_function and set_graph_notrace for
 * trev__fg_entry() (NULL when both are empty). Context: ft_lock.
 */
static int fg_map_publish(void)
{
	struct trev_fg_map *map = NULL;
	size_t n = 0, k = 0;

	for (struct ft_module *m = ft_modules; m; m = m->next)
		for (size_t i = 0; i < m->nr_sites; i++)
			n += !!(m->sites[i].flags & (FT_GRAPH | FT_GNOTRACE));
	if (n) {
		map = malloc(sizeof(*map) + n * sizeof(map->e[0]));
		if (!map)
			return -ENOMEM;
		map->n = n;
		map->graph = ft_list_set[TREV_FT_GRAPH];
		for (struct ft_module *m = ft_modules; m; m = m->next)
			for (size_t i = 0; i < m->nr_sites; i++) {
				const struct ft_site *s = &m->sites[i];

				if (!(s->flags & (FT_GRAPH | FT_GNOTRACE)))
					continue;
				map->e[k].addr = s->addr;
				map->e[k].flags = ((s->flags & FT_GRAPH) ? TREV_FG_SITE_GRAPH : 0) |
						  ((s->flags & FT_GNOTRACE) ? TREV_FG_SITE_NOTRACE : 0);
				k++;
			}
		qsort(map->e, n, sizeof(map->e[0]), fg_ent_cmp);
	}
	trev__fg_map_replace(map);
	return 0;
}

/*
 * Make every site what the tracer and the lists ask for: a call to the
 * trampoline when selected and the tracer is on, the nop otherwise.
 * Context: holds ft_lock.
 */
static int ft_apply(pid_t *blocker)
{
	bool itab_had = atomic_load_explicit(&ft_itab, memory_order_relaxed) != NULL;
	struct trev_ft_patch *p;
	size_t total = 0, n = 0;
	int ret;

	for (struct ft_module *m = ft_modules; m; m = m->next)
		total += m->nr_sites;
	p = calloc(total ? total : 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	/* A site about to change finds its commands, old or new, during the batch. */
	if (trev__fc_any() && trev__fc_publish(true)) {
		free(p);
		return -ENOMEM;
	}
	/* The profiler counts the selection (the kernel's global filter) from the start. */
	if (ft_profile && trev__fp_publish(true, ft_profile_reset, ft_nr_cpus())) {
		free(p);
		return -ENOMEM;
	}
	ft_profile_reset = false;
	/*
	 * While an instance runs the tracer, a patched site records where the
	 * table says: the new one goes in before the batch. When the last one
	 * stops, the table (without instances) stays until the batch has put
	 * their sites' nops back; then the top's fast path takes over.
	 */
	atomic_store_explicit(&ft_probe_alone, ft_inst_on == 1ull << FT_PROBE_SLOT,
			      memory_order_relaxed);
	if (ft_inst_on || itab_had) {
		struct ft_itab *t = itab_build();

		if (!t) {
			free(p);
			return -ENOMEM;
		}
		itab_replace(t);
		if (ft_inst_on)
			atomic_fetch_or(&trev__ft_extra, TREV_FT_EXTRA_INST);
	}
	for (struct ft_module *m = ft_modules; m; m = m->next) {
		/* Under function_graph a site jumps to its stub; else (or without stubs) it calls. */
		bool jmp = ft_tracer == TREV_TRACER_GRAPH && gstubs_make(m);

		for (size_t i = 0; i < m->nr_sites; i++) {
			struct ft_site *s = &m->sites[i];
			bool want = site_wanted(m, s);

			if (want == !!(s->flags & FT_ON) && (!want || jmp == !!(s->flags & FT_JMP)))
				continue;
			p[n].addr = s->addr;
			if (want && jmp)
				trev__text_make_rel32(p[n].bytes, TREV_TEXT_JMP, s->addr,
						      gstub_addr(m, i));
			else if (want)
				trev__ft_make_call(p[n].bytes, s->addr, m->target);
			else
				memcpy(p[n].bytes, trev__ft_nop5, FT_SITE_SIZE);
			n++;
		}
	}
	/* Before any site can reach a trampoline (libtrev's constructors may patch before ft_init()). */
	trev__vec_kind_init();
	ret = trev__ft_patch_batch(p, n, blocker);
	if (!ret) {
		for (struct ft_module *m = ft_modules; m; m = m->next) {
			bool jmp = ft_tracer == TREV_TRACER_GRAPH && m->gstubs;

			for (size_t i = 0; i < m->nr_sites; i++) {
				struct ft_site *s = &m->sites[i];

				s->flags &= ~(FT_ON | FT_JMP);
				if (site_wanted(m, s))
					s->flags |= FT_ON | (jmp ? FT_JMP : 0);
			}
		}
		if (trev__fc_any())
			ret = trev__fc_publish(false);
		if (!ft_inst_on && itab_had) {
			atomic_fetch_and(&trev__ft_extra, ~TREV_FT_EXTRA_INST);
			itab_replace(NULL);
		}
	}
	free(p);
	return ret;
}

static const char *ft_apply_why(int err)
{
	switch (err) {
	case -EBUSY:
		return "A thread blocks SIGTRAP: patching could kill it";
	case -ENOSYS:
		return "membarrier(SYNC_CORE) is not available";
	case -ENOSPC:
		return "Too many instances trace functions";
	case -ENOMEM:
		return "Out of memory";
	default:
		return "Could not patch the function entries";
	}
}

static bool tr_is_top(const struct trev_trace_array *tr)
{
	return !tr->name || !tr->name[0];
}

/*
 * Named instance @tr's state; with @create made when there is none (in a
 * free slot). Context: ft_lock. Return: it, or NULL with *@err set
 * (-ENOSPC: every slot taken; -ENOMEM) or, without @create, left alone.
 */
static struct ft_inst *inst_get(struct trev_trace_array *tr, bool create, int *err)
{
	unsigned int slot = 0;
	struct ft_inst *in;

	for (unsigned int i = 1; i < FT_PROBE_SLOT; i++) {
		if (ft_insts[i] && ft_insts[i]->tr == tr)
			return ft_insts[i];
		if (!ft_insts[i] && !slot)
			slot = i;
	}
	if (!create)
		return NULL;
	if (!slot) {
		*err = -ENOSPC;
		return NULL;
	}
	in = calloc(1, sizeof(*in));
	if (!in) {
		*err = -ENOMEM;
		return NULL;
	}
	in->tr = tr;
	in->slot = slot;
	in->file.call = &trev__ftrace_event_function;
	in->file.tr = tr;
	ft_insts[slot] = in;
	atomic_store(&ft_slot_tracer[slot], TREV_TRACER_NOP);
	atomic_store(&ft_slot_tr[slot], tr);
	return in;
}

/* Context: ft_lock. */
static void inst_tracer_store(struct ft_inst *in, enum trev_ft_mode tracer)
{
	uint64_t bit = 1ull << in->slot;

	in->tracer = tracer;
	ft_inst_on = tracer == TREV_TRACER_FUNCTION ? ft_inst_on | bit : ft_inst_on & ~bit;
	atomic_store(&ft_slot_tracer[in->slot], tracer);
}

/* A named instance's current_tracer: nop or function. */
static int inst_set_tracer(struct trev_trace_array *tr, enum trev_ft_mode tracer,
			   const char **why)
{
	struct ft_inst *in;
	enum trev_ft_mode was;
	pid_t blocker;
	int ret = 0;

	if (tracer == TREV_TRACER_GRAPH) {
		*why = "No such tracer";
		return -EINVAL;
	}
	pthread_mutex_lock(&ft_lock);
	in = inst_get(tr, tracer != TREV_TRACER_NOP, &ret);
	if (!in || in->tracer == tracer)
		goto out_unlock;
	was = in->tracer;
	inst_tracer_store(in, tracer);
	ret = ft_apply(&blocker);
	if (ret) {
		inst_tracer_store(in, was);
		ft_apply(&blocker);	/* the sites already changed go back */
	}
out_unlock:
	if (ret)
		*why = ft_apply_why(ret);
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

/* Put @p in place of *@where's list; free the old one after a grace period. Context: ft_lock. */
static void pids_replace(_Atomic(struct trev_pid_list *) *where, struct trev_pid_list *p);

void trev__ftrace_instance_remove(struct trev_trace_array *tr)
{
	struct ft_itab *t;
	struct ft_inst *in;
	pid_t blocker;
	uint64_t bit;

	/* Its commands' resources (an event's soft mode, a snapshot's arm) go under it. */
	trev__events_write_lock();
	pthread_mutex_lock(&ft_lock);
	in = inst_get(tr, false, NULL);
	if (!in)
		goto out_unlock;	/* commands are set through a write that made @in */
	bit = 1ull << in->slot;
	/* As the kernel's clear_ftrace_function_probes(): the instance's commands go. */
	trev__fc_instance_gone(tr);
	/* Out of the table in force at once: no allocation needed for that. */
	t = atomic_load_explicit(&ft_itab, memory_order_relaxed);
	if (t)
		atomic_store_explicit(&t->inst[in->slot], NULL, memory_order_relaxed);
	inst_tracer_store(in, TREV_TRACER_NOP);
	ft_inst_filtered &= ~bit;
	for (struct ft_module *m = ft_modules; m; m = m->next)
		for (size_t i = 0; i < m->nr_sites; i++) {
			m->sites[i].imask[TREV_FT_FILTER] &= ~bit;
			m->sites[i].imask[TREV_FT_NOTRACE] &= ~bit;
		}
	if (ft_apply(&blocker)) {
		trev__log(TREV_LOG_ERR, "function tracer: instance %s removed; its functions "
			  "stay patched until the next change\n", tr->name);
		/* Its commands out of the trampoline's table all the same (they act on @tr). */
		if (trev__fc_any() && trev__fc_publish(true))
			trev__log(TREV_LOG_ERR, "function tracer: instance %s removed; out of "
				  "memory, its commands leaked\n", tr->name);
	}
	pids_replace(&in->pids, NULL);
	pids_replace(&in->nopids, NULL);
	/* No trampoline call holds @in or its instance after this. */
	trev__rcu_synchronize();
	trev_tsan_acquire(in);
	ft_insts[in->slot] = NULL;
	atomic_store(&ft_slot_tr[in->slot], NULL);
	pend_free(in->pend[TREV_FT_FILTER]);
	pend_free(in->pend[TREV_FT_NOTRACE]);
	free(in);
out_unlock:
	trev__fc_reap(true);
	pthread_mutex_unlock(&ft_lock);
	trev__events_write_unlock();
}

/*
 * Going from one tracer to another: the sites of the old selection that
 * the new one keeps stay patched, and trev__ft_entry() switches from one
 * record to the other at the store of ft_active. Frames pushed under
 * function_graph keep returning through trev__fg_return after it is off.
 */
int trev__ftrace_set_tracer(struct trev_trace_array *tr, enum trev_ft_mode tracer,
			    const char **why)
{
	struct trev_event_rt *rt = trev__event_rt(&trev__ftrace_event_function);
	enum trev_ft_mode was;
	pid_t blocker;
	int ret = 0;

	if (!tr_is_top(tr))
		return inst_set_tracer(tr, tracer, why);
	pthread_mutex_lock(&ft_lock);
	if (tracer == ft_tracer)
		goto out_unlock;
	if (rt && !__atomic_load_n(&rt->file.tr, __ATOMIC_RELAXED))
		__atomic_store_n(&rt->file.tr, tr, __ATOMIC_RELAXED);
	was = ft_tracer;
	ft_tracer = tracer;
	trev__fg_set(tr, tracer == TREV_TRACER_GRAPH);
	if (tracer)
		atomic_store(&ft_active, tracer);
	ret = ft_apply(&blocker);
	if (ret) {
		ft_tracer = was;
		ft_apply(&blocker);	/* the sites already changed go back */
		trev__fg_set(tr, was == TREV_TRACER_GRAPH);
		*why = ft_apply_why(ret);
	}
	atomic_store(&ft_active, ft_tracer);
out_unlock:
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

/* The CPU views of the top instance: the profiler's counters per function. */
static int ft_nr_cpus(void)
{
	struct trev_trace_array *tr = trev__top_instance_if_made();

	return tr ? trev_rb_nr_cpus(tr->rb) : 1;
}

int trev__ftrace_profile_set(bool on, const char **why)
{
	pid_t blocker;
	int ret = 0;

	pthread_mutex_lock(&ft_lock);
	if (on == ft_profile)
		goto out_unlock;
	ft_profile = on;
	ft_profile_reset = on;
	ret = ft_apply(&blocker);
	if (ret) {
		ft_profile = !on;
		ft_apply(&blocker);
		*why = ft_apply_why(ret);
	}
	if (!ft_profile)
		trev__fp_publish(false, false, 0);
out_unlock:
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

bool trev__ftrace_profile_on(void)
{
	bool on;

	pthread_mutex_lock(&ft_lock);
	on = ft_profile;
	pthread_mutex_unlock(&ft_lock);
	return on;
}

int trev__ftrace_profile_show(int cpu, struct trev_buf *out)
{
	int ret;

	pthread_mutex_lock(&ft_lock);
	ret = trev__fp_show(cpu, out);
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* set_ftrace_filter, set_ftrace_notrace                                */

static unsigned int list_bit(enum trev_ft_list list)
{
	static const unsigned int bits[] = { FT_FILTER, FT_NOTRACE, FT_GRAPH, FT_GNOTRACE };

	return bits[list];
}

/*
 * @s is in @list of instance @in (NULL: the top one, whose lists are the
 * site's flags; a named instance has set_ftrace_filter and set_ftrace_notrace).
 */
static bool site_in(const struct ft_site *s, const struct ft_inst *in, enum trev_ft_list list)
{
	if (!in)
		return s->flags & list_bit(list);
	return (s->imask[list] >> in->slot) & 1;
}

static void site_put(struct ft_site *s, const struct ft_inst *in, enum trev_ft_list list,
		     bool on)
{
	if (!in)
		s->flags = on ? s->flags | list_bit(list) : s->flags & ~list_bit(list);
	else if (on)
		s->imask[list] |= 1ull << in->slot;
	else
		s->imask[list] &= ~(1ull << in->slot);
}

/* Where the pending terms of @list of @in (NULL: the top) are; NULL for the graph lists. */
static struct ft_pend **pend_head(struct ft_inst *in, enum trev_ft_list list)
{
	if (list != TREV_FT_FILTER && list != TREV_FT_NOTRACE)
		return NULL;
	return in ? &in->pend[list] : &ft_pend_top[list];
}

static void pend_free(struct ft_pend *e)
{
	while (e) {
		struct ft_pend *next = e->next;

		free(e->func);
		free(e->mod);
		free(e);
		e = next;
	}
}

/* A copy of the list @e, for a write to change (all or nothing). Return: 0 or -ENOMEM. */
static int pend_copy(const struct ft_pend *e, struct ft_pend **out)
{
	struct ft_pend **tail = out;

	*out = NULL;
	for (; e; e = e->next) {
		struct ft_pend *c = calloc(1, sizeof(*c));

		if (!c)
			goto out_free;
		*tail = c;
		tail = &c->next;
		c->func = strdup(e->func);
		c->mod = strdup(e->mod);
		if (!c->func || !c->mod)
			goto out_free;
	}
	return 0;

out_free:
	pend_free(*out);
	*out = NULL;
	return -ENOMEM;
}

/* A registered object is library @mod (the kernel's module_exists()). Context: ft_lock. */
static bool module_loaded(const char *mod)
{
	for (struct ft_module *m = ft_modules; m; m = m->next)
		if (m->mod && !strcmp(m->mod, mod))
			return true;
	return false;
}

/*
 * A term "@func:mod:@mod" that matched no function (the kernel's
 * cache_mod()): kept in @head while no library named @mod is registered.
 * With @remove, the kept terms of @mod whose function is @func ("*": all)
 * go. Return: 1, or -errno with *@why set. Context: ft_lock.
 */
static int pend_term(struct ft_pend **head, const char *func, const char *mod, bool remove,
		     const char **why)
{
	struct ft_pend *e;
	int n = 0;

	if (remove) {
		for (struct ft_pend **pp = head; (e = *pp);) {
			if (strcmp(e->mod, mod) || (strcmp(func, "*") && strcmp(e->func, func))) {
				pp = &e->next;
				continue;
			}
			*pp = e->next;
			e->next = NULL;
			pend_free(e);
			n++;
		}
		if (!n)
			*why = "No such function";
		return n ? 1 : -EINVAL;
	}
	/* A library that is there and has no such function: refused, as the kernel's. */
	if (module_loaded(mod)) {
		*why = "No such function";
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->func = strdup(func)) || !(e->mod = strdup(mod))) {
		pend_free(e);
		*why = "Out of memory";
		return -ENOMEM;
	}
	e->next = *head;
	*head = e;
	return 1;
}

/*
 * Whether @list of @in (NULL: the top) is empty, from the sites; a
 * pending term makes a filter not empty (the kernel's FTRACE_HASH_FL_MOD:
 * it selects nothing until its library comes). Context: ft_lock.
 */
static void list_recount(struct ft_inst *in, enum trev_ft_list list)
{
	bool set = list == TREV_FT_FILTER && *pend_head(in, list);

	for (struct ft_module *m = ft_modules; m && !set; m = m->next)
		for (size_t i = 0; i < m->nr_sites && !set; i++)
			set = site_in(&m->sites[i], in, list);
	if (!in) {
		ft_list_set[list] = set;
		return;
	}
	in->list_set[list] = set;
	if (list == TREV_FT_FILTER)
		ft_inst_filtered = set ? ft_inst_filtered | (1ull << in->slot) :
					 ft_inst_filtered & ~(1ull << in->slot);
}

/* Recount @list of @in (NULL: the top); apply. Context: ft_lock. */
static int list_commit(struct ft_inst *in, enum trev_ft_list list, const char **why)
{
	pid_t blocker;
	int ret;

	list_recount(in, list);
	if (!in && list >= TREV_FT_GRAPH) {
		ret = fg_map_publish();
		if (ret) {
			if (why)
				*why = "Out of memory";
			return ret;
		}
	}
	ret = ft_apply(&blocker);
	if (ret && why)
		*why = ft_apply_why(ret);
	return ret;
}

/* @tr's @list, or (@tr NULL) stack_trace_filter, emptied. */
static int ft_list_clear(struct trev_trace_array *tr, enum trev_ft_list list)
{
	struct ft_inst *in = tr ? NULL : &ft_stack_inst;
	int ret = 0;

	pthread_mutex_lock(&ft_lock);
	/* A named instance without state has nothing to clear. */
	if (tr && !tr_is_top(tr) && !(in = inst_get(tr, false, NULL)))
		goto out_unlock;
	for (struct ft_module *m = ft_modules; m; m = m->next)
		for (size_t i = 0; i < m->nr_sites; i++)
			site_put(&m->sites[i], in, list, false);
	/* The kernel's clear_ftrace_mod_list() at an O_TRUNC open. */
	if (pend_head(in, list)) {
		pend_free(*pend_head(in, list));
		*pend_head(in, list) = NULL;
	}
	ret = list_commit(in, list, NULL);
out_unlock:
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

/*
 * The kernel's glob: *, ? and [...] (with ! or ^ negating); no escapes.
 * fnmatch() without FNM_NOESCAPE would take a backslash as one.
 */
static bool glob_ok(const char *glob, const char *name)
{
	return fnmatch(glob, name, FNM_NOESCAPE) == 0;
}

/*
 * Call @fn for each listed site whose function matches @glob, of a module
 * matching @mod (NULL: any, the program too). Context: holds ft_lock.
 * Return: how many matched.
 */
static int sites_match(const char *glob, const char *mod,
		       void (*fn)(struct ft_module *m, struct ft_site *s, void *arg), void *arg)
{
	int found = 0;

	for (struct ft_module *m = ft_modules; m; m = m->next) {
		if (mod && (!m->mod || !glob_ok(mod, m->mod)))
			continue;
		module_name_sites(m);
		for (size_t i = 0; i < m->nr_sites; i++) {
			struct ft_site *s = &m->sites[i];

			if ((s->flags & FT_BAD) || !s->name || !glob_ok(glob, s->name))
				continue;
			found++;
			fn(m, s, arg);
		}
	}
	return found;
}

struct match_cb {
	trev_ft_match_fn fn;
	void *arg;
};

static void match_one(struct ft_module *m, struct ft_site *s, void *arg)
{
	struct match_cb *cb = arg;

	cb->fn(cb->arg, s->addr, s->name, m->mod);
}

int trev__ft_match(const char *glob, const char *mod, trev_ft_match_fn fn, void *arg)
{
	struct match_cb cb = { fn, arg };

	return sites_match(glob, mod, match_one, &cb);
}

static void site_mark_new(struct ft_module *m, struct ft_site *s, void *remove)
{
	(void)m;
	if (remove)
		s->flags &= ~FT_NEW;
	else
		s->flags |= FT_NEW;
}

/*
 * The ':' that ends a term's function part: the first one that is not half
 * of a C++ scope's "::" ("ns::Foo::*:mod:libfoo"), or NULL.
 */
static char *term_sep(char *s)
{
	for (char *p = strchr(s, ':'); p; p = strchr(p, ':')) {
		if (p[1] != ':')
			return p;
		p += 2;
	}
	return NULL;
}

/*
 * One term into FT_NEW: "glob", "glob:mod:NAME" or ":mod:NAME" (any
 * function of module NAME), "!" first to take away; or a function
 * command, "glob[:mod:NAME]:CMD[:ARG]" (func_cmd.c). A ":mod:" term of a
 * library not loaded yet goes into @pend (NULL: the list keeps none).
 * Return: the number of functions it matched, or -errno with *@off (its
 * column in @term) and *@why set.
 */
static int term_apply(struct trev_trace_array *tr, enum trev_ft_list list, char *term,
		      struct ft_pend **pend, int *off, const char **why)
{
	bool remove = false, all = false;
	char *func = term, *cmd, *mod = NULL;
	int found;

	if (*func == '!') {
		remove = true;
		func++;
	}
	cmd = term_sep(func);
	if (cmd) {
		*cmd++ = '\0';
		if (strncmp(cmd, "mod:", 4))
			goto out_cmd;
		mod = cmd + 4;
		cmd = strchr(mod, ':');
		if (cmd) {
			*cmd++ = '\0';
			func = *func ? func : (char *)"*";
			goto out_cmd;
		}
		if (!*func) {
			func = (char *)"*";
			all = true;	/* ":mod:LIB": kept as written */
		}
	}
	if (!*func) {
		*why = "No function given";
		return -EINVAL;
	}
	found = sites_match(func, mod, site_mark_new, remove ? term : NULL);
	/* A library not loaded yet: the term waits for it (@pend: the write's copy). */
	if (!found && mod && pend)
		return pend_term(pend, all ? "" : func, mod, remove, why);
	if (!found)
		*why = "No such function";
	return found;

out_cmd:
	/* stack_trace_filter (@tr NULL) takes no commands, as the kernel's. */
	if (!tr) {
		*off = (int)(cmd - term);
		*why = "Function commands only work in set_ftrace_filter";
		return -EINVAL;
	}
	return trev__fc_term(tr, list, term, func, mod, cmd, remove, off, why);
}

int trev__ftrace_list_clear(struct trev_trace_array *tr, enum trev_ft_list list)
{
	return ft_list_clear(tr, list);
}

/* A write of @tr's @list, or (@tr NULL) of stack_trace_filter. */
static int ft_list_write(struct trev_trace_array *tr, enum trev_ft_list list,
			 const char *text, size_t len, int *err_pos, const char **why)
{
	bool top = tr && tr_is_top(tr);
	char *copy = strndup(text, len), *p;
	/* Function commands' parse and reg need the registry lock, taken before ft_lock. */
	bool cmds = memchr(text, ':', len) != NULL;
	struct ft_pend **pend = NULL, *staged = NULL;
	struct ft_inst *in = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	if (memmem(text, len, "stacktrace", 10))
		trev__fc_stack_prepare();
	if (cmds)
		trev__events_write_lock();
	pthread_mutex_lock(&ft_lock);
	if (!tr)
		in = &ft_stack_inst;
	else if (!top && !(in = inst_get(tr, true, &ret))) {
		*err_pos = 0;
		*why = ft_apply_why(ret);
		goto out_unlock;
	}
	/* The pending terms change in a copy, put in place when every term passed. */
	pend = pend_head(in, list);
	if (pend && pend_copy(*pend, &staged)) {
		ret = -ENOMEM;
		*err_pos = 0;
		*why = ft_apply_why(ret);
		goto out_unlock;
	}
	for (struct ft_module *m = ft_modules; m; m = m->next)
		for (size_t i = 0; i < m->nr_sites; i++) {
			struct ft_site *s = &m->sites[i];

			s->flags = (s->flags & ~FT_NEW) | (site_in(s, in, list) ? FT_NEW : 0);
		}
	for (p = copy; !ret;) {
		char *end;
		int off = 0;

		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		end = p;
		while (*end && !isspace((unsigned char)*end))
			end++;
		if (*end)
			*end++ = '\0';
		ret = term_apply(tr, list, p, pend ? &staged : NULL, &off, why);
		*err_pos = (int)(p - copy) + off;
		ret = ret > 0 ? 0 : ret < 0 ? ret : -EINVAL;
		p = end;
	}
	if (!ret) {
		for (struct ft_module *m = ft_modules; m; m = m->next)
			for (size_t i = 0; i < m->nr_sites; i++) {
				struct ft_site *s = &m->sites[i];

				site_put(s, in, list, s->flags & FT_NEW);
			}
		if (pend) {
			pend_free(*pend);
			*pend = staged;
			staged = NULL;
		}
		trev__fc_commit();
		ret = list_commit(in, list, why);
		if (ret)
			*err_pos = 0;
	} else {
		trev__fc_abort();
	}
	trev__fc_reap(cmds);
out_unlock:
	pend_free(staged);
	pthread_mutex_unlock(&ft_lock);
	if (cmds)
		trev__events_write_unlock();
	free(copy);
	return ret;
}

int trev__ftrace_list_write(struct trev_trace_array *tr, enum trev_ft_list list,
			    const char *text, size_t len, int *err_pos, const char **why)
{
	return ft_list_write(tr, list, text, len, err_pos, why);
}

static int site_show(struct trev_buf *out, const struct ft_module *m, const struct ft_site *s)
{
	if (m->mod)
		return trev__buf_printf(out, "%s [%s]\n", s->name, m->mod);
	return trev__buf_printf(out, "%s\n", s->name);
}

/* @tr's @list, or (@tr NULL) stack_trace_filter. */
static int ft_list_show(struct trev_trace_array *tr, enum trev_ft_list list,
			struct trev_buf *out)
{
	bool top = tr && tr_is_top(tr);
	struct ft_pend **pend = NULL;
	struct ft_inst *in = tr ? NULL : &ft_stack_inst;
	int ret = 0;

	pthread_mutex_lock(&ft_lock);
	if (tr && !top)
		in = inst_get(tr, false, NULL);
	if (top || in)
		pend = pend_head(in, list);
	if (top ? !ft_list_set[list] : !in || !in->list_set[list]) {
		ret = trev__buf_puts(out, list == TREV_FT_FILTER || list == TREV_FT_GRAPH ?
				     "#### all functions enabled ####\n" :
				     "#### no functions disabled ####\n");
		goto out_mods;
	}
	for (struct ft_module *m = ft_modules; m && !ret; m = m->next) {
		module_name_sites(m);
		for (size_t i = 0; i < m->nr_sites && !ret; i++)
			if (site_in(&m->sites[i], in, list) && m->sites[i].name)
				ret = site_show(out, m, &m->sites[i]);
	}
out_mods:
	/* The kernel's t_mod_show(): the pending terms, "FUNC:mod:LIB" as written. */
	for (const struct ft_pend *e = pend ? *pend : NULL; e && !ret; e = e->next)
		ret = trev__buf_printf(out, "%s:mod:%s\n", e->func, e->mod);
	/* The kernel's t_probe_show(): the instance's commands after the functions. */
	if (!ret && tr && list == TREV_FT_FILTER)
		ret = trev__fc_show(tr, out);
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

int trev__ftrace_list_show(struct trev_trace_array *tr, enum trev_ft_list list,
			   struct trev_buf *out)
{
	return ft_list_show(tr, list, out);
}

/* ------------------------------------------------------------------ */
/* The stack tracer's switch and stack_trace_filter                     */

int trev__ftrace_stack_set(bool on, const char **why)
{
	const uint64_t bit = 1ull << FT_STACK_SLOT;
	pid_t blocker;
	int ret = 0;

	if (on)
		trev__st_prepare();	/* loads libgcc_s: the loader's lock, never under ft_lock */
	pthread_mutex_lock(&ft_lock);
	if (on == !!(ft_inst_on & bit))
		goto out_unlock;
	ft_inst_on = on ? ft_inst_on | bit : ft_inst_on & ~bit;
	ret = ft_apply(&blocker);
	if (ret) {
		ft_inst_on ^= bit;
		ft_apply(&blocker);	/* the sites already changed go back */
		*why = ft_apply_why(ret);
	}
out_unlock:
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

bool trev__ftrace_stack_on(void)
{
	bool on;

	pthread_mutex_lock(&ft_lock);
	on = ft_inst_on & (1ull << FT_STACK_SLOT);
	pthread_mutex_unlock(&ft_lock);
	return on;
}

int trev__ftrace_stack_filter_clear(void)
{
	return ft_list_clear(NULL, TREV_FT_FILTER);
}

int trev__ftrace_stack_filter_write(const char *text, size_t len, int *err_pos, const char **why)
{
	return ft_list_write(NULL, TREV_FT_FILTER, text, len, err_pos, why);
}

int trev__ftrace_stack_filter_show(struct trev_buf *out)
{
	return ft_list_show(NULL, TREV_FT_FILTER, out);
}

int trev__ftrace_available_show(struct trev_buf *out)
{
	struct ft_module **order;
	size_t nr = 0, k = 0;
	int ret = 0;

	pthread_mutex_lock(&ft_lock);
	for (struct ft_module *m = ft_modules; m; m = m->next)
		nr++;
	/* The program first, then objects in the order they came (the list is newest first). */
	order = calloc(nr ? nr : 1, sizeof(*order));
	if (!order) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	for (struct ft_module *m = ft_modules; m; m = m->next)
		order[nr - 1 - k++] = m;
	for (size_t j = 0; j < nr && !ret; j++) {
		struct ft_module *m = order[j];

		module_name_sites(m);
		for (size_t i = 0; i < m->nr_sites && !ret; i++)
			if (!(m->sites[i].flags & FT_BAD) && m->sites[i].name)
				ret = site_show(out, m, &m->sites[i]);
	}
	free(order);
out_unlock:
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

unsigned int trev__ftrace_graph_max_depth(void)
{
	return trev__fg_max_depth();
}

void trev__ftrace_graph_set_max_depth(unsigned int depth)
{
	trev__fg_set_max_depth(depth);
}

unsigned long long trev__ftrace_graph_thresh(void)
{
	return trev__fg_thresh();
}

void trev__ftrace_graph_set_thresh(unsigned long long ns)
{
	trev__fg_set_thresh(ns);
}

/*
 * Library @m registered: the pending terms naming it, in every instance's
 * set_ftrace_filter and set_ftrace_notrace, select its functions now and
 * go (the kernel's process_cached_mods() at a module's load). Before the
 * caller's ft_apply(). Context: ft_lock.
 */
static void pend_apply(struct ft_module *m)
{
	if (!m->mod)
		return;
	for (unsigned int i = 0; i < FT_MAX_INST; i++) {
		struct ft_inst *in = i ? ft_insts[i] : NULL;

		if (i && !in)
			continue;
		for (int l = TREV_FT_FILTER; l <= TREV_FT_NOTRACE; l++) {
			struct ft_pend **pp = pend_head(in, (enum trev_ft_list)l), *e;
			bool hit = false;

			while ((e = *pp)) {
				if (strcmp(e->mod, m->mod)) {
					pp = &e->next;
					continue;
				}
				module_name_sites(m);
				for (size_t k = 0; k < m->nr_sites; k++) {
					struct ft_site *s = &m->sites[k];

					if (!(s->flags & FT_BAD) && s->name &&
					    glob_ok(*e->func ? e->func : "*", s->name))
						site_put(s, in, (enum trev_ft_list)l, true);
				}
				*pp = e->next;
				e->next = NULL;
				pend_free(e);
				hit = true;
			}
			if (hit)
				list_recount(in, (enum trev_ft_list)l);
		}
	}
}

/* ------------------------------------------------------------------ */
/* set_ftrace_pid                                                       */

static void pids_replace(_Atomic(struct trev_pid_list *) *where, struct trev_pid_list *p)
{
	struct trev_pid_list *old = atomic_exchange_explicit(where, p, memory_order_acq_rel);

	/* The top's notrace list is read off the fast path: make the trampoline take the other. */
	if (where == &ft_nopids) {
		if (p)
			atomic_fetch_or(&trev__ft_extra, TREV_FT_EXTRA_NOPID);
		else
			atomic_fetch_and(&trev__ft_extra, ~TREV_FT_EXTRA_NOPID);
	}
	if (old) {
		trev__rcu_synchronize();
		trev_tsan_acquire(old);
		free(old);
	}
}

/*
 * Where the pid list of @tr is (@notrace: set_ftrace_notrace_pid's); with
 * @create, a named instance gets its state. Context: ft_lock.
 * Return: NULL with *@err set, or (without @create) when there is none.
 */
static _Atomic(struct trev_pid_list *) *pids_where(struct trev_trace_array *tr, bool notrace,
					     bool create, int *err)
{
	struct ft_inst *in;

	if (tr_is_top(tr))
		return notrace ? &ft_nopids : &ft_pids;
	in = inst_get(tr, create, err);
	if (!in)
		return NULL;
	return notrace ? &in->nopids : &in->pids;
}

int trev__ftrace_pid_clear(struct trev_trace_array *tr, bool notrace)
{
	_Atomic(struct trev_pid_list *) *where;

	pthread_mutex_lock(&ft_lock);
	where = pids_where(tr, notrace, false, NULL);
	if (where)
		pids_replace(where, NULL);
	pthread_mutex_unlock(&ft_lock);
	return 0;
}

int trev__ftrace_pid_write(struct trev_trace_array *tr, bool notrace, const char *text,
			   size_t len, int *err_pos)
{
	_Atomic(struct trev_pid_list *) *where;
	struct trev_pid_list *p;
	int ret = 0;

	pthread_mutex_lock(&ft_lock);
	where = pids_where(tr, notrace, true, &ret);
	if (!where) {
		*err_pos = 0;
		goto out_unlock;
	}
	/* ft_lock: the list is ours. Pid 0 is taken, as the kernel's idle task is. */
	p = trev__pid_list_add(atomic_load_explicit(where, memory_order_relaxed), text, len, true,
			       err_pos, &ret);
	if (p && p->n)
		pids_replace(where, p);
	else
		free(p);
out_unlock:
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

int trev__ftrace_pid_show(struct trev_trace_array *tr, bool notrace, struct trev_buf *out)
{
	_Atomic(struct trev_pid_list *) *where;
	struct trev_pid_list *p;
	int ret = 0;

	pthread_mutex_lock(&ft_lock);
	where = pids_where(tr, notrace, false, NULL);
	p = where ? atomic_load_explicit(where, memory_order_relaxed) : NULL;
	if (!p)
		ret = trev__buf_puts(out, "no pid\n");
	for (size_t i = 0; p && i < p->n && !ret; i++)
		ret = trev__buf_printf(out, "%d\n", (int)p->tid[i]);
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Probes at patchable entries (src/probe/)                             */

void trev__ftrace_probe_hook_set(trev_ft_probe_fn fn, trev_ft_probe_exit_fn exit,
				 trev_ft_probe_fast_fn fast)
{
	trev__fg_probe_exit_set(exit);
	__atomic_store_n(&ft_probe_fn, fn, __ATOMIC_RELEASE);
	__atomic_store_n(&trev__ft_probe_fast_fn, fast, __ATOMIC_RELEASE);
}

int trev__ftrace_probe_site(uintptr_t addr, bool on, const char **why)
{
	const uint64_t bit = 1ull << FT_PROBE_SLOT;
	struct ft_site *s;
	unsigned int n;
	pid_t blocker;
	int ret = 0;

	pthread_mutex_lock(&ft_lock);
	s = site_find(addr);
	if (!s || (s->flags & FT_BAD)) {
		ret = -ENOENT;
		goto out_unlock;
	}
	n = s->flags >> FT_PROBE_SHIFT;
	if (!on && !n)
		goto out_unlock;
	s->flags = on ? s->flags + FT_PROBE_ONE : s->flags - FT_PROBE_ONE;
	if (on ? n : n > 1)
		goto out_unlock;	/* another probe keeps it as it is */
	s->imask[TREV_FT_FILTER] ^= bit;
	ft_probe_sites = on ? ft_probe_sites + 1 : ft_probe_sites - 1;
	ft_inst_on = ft_probe_sites ? ft_inst_on | bit : ft_inst_on & ~bit;
	ret = ft_apply(&blocker);
	if (ret) {
		s->flags = on ? s->flags - FT_PROBE_ONE : s->flags + FT_PROBE_ONE;
		s->imask[TREV_FT_FILTER] ^= bit;
		ft_probe_sites = on ? ft_probe_sites - 1 : ft_probe_sites + 1;
		ft_inst_on = ft_probe_sites ? ft_inst_on | bit : ft_inst_on & ~bit;
		ft_apply(&blocker);	/* the sites already changed go back */
		*why = ft_apply_why(ret);
	}
out_unlock:
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

/* A module's path names @path: the same file, or its name as given. */
static bool module_is(const struct ft_module *m, const char *path)
{
	char *a, *b;
	bool same;

	if (!*path)
		return !m->mod;
	if (strcmp(m->path, path) == 0)
		return true;
	if (!strchr(path, '/'))
		return m->mod && strcmp(m->mod, path) == 0;	/* a module's name */
	a = realpath(m->path, NULL);
	b = realpath(path, NULL);
	same = a && b && strcmp(a, b) == 0;
	free(a);
	free(b);
	return same;
}

int trev__ftrace_probe_lookup(const char *path, const char *sym, uintptr_t *addr)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&ft_lock);
	/* The program first: the list is newest first, the program at its end. */
	for (int pass = 0; pass < 2 && ret; pass++) {
		for (struct ft_module *m = ft_modules; m && ret; m = m->next) {
			if (pass == 0 ? !!m->mod : !m->mod)
				continue;
			if (path && !module_is(m, path))
				continue;
			module_name_sites(m);
			for (size_t i = 0; i < m->nr_sites; i++) {
				struct ft_site *s = &m->sites[i];

				if (!(s->flags & FT_BAD) && s->name && strcmp(s->name, sym) == 0) {
					*addr = s->addr;
					ret = 0;
					break;
				}
			}
		}
	}
	pthread_mutex_unlock(&ft_lock);
	return ret;
}

bool trev__ftrace_probe_valid(uintptr_t addr, char *name, size_t size)
{
	struct ft_site *s;
	bool ok = false;

	pthread_mutex_lock(&ft_lock);
	s = site_find(addr);
	if (s && !(s->flags & FT_BAD)) {
		for (struct ft_module *m = ft_modules; m; m = m->next)
			if (s >= m->sites && s < m->sites + m->nr_sites)
				module_name_sites(m);
		ok = true;
		if (size)
			snprintf(name, size, "%s", s->name ? s->name : "");
	}
	pthread_mutex_unlock(&ft_lock);
	return ok;
}

/* A child of fork() is one thread, whose id is not its parent's. */
static void ft_atfork_child(void)
{
	ft_tid = 0;
}

static __attribute__((constructor)) void ft_init(void)
{
	pthread_atfork(NULL, NULL, ft_atfork_child);
}
