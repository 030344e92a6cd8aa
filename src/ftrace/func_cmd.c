/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function commands of set_ftrace_filter (the kernel's function probes:
 * ftrace.c's register_ftrace_function_probe(), the traceon, traceoff,
 * stacktrace, dump and cpudump commands of trace_functions.c, snapshot of
 * trace.c, enable_event and disable_event of trace_events.c) and the
 * func_stack_trace option's stack records. docs/function-tracer.md,
 * "Function commands".
 *
 * The model is the kernel's:
 *
 *   probe  one kind of command: a command with or without a count (the
 *          kernel's probe ops: traceoff and traceoff:N are two kinds, and
 *          "!f:traceoff" removes only the first) in one instance: each
 *          instance's set_ftrace_filter has its own probes, acting on that
 *          instance (the kernel's tr->func_probes). Newest first in
 *          fc_probes, all instances' together (one table for the trampoline).
 *   bind   one kind on one function. traceon, traceoff, snapshot,
 *          stacktrace, dump and cpudump count per function (the kernel's
 *          ftrace_func_mapper); enable_event and disable_event share one
 *          count among the functions of one write (its event_probe_data).
 *   data   what a command acts with: a trigger of the trigger layer
 *          (src/trigger/), whose commands do the work (snapshot's arm and
 *          swap, traceon's switch, enable_event's target and soft mode);
 *          this file only takes the counts and chooses the functions.
 *
 * A write stages its changes (bindings STAGED or DYING) and commits or
 * aborts them at its end, so a refused write leaves the commands as they
 * were. The trampoline does not read these lists: it reads fc_table, an
 * array sorted by address made from them and replaced whole (RCU): a
 * reader in trev__ft_entry() holds an RCU read section; the writer
 * publishes with a release exchange and frees the old table, the bindings
 * it referred to and their data only after trev__rcu_synchronize().
 *
 * Locking: everything but the trampoline's side runs under ft_lock
 * (ftrace.c); a write of set_ftrace_filter also holds the registry lock
 * for writing, taken before ft_lock (the trigger commands' parse, reg and
 * unreg need it).
 */
#include <errno.h>
#include <execinfo.h>
#include <fnmatch.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>


#include <trev/tracepoint.h>

#include "base/buf.h"
#include "base/rcu.h"
#include "base/log.h"
#include "ftrace/func_cmd.h"
#include "output/output.h"
#include "trigger/trigger_internal.h"
#include "write/write.h"

_Atomic unsigned int trev__ft_extra;

enum fc_kind {
	FC_ONOFF,	/* traceon, traceoff: the trigger command's skip and fire */
	FC_SNAPSHOT,	/* the snapshot trigger's arm, swap, disarm */
	FC_STACK,	/* a kernel_stack record (trev__stack_record()) */
	FC_EVENT,	/* enable_event, disable_event: the trigger command whole */
	FC_DUMP,	/* the trace text to the log */
	FC_CPUDUMP,	/* one CPU's trace text to the log */
};

struct fc_cmd {
	const char *name;	/* as written after "func:" */
	enum fc_kind kind;
	const char *trigger;	/* the trigger command it runs, or NULL */
};

/* The kernel's commands (register_ftrace_command()). */
static const struct fc_cmd fc_cmds[] = {
	{ "traceon", FC_ONOFF, "traceon" },
	{ "traceoff", FC_ONOFF, "traceoff" },
	{ "snapshot", FC_SNAPSHOT, "snapshot" },
	{ "stacktrace", FC_STACK, NULL },
	{ "enable_event", FC_EVENT, "enable_event" },
	{ "disable_event", FC_EVENT, "disable_event" },
	{ "dump", FC_DUMP, NULL },
	{ "cpudump", FC_CPUDUMP, NULL },
};

/* What a command acts with: one trigger of the trigger layer. */
struct fc_data {
	struct trev_event_trigger trig;	/* ->cmd: the trigger command, ->file: &host */
	struct trev_event_file host;	/* only ->tr (the probe's instance) is read */
	int refs;			/* its probe and bindings */
	bool reg;			/* trig.cmd->reg() done: ->unreg() when it goes */
	bool fresh;			/* made by the write in progress: never published */
	struct fc_data *next_gone;	/* fc_data_gone, fc_data_safe */
};

struct fc_probe {
	const struct fc_cmd *cmd;
	struct trev_trace_array *tr;	/* whose set_ftrace_filter has it (the kernel's tr->func_probes) */
	bool counted;			/* written with ":N" (the kernel's count ops) */
	struct fc_data *data;		/* traceon/traceoff/snapshot: shared; else NULL */
	size_t nr;			/* its bindings, any state */
	bool fresh;			/* made by the write in progress: never published */
	struct fc_probe *next;		/* fc_probes: newest first */
	struct fc_probe *next_gone;	/* fc_probe_gone */
};

enum fc_state { FC_LIVE, FC_STAGED, FC_DYING };

struct fc_bind {
	struct fc_probe *probe;
	uintptr_t addr;			/* the function's site */
	const char *name, *mod;		/* the site's (ftrace.c), valid while it is listed */
	_Atomic long count;		/* firings left, -1 unlimited (per function) */
	struct fc_data *data;		/* the trigger it runs (referenced) */
	enum fc_state state;
};

/* The trampoline's table: one entry per function with commands, by address. */
struct fc_ent {
	uintptr_t addr;
	const struct fc_table *tab;	/* the table it is in (TSan's release) */
	bool traced;			/* the tracer records it (filter and notrace) */
	unsigned int nr;		/* its bindings */
	struct fc_bind *const *binds;	/* into the table's own array */
};

struct fc_table {
	size_t n;
	struct fc_bind **binds;
	struct fc_ent ents[];
};

/* ft_lock: */
static struct fc_probe *fc_probes;
static struct fc_bind **fc_binds;	/* every binding, any state */
static size_t fc_nr, fc_cap;
static struct fc_bind **fc_gone;	/* unlinked, maybe in the table in force */
static size_t fc_gone_nr, fc_gone_cap;
static struct fc_probe *fc_probe_gone;	/* unlinked, its bindings maybe in the table */
static struct fc_data *fc_data_gone;	/* no user left, maybe in the table in force */
static struct fc_data *fc_data_safe;	/* no reader left: ->unreg() and free (registry lock) */
static uintptr_t *fc_addrs;		/* sorted sites with a LIVE binding; rebuilt when dirty */
static size_t fc_addrs_nr;
static bool fc_addrs_dirty;
/* Read by the trampoline (acquire), replaced under ft_lock (release exchange). */
static _Atomic(struct fc_table *) fc_table;

/* One dump at a time, as the kernel's dump_running. */
static atomic_bool fc_dumping;

#define FC_DUMP_ALL	1u
#define FC_DUMP_CPU	2u

/* ------------------------------------------------------------------ */
/* The trampoline's side                                                */

/* Take one off @count; false when none is left. Signal-safe (a CAS loop). */
static bool fc_count_take(_Atomic long *count)
{
	long c = atomic_load_explicit(count, memory_order_relaxed);

	do {
		if (c == 0)
			return false;
		if (c < 0)
			return true;	/* -1: unlimited */
	/* Relaxed: the count orders nothing else; the CAS makes each unit one firing. */
	} while (!atomic_compare_exchange_weak_explicit(count, &c, c - 1, memory_order_relaxed,
							memory_order_relaxed));
	return true;
}

static struct trev_rb *fc_top_rb(void)
{
	struct trev_trace_array *tr = trev__top_instance_if_made();

	/* Acquire: a snapshot swap publishes the buffer it puts in place. */
	return tr ? __atomic_load_n(&tr->rb, __ATOMIC_ACQUIRE) : NULL;
}

const struct fc_ent *trev__fc_lookup(unsigned long ip)
{
	/* Pairs with the release exchange of fc_publish(). */
	struct fc_table *t = atomic_load_explicit(&fc_table, memory_order_acquire);
	size_t lo = 0, hi;

	if (!t)
		return NULL;
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ents[mid].addr == ip)
			return &t->ents[mid];
		if (t->ents[mid].addr < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* For TSan: the grace period orders this read before fc_publish()'s free. */
	trev_tsan_release(t);
	return NULL;
}

bool trev__fc_traced(const struct fc_ent *e)
{
	return e->traced;
}

/*
 * The stack from the traced function on: @ra is where trev__ft_entry()
 * returns into the trampoline; the frame after it is the traced function
 * itself (the return address after its patched call), then its callers,
 * as the kernel's function_stack_trace_call() shows them.
 */
static void fc_stack_record(struct trev_trace_array *tr, void *ra)
{
	struct trev_stack_skip skip = {
		.iter_lo = (unsigned long)ra,
		.iter_hi = (unsigned long)ra + 1,
	};

	trev__stack_record(tr, &skip);
}

void trev__fc_stack(struct trev_trace_array *tr, void *ra)
{
	fc_stack_record(tr, ra);
}

/* One binding's command, in the kernel's order of tests: state, then count. */
static unsigned int fc_fire(struct fc_bind *b, void *ra)
{
	struct trev_event_trigger *t = &b->data->trig;
	struct trev_rb *rb;

	switch (b->probe->cmd->kind) {
	case FC_ONOFF:
		/* As the kernel's update_traceon_count(): a firing that changes nothing is free. */
		if (t->cmd->skip(t) || !fc_count_take(&b->count))
			return 0;
		t->cmd->fire(t, NULL, 0);
		return 0;
	case FC_SNAPSHOT:
		if (fc_count_take(&b->count))
			t->cmd->fire(t, NULL, 0);
		return 0;
	case FC_STACK:
		/*
		 * Into the probe's instance. The kernel's ftrace_stacktrace_count()
		 * does nothing while the top's recording is off (tracing_is_on());
		 * its unlimited ftrace_stacktrace() tests nothing (a ring that is
		 * off drops the record).
		 */
		if (b->probe->counted) {
			rb = fc_top_rb();
			if (!rb || !trev_rb_record_is_on(rb) || !fc_count_take(&b->count))
				return 0;
		}
		fc_stack_record(t->file->tr, ra);
		return 0;
	case FC_EVENT:
		/* event_enable_count_probe(): the shared count, kept while nothing changes. */
		if (t->cmd->skip(t) || !fc_count_take(&t->count))
			return 0;
		t->cmd->fire(t, NULL, 0);
		return 0;
	case FC_DUMP:
		return fc_count_take(&b->count) ? FC_DUMP_ALL : 0;
	case FC_CPUDUMP:
		return fc_count_take(&b->count) ? FC_DUMP_CPU : 0;
	}
	return 0;
}

unsigned int trev__fc_run(const struct fc_ent *e, void *ra)
{
	unsigned int dump = 0;

	for (unsigned int i = 0; i < e->nr; i++)
		dump |= fc_fire(e->binds[i], ra);
	/* For TSan, as in trev__fc_lookup(). */
	trev_tsan_release(e->tab);
	return dump;
}

/*
 * The kernel's ftrace_dump(): tracing off, then the text to the console.
 * Here the console is the library's log (trev_set_log(), stderr by default),
 * one message per line at TREV_LOG_WARN so that the default level shows it;
 * the "# " header lines are left out as the kernel's dump has none. The
 * events are not consumed (the kernel's dump consumes them): the text is
 * the `trace` file's. It runs in the thread that called the function, out
 * of the RCU read section, and allocates.
 */
void trev__fc_dump(unsigned int what)
{
	struct trev_trace_array *tr = trev__top_instance_if_made();
	struct trev_buf chunk = TREV_BUF_INIT;
	struct trev_trace_text *tt;
	struct trev_rb *rb;
	int cpu = -1, ret;
	bool any = false;

	/* Seq-cst exchange: one dumper at a time; its store below lets the next one in. */
	if (!tr || atomic_exchange(&fc_dumping, true))
		return;
	if (!(what & FC_DUMP_ALL))
		cpu = sched_getcpu();
	/* The buffer stays while the lock is held; the options are read as they are (no tfs_lock). */
	pthread_rwlock_rdlock(&tr->buf_lock);
	rb = tr->rb;
	trev_rb_record_off(rb);
	trev__log(TREV_LOG_WARN, "Dumping ftrace buffer:\n");
	if (trev__trace_text_start(tr, rb, cpu < 0 ? -1 : cpu, 0, &tt) == 0) {
		while ((ret = trev__trace_text_next(tt, &chunk, 64 * 1024)) > 0) {
			char *line = chunk.data, *end;

			for (; line < chunk.data + chunk.len; line = end + 1) {
				end = memchr(line, '\n', (size_t)(chunk.data + chunk.len - line));
				if (!end)
					end = chunk.data + chunk.len;
				if (line[0] == '#' || end == line)
					continue;
				trev__log(TREV_LOG_WARN, "%.*s\n", (int)(end - line), line);
				any = true;
			}
			trev__buf_reset(&chunk);
		}
		trev__trace_text_finish(tt);
	}
	pthread_rwlock_unlock(&tr->buf_lock);
	trev__log(TREV_LOG_WARN, any ? "---------------------------------\n"
				     : "   (ftrace buffer empty)\n");
	trev__buf_free(&chunk);
	atomic_store(&fc_dumping, false);
}

/* ------------------------------------------------------------------ */
/* Data, probes, bindings (ft_lock)                                     */

static const struct trev_trigger_cmd *fc_trigger_cmd(const char *name)
{
	for (unsigned int i = 0; i < trev__nr_trigger_cmds; i++)
		if (!strcmp(trev__trigger_cmds[i]->name, name))
			return trev__trigger_cmds[i];
	return NULL;
}

static struct fc_data *fc_data_new(const struct fc_cmd *c, struct trev_trace_array *tr)
{
	struct fc_data *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->host.tr = tr;
	d->host.call = &trev__ftrace_event_function;
	d->trig.file = &d->host;
	d->trig.cmd = c->trigger ? fc_trigger_cmd(c->trigger) : NULL;
	atomic_init(&d->trig.count, -1);
	d->fresh = true;
	return d;
}

/* Undo ->reg() and free. Context: no reader can reach @d; the registry lock. */
static void fc_data_destroy(struct fc_data *d)
{
	if (d->reg && d->trig.cmd->unreg)
		d->trig.cmd->unreg(&d->trig);
	if (d->trig.cmd && d->trig.cmd->free)
		d->trig.cmd->free(&d->trig);
	free(d);
}

static void fc_data_put(struct fc_data *d)
{
	if (!d || --d->refs > 0)
		return;
	if (d->fresh) {
		fc_data_destroy(d);	/* never published: the registry lock is held */
		return;
	}
	d->next_gone = fc_data_gone;
	fc_data_gone = d;
}

static const struct fc_cmd *fc_cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(fc_cmds) / sizeof(fc_cmds[0]); i++)
		if (!strcmp(fc_cmds[i].name, name))
			return &fc_cmds[i];
	return NULL;
}

static struct fc_probe *fc_probe_find(struct trev_trace_array *tr, const struct fc_cmd *c,
				      bool counted)
{
	for (struct fc_probe *p = fc_probes; p; p = p->next)
		if (p->tr == tr && p->cmd == c && p->counted == counted)
			return p;
	return NULL;
}

/*
 * Drop @p when it has no binding left. A reader may still run a binding
 * of it from the table in force (b->probe): freed after the next publish.
 */
static void fc_probe_gc(struct fc_probe *p)
{
	struct fc_probe **pp;

	if (p->nr)
		return;
	for (pp = &fc_probes; *pp && *pp != p; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = p->next;
	fc_data_put(p->data);
	if (p->fresh) {
		free(p);
		return;
	}
	p->next_gone = fc_probe_gone;
	fc_probe_gone = p;
}

static void fc_retire(struct fc_bind *b)
{
	struct fc_bind **n;

	if (fc_gone_nr == fc_gone_cap) {
		size_t cap = fc_gone_cap ? 2 * fc_gone_cap : 16;

		n = realloc(fc_gone, cap * sizeof(*n));
		if (!n) {
			/* No room to defer: leak it rather than free it under a reader. */
			trev__log(TREV_LOG_ERR, "function commands: out of memory, one leaked\n");
			return;
		}
		fc_gone = n;
		fc_gone_cap = cap;
	}
	fc_gone[fc_gone_nr++] = b;
}

/* Unlink binding @i of fc_binds[]; @published: it may be in the table in force. */
static void fc_unlink(size_t i, bool published)
{
	struct fc_bind *b = fc_binds[i];

	fc_binds[i] = fc_binds[--fc_nr];
	b->probe->nr--;
	fc_data_put(b->data);
	if (published)
		fc_retire(b);
	else
		free(b);
	fc_addrs_dirty = true;
}

/* ------------------------------------------------------------------ */
/* Parsing a term                                                       */

struct fc_add {
	struct fc_probe *p;
	struct fc_data *data;
	long count;
	uintptr_t *have;	/* sorted: the functions the probe has already */
	size_t nr_have;
	int added;
	int err;
};

static int addr_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static void fc_add_one(void *arg, uintptr_t addr, const char *name, const char *mod)
{
	struct fc_add *a = arg;
	struct fc_bind *b;

	if (a->err)
		return;
	/* The kernel keeps the one there (and its count). */
	if (a->nr_have && bsearch(&addr, a->have, a->nr_have, sizeof(addr), addr_cmp))
		return;
	if (fc_nr == fc_cap) {
		size_t cap = fc_cap ? 2 * fc_cap : 64;
		struct fc_bind **n = realloc(fc_binds, cap * sizeof(*n));

		if (!n) {
			a->err = -ENOMEM;
			return;
		}
		fc_binds = n;
		fc_cap = cap;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		a->err = -ENOMEM;
		return;
	}
	b->probe = a->p;
	b->addr = addr;
	b->name = name;
	b->mod = mod;
	atomic_init(&b->count, a->count);
	b->data = a->data;
	b->data->refs++;
	b->state = FC_STAGED;
	a->p->nr++;
	fc_binds[fc_nr++] = b;
	a->added++;
}

static int fc_add(struct trev_trace_array *tr, const struct fc_cmd *c, bool counted, long count,
		  struct fc_data *data, const char *func, const char *mod, const char **why)
{
	struct fc_probe *p = fc_probe_find(tr, c, counted);
	struct fc_add a = { .count = count };
	bool made = false;
	int found;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->cmd = c;
		p->tr = tr;
		p->counted = counted;
		p->fresh = true;
		p->next = fc_probes;
		fc_probes = p;
		made = true;
	}
	if (!data) {
		/* traceon, traceoff, snapshot, ...: one trigger for the probe's functions. */
		if (!p->data) {
			p->data = fc_data_new(c, tr);
			if (!p->data)
				goto out_nomem;
			p->data->refs = 1;
			if (c->kind == FC_SNAPSHOT) {
				int ret = p->data->trig.cmd->reg(&p->data->trig);

				if (ret) {
					*why = "Could not allocate the snapshot buffer";
					fc_probe_gc(p);
					return ret;
				}
				p->data->reg = true;
			}
		}
		data = p->data;
	}
	a.p = p;
	a.data = data;
	a.have = malloc((p->nr ? p->nr : 1) * sizeof(*a.have));
	if (!a.have)
		goto out_nomem;
	for (size_t i = 0; i < fc_nr; i++)
		if (fc_binds[i]->probe == p && fc_binds[i]->state != FC_DYING)
			a.have[a.nr_have++] = fc_binds[i]->addr;
	qsort(a.have, a.nr_have, sizeof(*a.have), addr_cmp);
	found = trev__ft_match(func, mod, fc_add_one, &a);
	free(a.have);
	if (a.err) {
		if (made)
			fc_probe_gc(p);
		return a.err;
	}
	if (!found || !a.added) {
		/* The kernel's register_ftrace_function_probe(): nothing found, or nothing added. */
		*why = found ? "The command is already set on these functions" : "No such function";
		fc_probe_gc(p);
		return -EINVAL;
	}
	return 1;

out_nomem:
	fc_probe_gc(p);
	return -ENOMEM;
}

/* "!func:cmd": the kernel's unregister_ftrace_function_probe_func(). */
static int fc_remove(struct trev_trace_array *tr, const struct fc_cmd *c, bool counted,
		     const char *func, const char *mod, const char **why)
{
	struct fc_probe *p = fc_probe_find(tr, c, counted);
	int n = 0;

	if (!p) {
		*why = "No such command is set";
		return -ENODEV;
	}
	if (!*func)
		func = "*";
	for (size_t i = 0; i < fc_nr;) {
		struct fc_bind *b = fc_binds[i];

		if (b->probe != p || b->state == FC_DYING ||
		    fnmatch(func, b->name, FNM_NOESCAPE) ||
		    (mod && (!b->mod || fnmatch(mod, b->mod, FNM_NOESCAPE)))) {
			i++;
			continue;
		}
		n++;
		if (b->state == FC_STAGED) {
			fc_unlink(i, false);	/* added by this write: never published */
			continue;
		}
		b->state = FC_DYING;
		i++;
	}
	if (!n) {
		*why = "No such function";
		return -EINVAL;
	}
	fc_probe_gc(p);
	return 1;
}

static int fc_term_event(struct trev_trace_array *tr, const struct fc_cmd *c, const char *term,
			 const char *func, const char *mod, char *param, bool remove, int *off,
			 const char **why)
{
	struct trev_trigger_err err = { 0 };
	struct fc_data *d;
	bool counted = false;
	int ret;

	if (param) {
		const char *colon = strchr(param, ':');

		counted = colon && strchr(colon + 1, ':');
	}
	d = fc_data_new(c, tr);
	if (!d)
		return -ENOMEM;
	/* The trigger command's parse: "SYSTEM:EVENT[:N]", the event looked up, the count. */
	ret = d->trig.cmd->parse(&d->trig, param, remove, &err);
	if (ret) {
		/* *@off is the command's column; without a parameter, the error is after it. */
		*off = (param ? (int)(param - term) : *off + (int)strlen(c->name)) + err.pos;
		*why = err.msg ? err.msg : "Invalid argument";
		fc_data_destroy(d);
		return ret < 0 ? ret : -EINVAL;
	}
	if (remove) {
		fc_data_destroy(d);
		ret = fc_remove(tr, c, counted, func, mod, why);
		if (ret == -ENODEV)
			*off = (int)(param - term) - (int)strlen(c->name) - 1;
		return ret;
	}
	ret = d->trig.cmd->reg(&d->trig);
	if (ret) {
		*why = "Could not enable the event";
		fc_data_destroy(d);
		return ret;
	}
	d->reg = true;
	ret = fc_add(tr, c, counted, -1, d, func, mod, why);
	if (ret < 0 && !d->refs)
		fc_data_destroy(d);
	return ret;
}

int trev__fc_term(struct trev_trace_array *tr, enum trev_ft_list list, const char *term,
		  const char *func, const char *mod, char *cmd, bool remove, int *off,
		  const char **why)
{
	char *param = strchr(cmd, ':');
	const struct fc_cmd *c;
	long count = -1;
	int ret, cmd_off = (int)(cmd - term);

	if (param)
		*param++ = '\0';
	*off = cmd_off;
	c = fc_cmd_find(cmd);
	if (!c) {
		*why = "No such function command";
		return -EINVAL;
	}
	if (list != TREV_FT_FILTER) {
		/* The kernel's ftrace_trace_probe_callback(): "hash funcs only work with set_ftrace_filter". */
		*why = "Function commands only work with set_ftrace_filter";
		return -EINVAL;
	}
	if (c->kind == FC_EVENT)
		return fc_term_event(tr, c, term, func, mod, param, remove, off, why);
	if (param && !remove) {
		/* The kernel's ftrace_trace_probe_callback(): the number up to the next ':'. */
		struct trev_event_trigger tmp = { 0 };
		struct trev_trigger_err err = { 0 };
		char *colon = strchr(param, ':');

		if (colon)
			*colon = '\0';
		if (*param) {
			atomic_init(&tmp.count, -1);
			if (trev__trigger_parse_count(&tmp, param, &err)) {
				*off = (int)(param - term);
				*why = err.msg;
				return -EINVAL;
			}
			count = atomic_load_explicit(&tmp.count, memory_order_relaxed);
		}
	}
	*off = 0;
	if (!remove)
		return fc_add(tr, c, param != NULL, count, NULL, func, mod, why);
	ret = fc_remove(tr, c, param != NULL, func, mod, why);
	if (ret == -ENODEV)
		*off = cmd_off;
	return ret;
}

void trev__fc_commit(void)
{
	for (size_t i = 0; i < fc_nr;) {
		struct fc_bind *b = fc_binds[i];

		if (b->state == FC_DYING) {
			struct fc_probe *p = b->probe;

			fc_unlink(i, true);
			fc_probe_gc(p);
			continue;
		}
		if (b->state == FC_STAGED) {
			b->state = FC_LIVE;
			fc_addrs_dirty = true;
		}
		b->data->fresh = false;
		i++;
	}
	for (struct fc_probe *p = fc_probes; p; p = p->next)
		p->fresh = false;
}

void trev__fc_abort(void)
{
	for (size_t i = 0; i < fc_nr;) {
		struct fc_bind *b = fc_binds[i];

		if (b->state == FC_STAGED) {
			struct fc_probe *p = b->probe;

			fc_unlink(i, false);
			fc_probe_gc(p);
			continue;
		}
		b->state = FC_LIVE;
		i++;
	}
}

void trev__fc_reap(bool locked)
{
	while (locked && fc_data_safe) {
		struct fc_data *d = fc_data_safe;

		fc_data_safe = d->next_gone;
		fc_data_destroy(d);
	}
}

void trev__fc_instance_gone(const struct trev_trace_array *tr)
{
	for (size_t i = 0; i < fc_nr; i++)
		if (fc_binds[i]->probe->tr == tr)
			fc_binds[i]->state = FC_DYING;
	trev__fc_commit();
}

void trev__fc_sites_gone(uintptr_t lo, uintptr_t hi)
{
	for (size_t i = 0; i < fc_nr;) {
		struct fc_bind *b = fc_binds[i];

		if (b->addr < lo || b->addr > hi) {
			i++;
			continue;
		}
		/* The probe stays, as the kernel's does when a module's functions go. */
		fc_unlink(i, true);
	}
}

bool trev__fc_any(void)
{
	return fc_nr > 0 || atomic_load_explicit(&fc_table, memory_order_relaxed);
}

bool trev__fc_site_probed(uintptr_t addr)
{
	if (fc_addrs_dirty) {
		uintptr_t *n = realloc(fc_addrs, (fc_nr ? fc_nr : 1) * sizeof(*n));

		if (!n)
			return false;
		fc_addrs = n;
		fc_addrs_nr = 0;
		for (size_t i = 0; i < fc_nr; i++)
			if (fc_binds[i]->state == FC_LIVE)
				fc_addrs[fc_addrs_nr++] = fc_binds[i]->addr;
		qsort(fc_addrs, fc_addrs_nr, sizeof(*fc_addrs), addr_cmp);
		fc_addrs_dirty = false;
	}
	return fc_addrs_nr && bsearch(&addr, fc_addrs, fc_addrs_nr, sizeof(addr), addr_cmp);
}

/* ------------------------------------------------------------------ */
/* The table                                                            */

/* By address, then the probes' order (newest first), as they run. */
static size_t fc_probe_rank(const struct fc_probe *p)
{
	size_t r = 0;

	for (const struct fc_probe *q = fc_probes; q && q != p; q = q->next)
		r++;
	return r;
}

static int bind_cmp(const void *a, const void *b)
{
	const struct fc_bind *x = *(struct fc_bind *const *)a, *y = *(struct fc_bind *const *)b;
	size_t rx, ry;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	rx = fc_probe_rank(x->probe);
	ry = fc_probe_rank(y->probe);
	return rx < ry ? -1 : rx > ry;
}

int trev__fc_publish(bool transition)
{
	struct fc_table *old = atomic_load_explicit(&fc_table, memory_order_relaxed), *t = NULL;
	size_t nb = 0, ne = 0, k = 0;
	struct fc_bind **live;

	live = malloc((fc_nr ? fc_nr : 1) * sizeof(*live));
	if (!live)
		return -ENOMEM;
	for (size_t i = 0; i < fc_nr; i++)
		if (fc_binds[i]->state == FC_LIVE)
			live[nb++] = fc_binds[i];
	qsort(live, nb, sizeof(*live), bind_cmp);
	/* Entries: the sites of the live bindings, and in a transition the old table's. */
	ne = nb + (transition && old ? old->n : 0);
	if (ne) {
		t = calloc(1, sizeof(*t) + ne * sizeof(t->ents[0]));
		if (!t) {
			free(live);
			return -ENOMEM;
		}
		t->binds = live;
		live = NULL;
		for (size_t i = 0, j = 0; i < nb || (transition && old && j < old->n);) {
			uintptr_t a;
			struct fc_ent *e;

			if (i < nb && (!transition || !old || j >= old->n ||
				       t->binds[i]->addr <= old->ents[j].addr))
				a = t->binds[i]->addr;
			else
				a = old->ents[j].addr;
			e = &t->ents[k++];
			e->addr = a;
			e->tab = t;
			e->traced = trev__ft_selected(a);
			e->binds = &t->binds[i];
			while (i < nb && t->binds[i]->addr == a) {
				e->nr++;
				i++;
			}
			while (transition && old && j < old->n && old->ents[j].addr <= a)
				j++;
		}
		t->n = k;
	}
	free(live);
	/*
	 * The trampoline looks the table up only while the bit is set: set
	 * before a table goes in, cleared after the last one went (a site
	 * patched for a command is unpatched before the final publish).
	 */
	if (t)
		atomic_fetch_or_explicit(&trev__ft_extra, TREV_FT_EXTRA_PROBES,
					 memory_order_relaxed);
	/* Release: the table's contents before its address (pairs with trev__fc_lookup()). */
	atomic_exchange_explicit(&fc_table, t, memory_order_acq_rel);
	if (!t)
		atomic_fetch_and_explicit(&trev__ft_extra, ~TREV_FT_EXTRA_PROBES,
					  memory_order_relaxed);
	if (old) {
		trev__rcu_synchronize();
		trev_tsan_acquire(old);
		free(old->binds);
		free(old);
	}
	/* Whatever was unlinked before the exchange has no reader left now. */
	for (size_t i = 0; i < fc_gone_nr; i++)
		free(fc_gone[i]);
	fc_gone_nr = 0;
	while (fc_probe_gone) {
		struct fc_probe *p = fc_probe_gone;

		fc_probe_gone = p->next_gone;
		free(p);
	}
	while (fc_data_gone) {
		struct fc_data *d = fc_data_gone;

		fc_data_gone = d->next_gone;
		d->next_gone = fc_data_safe;
		fc_data_safe = d;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Listing                                                              */

static int fc_bind_addr_cmp(const void *a, const void *b)
{
	const struct fc_bind *x = *(struct fc_bind *const *)a, *y = *(struct fc_bind *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The kernel's t_probe_show(): "%ps:" then the command's print (ftrace_probe_print()). */
static int fc_bind_show(struct trev_buf *out, const struct fc_bind *b)
{
	const struct fc_probe *p = b->probe;
	long c;
	int ret;

	ret = b->mod ? trev__buf_printf(out, "%s [%s]:", b->name, b->mod)
		     : trev__buf_printf(out, "%s:", b->name);
	if (ret)
		return ret;
	if (p->cmd->kind == FC_EVENT)
		return b->data->trig.cmd->print(&b->data->trig, out);
	c = atomic_load_explicit(&b->count, memory_order_relaxed);
	if (c == -1)
		return trev__buf_printf(out, "%s:unlimited\n", p->cmd->name);
	return trev__buf_printf(out, "%s:count=%ld\n", p->cmd->name, c);
}

int trev__fc_show(const struct trev_trace_array *tr, struct trev_buf *out)
{
	struct fc_bind **v = malloc((fc_nr ? fc_nr : 1) * sizeof(*v));
	int ret = 0;

	if (!v)
		return -ENOMEM;
	for (struct fc_probe *p = fc_probes; p && !ret; p = p->next) {
		size_t n = 0;

		if (p->tr != tr)
			continue;
		for (size_t i = 0; i < fc_nr; i++)
			if (fc_binds[i]->probe == p && fc_binds[i]->state == FC_LIVE)
				v[n++] = fc_binds[i];
		qsort(v, n, sizeof(*v), fc_bind_addr_cmp);
		for (size_t i = 0; i < n && !ret; i++)
			ret = fc_bind_show(out, v[i]);
	}
	free(v);
	return ret;
}

void trev__fc_stack_prepare(void)
{
	static atomic_bool primed;
	void *prime[2];

	/* A flag only: priming twice is harmless. */
	if (atomic_load(&primed))
		return;
	backtrace(prime, 2);	/* loads libgcc_s: the loader's lock, never under ft_lock */
	atomic_store(&primed, true);
}

void trev__ftrace_func_stack_set(struct trev_trace_array *tr, bool on)
{
	if (tr != trev__top_instance_if_made()) {
		/* An instance's option is read where its records are made (ftrace.c). */
		if (on)
			trev__fc_stack_prepare();
		return;
	}
	/*
	 * The trampoline loads the word relaxed: a call racing the switch may
	 * or may not add its stack, as a call racing the tracer's switch may
	 * or may not be recorded. The unwinder is primed before the bit is set.
	 */
	if (on) {
		trev__fc_stack_prepare();
		atomic_fetch_or(&trev__ft_extra, TREV_FT_EXTRA_STACK);
	} else {
		atomic_fetch_and(&trev__ft_extra, ~TREV_FT_EXTRA_STACK);
	}
}
