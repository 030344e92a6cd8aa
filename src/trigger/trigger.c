/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trigger framework (the kernel's trace_events_trigger.c core): parsing
 * a line of a trigger file, the per-file RCU lists of triggers, the flags
 * the probe tests, and running the triggers from the probe. The commands
 * are in trigger_cmds.c; trigger_internal.h documents the interface.
 *
 * The list of a file is singly linked, newest first. Only writers holding
 * the registry lock change it; they publish with a release store
 * (rcu_assign_pointer) and unlink with one store, then wait a grace period
 * before ->unreg() and free. The probe walks it inside an RCU read section
 * with acquire loads.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>


#include <trev/tracepoint.h>

#include "base/log.h"
#include "base/rcu.h"
#include "ring_buffer/rb_internal.h"
#include "trigger/trigger_internal.h"

/* ------------------------------------------------------------------ */
/* The probe side                                                       */

static inline struct trev_event_trigger *trig_first(struct trev_event_file *file)
{
	return __atomic_load_n(&file->triggers, __ATOMIC_ACQUIRE);	/* rcu_dereference() */
}

static inline struct trev_event_trigger *trig_next(struct trev_event_trigger *t)
{
	return __atomic_load_n(&t->next, __ATOMIC_ACQUIRE);
}

/* Take one off the count; false when none is left. Signal-safe (a CAS loop). */
static bool trig_count_take(struct trev_event_trigger *t)
{
	long c = atomic_load_explicit(&t->count, memory_order_relaxed);

	do {
		if (c == 0)
			return false;
		if (c < 0)
			return true;	/* -1: unlimited */
	} while (!atomic_compare_exchange_weak_explicit(&t->count, &c, c - 1,
							memory_order_relaxed,
							memory_order_relaxed));
	return true;
}

/* The kernel's data_ops_trigger(): the count, then the command. */
static void trig_run(struct trev_event_trigger *t, void *rec, unsigned int len)
{
	if (t->has_count) {
		if (t->cmd->skip && t->cmd->skip(t))
			return;
		if (!trig_count_take(t))
			return;
	}
	t->cmd->fire(t, rec, len);
}

/* Every trigger of the list from @t: filters, counts, post commands. */
static __attribute__((noinline)) unsigned int trig_call_list(struct trev_event_trigger *t,
							      void *rec, unsigned int len)
{
	unsigned int tt = 0;

	for (; t; t = trig_next(t)) {
		if (atomic_load_explicit(&t->paused, memory_order_relaxed))
			continue;
		if (!rec) {
			trig_run(t, NULL, 0);
			continue;
		}
		if (t->filter && !trev__filter_match(t->filter, rec, len, trev__rb_this_cpu()))
			continue;
		if (t->cmd->flags & TREV_TRIGGER_CMD_POST) {
			tt |= t->cmd->type;
			continue;
		}
		trig_run(t, rec, len);
	}
	return tt;
}

/*
 * A file whose one trigger is ->plain (a hist trigger, as a rule) fires it
 * with nothing else to ask: no loop, nothing kept across the call. For such
 * a trigger the list walk would do the same: no filter to run, no count to
 * take, not a post command, and ->fire(t, NULL, 0) when there is no record.
 */
unsigned int trev__triggers_call(struct trev_event_file *file, void *rec, unsigned int len)
{
	struct trev_event_trigger *t = trig_first(file);

	if (trev_likely(t && t->plain && !trig_next(t))) {
		if (!atomic_load_explicit(&t->paused, memory_order_relaxed))
			t->cmd->fire(t, rec, len);
		return 0;
	}
	return trig_call_list(t, rec, len);
}

void trev__triggers_post_call(struct trev_event_file *file, unsigned int tt)
{
	for (struct trev_event_trigger *t = trig_first(file); t; t = trig_next(t)) {
		if (atomic_load_explicit(&t->paused, memory_order_relaxed))
			continue;
		if (t->cmd->type & tt)
			trig_run(t, NULL, 0);
	}
}

/* ------------------------------------------------------------------ */
/* Helpers for the commands                                             */

int trev__trigger_parse_count(struct trev_event_trigger *t, const char *text,
			      struct trev_trigger_err *err)
{
	unsigned long v;
	char *end;

	if (!text)
		return 0;
	errno = 0;
	/* kstrtoul(base 0): digits only, no sign, no space. */
	if (!isdigit((unsigned char)text[0]))
		goto out_bad;
	v = strtoul(text, &end, 0);
	if (errno || *end || v > (unsigned long)__LONG_MAX__)
		goto out_bad;
	atomic_store_explicit(&t->count, (long)v, memory_order_relaxed);
	t->has_count = true;
	return 0;
out_bad:
	err->msg = "Invalid count";
	err->pos = 0;
	return -EINVAL;
}

int trev__trigger_print_std(const struct trev_event_trigger *t, const char *name,
			    struct trev_buf *out)
{
	long c = atomic_load_explicit(&t->count, memory_order_relaxed);
	int ret;

	if (c == -1)
		ret = trev__buf_printf(out, "%s:unlimited", name);
	else
		ret = trev__buf_printf(out, "%s:count=%ld", name, c);
	if (ret)
		return ret;
	if (t->filter_text)
		return trev__buf_printf(out, " if %s\n", t->filter_text);
	return trev__buf_puts(out, "\n");
}

static bool trig_same(const struct trev_event_trigger *a, const struct trev_event_trigger *b)
{
	if (a->cmd->match)
		return a->cmd->type == b->cmd->type && a->cmd->match(a, b);
	return a->cmd->type == b->cmd->type;
}

struct trev_event_trigger *trev__trigger_find(struct trev_event_file *file,
					      const struct trev_event_trigger *t)
{
	for (struct trev_event_trigger *i = file->triggers; i; i = i->next)
		if (i != t && trig_same(i, t))
			return i;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Updating a file's list (registry lock held for writing)              */

static struct trev_event_trigger *trig_alloc(const struct trev_trigger_cmd *cmd,
					     struct trev_event_file *file)
{
	struct trev_event_trigger *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cmd = cmd;
	t->file = file;
	atomic_init(&t->count, -1);
	atomic_init(&t->paused, false);
	return t;
}

/* Free a trigger nobody can see (never published, or unlinked a grace period ago). */
static void trig_free(struct trev_event_trigger *t)
{
	if (t->cmd->free)
		t->cmd->free(t);
	if (t->filter)
		trev__filter_free(t->filter);
	free(t->filter_text);
	free(t);
}

/* The kernel's update_cond_flag() and trace_event_trigger_enable_disable() flags. */
static void trig_update_flags(struct trev_event_file *file)
{
	unsigned int set = 0, all = TREV_FILE_FL_TRIGGER_MODE | TREV_FILE_FL_TRIGGER_COND;

	/*
	 * A built-in event's file has no probe to tell: trace_marker runs
	 * ftrace/print's triggers itself, as the kernel's tracing_mark_write()
	 * does, and trace_printk(), which records ftrace/print through the
	 * same file, runs none (nor does the kernel's).
	 */
	if (file->call->flags & TREV_EVENT_FL_FTRACE)
		return;
	for (struct trev_event_trigger *t = file->triggers; t; t = t->next) {
		set |= TREV_FILE_FL_TRIGGER_MODE;
		if (t->filter || (t->cmd->flags & (TREV_TRIGGER_CMD_POST |
						   TREV_TRIGGER_CMD_NEEDS_REC)))
			set |= TREV_FILE_FL_TRIGGER_COND;
	}
	atomic_fetch_or(&file->flags, set);
	atomic_fetch_and(&file->flags, ~(all & ~set));
}

/* Unlink @t from its file's list (readers may still hold it). */
static void trig_unlink(struct trev_event_trigger *t)
{
	struct trev_event_trigger **p;

	for (p = &t->file->triggers; *p && *p != t; p = &(*p)->next)
		;
	if (*p)
		__atomic_store_n(p, t->next, __ATOMIC_RELEASE);
	trig_update_flags(t->file);
}

/*
 * After unlinking: wait until no probe can hold them, then undo and free
 * each of @list, chained through ->gone (->next stays as it was: a probe
 * may still be on an unlinked trigger and step to its old successor).
 * @live: the triggering file's probe may still be registered (drop its
 * soft-mode reference); false when the file is going away with it.
 */
static void trig_release_list(struct trev_event_trigger *list, bool live)
{
	if (!list)
		return;
	trev__rcu_synchronize();
	while (list) {
		struct trev_event_trigger *t = list;

		list = t->gone;
		/* For TSan: __traceiter_*() releases its tracepoint after the probes. */
		if (t->file->call->tp)
			trev_tsan_acquire(t->file->call->tp);
		if (t->cmd->unreg)
			t->cmd->unreg(t);
		if (live)
			trev__file_soft_mode_locked(t->file, false);
		trig_free(t);
	}
}

/* Unlink every trigger of @file for which @pick says so, chaining them on *@out. */
static void trig_unlink_if(struct trev_event_file *file,
			   bool (*pick)(const struct trev_event_trigger *t, const void *arg),
			   const void *arg, struct trev_event_trigger **out)
{
	struct trev_event_trigger *t = file->triggers, *next;

	for (; t; t = next) {
		next = t->next;
		if (pick && !pick(t, arg))
			continue;
		trig_unlink(t);
		t->gone = *out;
		*out = t;
	}
}

static bool trig_not_busy(const struct trev_event_trigger *t, const void *arg)
{
	(void)arg;
	return !t->cmd->busy || !t->cmd->busy(t);
}

void trev__triggers_clear(struct trev_event_file *file)
{
	struct trev_event_trigger *gone = NULL;

	/* As the kernel's hist_unreg_all(): a trigger still referenced stays. */
	trig_unlink_if(file, trig_not_busy, NULL, &gone);
	trig_release_list(gone, true);
}

void trev__triggers_free_file(struct trev_event_file *file)
{
	struct trev_event_trigger *gone = NULL;

	trig_unlink_if(file, NULL, NULL, &gone);
	/* No probe runs them: the grace period is for readers of other files' targets. */
	trig_release_list(gone, false);
}

struct trig_walk {
	struct trev_trace_array *tr;	/* NULL: every instance */
	const struct trev_event_call *call; /* drop triggers that use it */
	struct trev_event_trigger *gone;
};

static bool trig_uses(const struct trev_event_trigger *t, const void *arg)
{
	const struct trev_event_call *call = arg;

	return t->file->call == call || (t->cmd->uses && t->cmd->uses(t, call));
}

static int trig_walk_call(struct trev_event_call *call, void *arg)
{
	struct trig_walk *w = arg;
	struct trev_event_file *file = trev__event_file(w->tr, call, false);

	if (!file || !file->triggers)
		return 0;
	if (w->call)
		trig_unlink_if(file, trig_uses, w->call, &w->gone);
	else
		trig_unlink_if(file, NULL, NULL, &w->gone);
	return 0;
}

static int trig_walk_instance(struct trev_trace_array *tr, void *arg)
{
	struct trig_walk *w = arg;

	w->tr = tr;
	return trev__events_for_each(trig_walk_call, w);
}

void trev__triggers_clear_instance(struct trev_trace_array *tr)
{
	struct trig_walk w = { tr, NULL, NULL };

	trev__events_write_lock();
	trev__events_for_each(trig_walk_call, &w);
	trig_release_list(w.gone, true);
	trev__events_write_unlock();
}

void trev__triggers_drop_call(struct trev_event_call *call)
{
	struct trig_walk w = { NULL, call, NULL };
	struct trev_trace_array *top = trev__top_instance_if_made();

	if (top)
		trig_walk_instance(top, &w);
	trev__instance_for_each(trig_walk_instance, &w);
	/*
	 * @call's own probes are gone already, so its files' soft-mode
	 * references need no dropping; the others' do, and dropping one of
	 * @call's is harmless (its file goes next).
	 */
	trig_release_list(w.gone, true);
}

/* ------------------------------------------------------------------ */
/* The trigger file                                                     */

static const struct trev_trigger_cmd *trig_cmd_find(const char *name, size_t len)
{
	for (unsigned int i = 0; i < trev__nr_trigger_cmds; i++) {
		const struct trev_trigger_cmd *c = trev__trigger_cmds[i];

		if (strlen(c->name) == len && strncmp(c->name, name, len) == 0)
			return c;
	}
	return NULL;
}

static bool trig_space(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Split @s at the first word "if" (at the start or after a blank, and
 * followed by a blank or the end): return it, or NULL.
 */
static char *trig_find_if(char *s)
{
	for (char *p = s; (p = strstr(p, "if")) != NULL; p += 2) {
		if ((p == s || trig_space(p[-1])) && (!p[2] || trig_space(p[2])))
			return p;
	}
	return NULL;
}

/* Log @msg at column @pos of @line in @tr's error_log (loc "trigger", as the hist errors use). */
static void trig_error(struct trev_trace_array *tr, const char *line, int pos, const char *msg)
{
	trev__tracing_log_err(tr, "trigger", line, pos, "%s", msg);
}

/* The same at a command's own location (hist: "hist:<sys>:<ev>"). */
static void trig_error_at(struct trev_trace_array *tr, const char *loc, const char *line, int pos,
			  const char *msg)
{
	trev__tracing_log_err(tr, loc ? loc : "trigger", line, pos, "%s", msg);
}

int trev__trigger_write(struct trev_trace_array *tr, struct trev_event_file *file,
			const char *text)
{
	char *line = strdup(text), *shown = strdup(text);
	char *name, *rest = NULL, *param = NULL, *cond = NULL;
	const struct trev_trigger_cmd *cmd;
	struct trev_trigger_err err = { NULL, 0, NULL };
	struct trev_event_trigger *t = NULL, *old;
	bool remove;
	size_t len;
	int ret;

	/* @shown goes to error_log as written: the parsers cut @line up. */
	if (!line || !shown) {
		ret = -ENOMEM;
		goto out_free;
	}
	remove = line[0] == '!';
	name = line + remove;
	len = strcspn(name, ": \t");
	cmd = trig_cmd_find(name, len);
	if (!cmd) {
		trig_error(tr, shown, remove, "Unknown trigger command");
		ret = -EINVAL;
		goto out_free;
	}
	if (name[len]) {
		rest = name + len + 1;
		while (trig_space(*rest))
			rest++;
		if (!*rest)
			rest = NULL;
	}
	if (rest) {
		cond = trig_find_if(rest);
		if (cond) {
			char *end = cond;

			while (end > rest && trig_space(end[-1]))
				end--;
			*end = '\0';
			cond += 2;
			while (trig_space(*cond))
				cond++;
			if (!*cond) {
				trig_error(tr, shown, (int)(cond - line), "No filter after 'if'");
				ret = -EINVAL;
				goto out_free;
			}
		}
		if (*rest)
			param = rest;
	}
	t = trig_alloc(cmd, file);
	if (!t) {
		ret = -ENOMEM;
		goto out_free;
	}
	/* Before ->parse: removal and hist's :pause/:cont/:clear match on it. */
	if (cond && !(t->filter_text = strdup(cond))) {
		ret = -ENOMEM;
		goto out_free_trigger;
	}
	ret = cmd->parse ? cmd->parse(t, param, remove, &err) : 0;
	if (ret < 0) {
		if (ret == -EINVAL)
			trig_error_at(tr, err.loc, shown,
				      (int)(param ? param - line : (long)len + remove) + err.pos,
				      err.msg ? err.msg : "Invalid argument");
		goto out_free_trigger;
	}
	if (ret > 0) {
		ret = 0;
		goto out_free_trigger;
	}
	if (remove) {
		old = trev__trigger_find(file, t);
		if (old && old->cmd->busy && old->cmd->busy(old)) {
			ret = -EBUSY;
			goto out_free_trigger;
		}
		if (old) {
			trig_unlink(old);
			old->gone = NULL;
			trig_release_list(old, true);
		}
		goto out_free_trigger;
	}
	if (cond) {
		struct trev_filter_error ferr = { NULL, 0 };

		ret = trev__filter_compile(file->call, cond, &t->filter, &ferr);
		if (ret) {
			if (ret == -EINVAL)
				trig_error(tr, shown, (int)(cond - line) + ferr.pos,
					   ferr.msg ? ferr.msg : "Invalid filter");
			goto out_free_trigger;
		}
	}
	if (trev__trigger_find(file, t)) {
		trig_error(tr, shown, remove, "Trigger already exists");
		ret = -EEXIST;
		goto out_free_trigger;
	}
	ret = cmd->reg ? cmd->reg(t) : 0;
	if (ret)
		goto out_free_trigger;
	ret = trev__file_soft_mode_locked(file, true);
	if (ret) {
		if (cmd->unreg)
			cmd->unreg(t);
		goto out_free_trigger;
	}
	t->plain = !t->filter && !t->has_count && !(cmd->flags & TREV_TRIGGER_CMD_POST);
	t->next = file->triggers;
	__atomic_store_n(&file->triggers, t, __ATOMIC_RELEASE);	/* rcu_assign_pointer() */
	trig_update_flags(file);
	t = NULL;
out_free_trigger:
	if (t)
		trig_free(t);
out_free:
	free(shown);
	free(line);
	return ret;
}

int trev__trigger_show(struct trev_event_file *file, struct trev_buf *out)
{
	int ret = 0;

	if (!file || !file->triggers) {
		ret = trev__buf_puts(out, "# Available triggers:\n#");
		for (unsigned int i = 0; !ret && i < trev__nr_trigger_cmds; i++)
			ret = trev__buf_printf(out, " %s", trev__trigger_cmds[i]->name);
		return ret ? ret : trev__buf_puts(out, "\n");
	}
	for (struct trev_event_trigger *t = file->triggers; t && !ret; t = t->next) {
		if (t->cmd->print)
			ret = t->cmd->print(t, out);
		else
			ret = trev__trigger_print_std(t, t->cmd->name, out);
	}
	return ret;
}
