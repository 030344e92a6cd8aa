/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * events/ and the event lists (the kernel's trace_events.c files):
 * available_events, set_event, events/{enable,header_page,header_event},
 * events/<system>/{enable,filter} and events/<system>/<event>/{enable,
 * filter,trigger,format,hist,id}, events/ftrace/<event>/{format,hist,id}
 * and events/ftrace/print/trigger; synthetic_events (the definitions are
 * src/trigger/synth.c's).
 *
 * Filters are compiled by src/filter/ and take effect at once; triggers
 * are kept as text here until their language lands.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "filter/filter.h"
#include "tracefs/tracefs_internal.h"
#include "trigger/hist.h"
#include "trigger/synth.h"
#include "trigger/trigger_internal.h"

/* ------------------------------------------------------------------ */
/* Finding events (under the registry read lock)                        */

/* Events that have an enable file: not the built-in ftrace ones. */
static bool ev_switchable(const struct trev_event_call *call)
{
	return !(call->flags & TREV_EVENT_FL_FTRACE);
}

struct ev_find {
	const char *system, *event;
	struct trev_event_call *call;
};

static int ev_find_one(struct trev_event_call *call, void *arg)
{
	struct ev_find *f = arg;

	if (strcmp(call->klass->system, f->system) || (f->event && strcmp(call->name, f->event)))
		return 0;
	f->call = call;
	return 1;
}

/* The event @system:@event, or with @event NULL any event of @system. */
static struct trev_event_call *ev_find(const char *system, const char *event)
{
	struct ev_find f = { system, event, NULL };

	trev__events_for_each(ev_find_one, &f);
	return f.call;
}

/* ------------------------------------------------------------------ */
/* available_events, set_event                                          */

struct ev_list {
	struct trev_trace_array *tr;
	struct trev_buf *out;
	bool enabled_only;
};

static int ev_list_one(struct trev_event_call *call, void *arg)
{
	struct ev_list *l = arg;

	if (!ev_switchable(call))
		return 0;
	if (l->enabled_only) {
		struct trev_event_file *file = trev__event_file(l->tr, call, false);
		unsigned int flags = file ? atomic_load(&file->flags) : 0;

		if (!(flags & TREV_FILE_FL_ENABLED) || (flags & TREV_FILE_FL_SOFT_DISABLED))
			return 0;
	}
	return trev__buf_printf(l->out, "%s:%s\n", call->klass->system, call->name);
}

static int ev_list_show(struct trev_file *f, struct trev_buf *out, bool enabled_only)
{
	struct ev_list l = { f->loc.tr, out, enabled_only };
	int ret;

	trev__events_read_lock();
	ret = trev__events_for_each(ev_list_one, &l);
	trev__events_read_unlock();
	return ret;
}

static int available_events_show(struct trev_file *f, struct trev_buf *out)
{
	return ev_list_show(f, out, false);
}

const struct tfs_fops trev__available_events_fops = {
	.show = available_events_show,
};

static int set_event_open(struct trev_file *f)
{
	/* `echo x > set_event` starts from nothing; `>>` adds. */
	if (tfs_writable(f) && (f->flags & O_TRUNC) && !(f->flags & O_APPEND))
		trev__events_disable_all(f->loc.tr);
	return 0;
}

static int set_event_show(struct trev_file *f, struct trev_buf *out)
{
	return ev_list_show(f, out, true);
}

/*
 * What an enable refused by the jump label patcher says (docs/jump-labels.md):
 * a thread blocks SIGTRAP and would die at the int3 of a site being patched.
 */
#define TFS_JL_BUSY	"A thread blocks SIGTRAP: patching could kill it"

/* Each whitespace-separated word is one set_event term. */
static ssize_t set_event_write(struct trev_file *f, const char *buf, size_t size)
{
	char *copy = strndup(buf, size), *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		int r = trev__set_event_tr(f->loc.tr, w, 0);

		if (r == -EINVAL)
			trev__tracing_log_err(f->loc.tr, "set_event", w, *w == '!', "No such event");
		else if (r == -EBUSY)
			trev__tracing_log_err(f->loc.tr, "set_event", w, 0, "%s", TFS_JL_BUSY);
		if (r && !ret)
			ret = r;
	}
	free(copy);
	return ret ? ret : (ssize_t)size;
}

const struct tfs_fops trev__set_event_fops = {
	.open = set_event_open,
	.show = set_event_show,
	.write = set_event_write,
};

/* ------------------------------------------------------------------ */
/* synthetic_events                                                     */

/* `echo x > synthetic_events` removes every synthetic event first, or none when one is busy. */
static int synth_events_open(struct trev_file *f)
{
	if (tfs_writable(f) && (f->flags & O_TRUNC) && !(f->flags & O_APPEND))
		return trev__synth_release_all();
	return 0;
}

static int synth_events_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__synth_show(out);
}

/*
 * Each line is one command, what follows '#' a comment (the kernel's
 * trace_parse_run_command()); the first refused line ends the write with
 * its error, and the lines before it stay done.
 */
static ssize_t synth_events_write(struct trev_file *f, const char *buf, size_t size)
{
	char *copy = strndup(buf, size), *save = copy, *line;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	while (!ret && (line = strsep(&save, "\n"))) {
		struct trev_synth_error err;

		line[strcspn(line, "#")] = '\0';
		ret = trev__synth_command(line, &err);
		if (ret && err.msg)
			trev__tracing_log_err(trev__top_instance(), "synthetic_events", err.cmd,
					      err.pos, "%s", err.msg);
	}
	(void)f;
	free(copy);
	return ret ? ret : (ssize_t)size;
}

const struct tfs_fops trev__synthetic_events_fops = {
	.open = synth_events_open,
	.show = synth_events_show,
	.write = synth_events_write,
};

/* ------------------------------------------------------------------ */
/* enable files                                                         */

struct ev_state {
	struct trev_trace_array *tr;
	const char *system;		/* NULL: every system */
	unsigned int set;		/* bit 0: some disabled, bit 1: some enabled */
};

static int ev_state_one(struct trev_event_call *call, void *arg)
{
	struct ev_state *st = arg;
	struct trev_event_file *file;

	if (!ev_switchable(call) || (st->system && strcmp(st->system, call->klass->system)))
		return 0;
	file = trev__event_file(st->tr, call, false);
	st->set |= 1u << !!(file && (atomic_load(&file->flags) & TREV_FILE_FL_ENABLED));
	return st->set == 3;
}

/* events/enable and events/<system>/enable: 0, 1, X when mixed, ? when empty. */
static int group_enable_show(struct trev_file *f, struct trev_buf *out)
{
	struct ev_state st = { f->loc.tr, *f->loc.system ? f->loc.system : NULL, 0 };

	trev__events_read_lock();
	trev__events_for_each(ev_state_one, &st);
	trev__events_read_unlock();
	return trev__buf_printf(out, "%c\n", "?01X"[st.set]);
}

static ssize_t enable_write(struct trev_file *f, const char *buf, size_t size)
{
	const char *system = *f->loc.system ? f->loc.system : NULL;
	const char *event = *f->loc.event ? f->loc.event : NULL;
	unsigned long v;
	int ret;

	if (trev__parse_ulong(buf, size, &v) || v > 1) {
		char *cmd = trev__strip(buf, size);

		trev__tracing_log_err(f->loc.tr, "enable", cmd ? cmd : "", 0, "Invalid value (0 or 1)");
		free(cmd);
		return -EINVAL;
	}
	ret = trev__event_enable(f->loc.tr, system, event, v);
	if (ret == -EBUSY) {
		char *cmd = trev__strip(buf, size);

		trev__tracing_log_err(f->loc.tr, "enable", cmd ? cmd : "", 0, "%s", TFS_JL_BUSY);
		free(cmd);
	}
	if (ret == -ENOENT)
		ret = event ? -ENODEV : -EINVAL;	/* the event went away meanwhile */
	return ret ? ret : (ssize_t)size;
}

static const struct tfs_fops group_enable_fops = {
	.show = group_enable_show,
	.write = enable_write,
};

/* events/<system>/<event>/enable: 0 or 1, with '*' in soft mode. */
static int event_enable_show(struct trev_file *f, struct trev_buf *out)
{
	struct trev_event_call *call;
	struct trev_event_file *file;
	unsigned int flags = 0;
	int ret = -ENODEV;

	trev__events_read_lock();
	call = ev_find(f->loc.system, f->loc.event);
	if (call) {
		file = trev__event_file(f->loc.tr, call, false);
		flags = file ? atomic_load(&file->flags) : 0;
		ret = 0;
	}
	trev__events_read_unlock();
	if (ret)
		return ret;
	return trev__buf_printf(out, "%c%s\n",
				(flags & TREV_FILE_FL_ENABLED) &&
				!(flags & TREV_FILE_FL_SOFT_DISABLED) ? '1' : '0',
				flags & (TREV_FILE_FL_SOFT_DISABLED | TREV_FILE_FL_SOFT_MODE) ?
				"*" : "");
}

static const struct tfs_fops event_enable_fops = {
	.show = event_enable_show,
	.write = enable_write,
};

/* ------------------------------------------------------------------ */
/* filter, trigger                                                      */

/* Replace *@slot by a copy of @text, or by NULL. */
static int set_text(char **slot, const char *text)
{
	char *n = NULL;

	if (text && !(n = strdup(text)))
		return -ENOMEM;
	free(*slot);
	*slot = n;
	return 0;
}

static int event_filter_show(struct trev_file *f, struct trev_buf *out)
{
	struct trev_event_call *call;
	struct trev_event_file *file;
	int ret = -ENODEV;

	trev__events_read_lock();
	call = ev_find(f->loc.system, f->loc.event);
	if (call) {
		file = trev__event_file(f->loc.tr, call, false);
		ret = trev__buf_printf(out, "%s\n",
				       file && file->filter ? trev__filter_text(file->filter) :
				       "none");
	}
	trev__events_read_unlock();
	return ret;
}

/* The kernel's location text of every filter error in error_log. */
static const char filter_err_loc[] = "event filter parse error";

/*
 * Compile @text for @call and make it the filter of @call's file in @tr
 * ("0" clears). A text that does not compile changes nothing (the kernel
 * instead disables the event's filter: docs/filters.md).
 * Context: the registry lock held for writing.
 */
static int filter_apply(struct trev_trace_array *tr, struct trev_event_call *call,
			const char *text, struct trev_filter_error *err)
{
	struct trev_filter *flt;
	struct trev_event_file *file;
	int ret = trev__filter_compile(call, text, &flt, err);

	if (ret)
		return ret;
	file = trev__event_file(tr, call, flt != NULL);
	if (!file) {
		trev__filter_free(flt);
		return flt ? -ENOMEM : 0;
	}
	trev__event_filter_set(file, flt);
	return 0;
}

/* events/<sys>/<ev>/filter */
static ssize_t event_filter_write(struct trev_file *f, const char *buf, size_t size)
{
	struct trev_filter_error err;
	struct trev_event_call *call;
	char *text = trev__strip(buf, size);
	int ret = -ENODEV;

	if (!text)
		return -ENOMEM;
	trev__events_write_lock();
	call = ev_find(f->loc.system, f->loc.event);
	if (call)
		ret = filter_apply(f->loc.tr, call, text, &err);
	trev__events_write_unlock();
	if (ret == -EINVAL)
		trev__tracing_log_err(f->loc.tr, filter_err_loc, text, err.pos, "%s", err.msg);
	free(text);
	return ret ? ret : (ssize_t)size;
}

static const struct tfs_fops event_filter_fops = {
	.show = event_filter_show,
	.write = event_filter_write,
};

struct sys_filter_set {
	struct trev_trace_array *tr;
	const char *system, *text;
	int accepted, ret;
	struct sys_filter_fail {
		const char *event;
		struct trev_filter_error err;
	} *fails;			/* events that refused the text */
	int nr_fails;
};

static int sys_filter_one(struct trev_event_call *call, void *arg)
{
	struct sys_filter_set *sf = arg;
	struct trev_filter_error err;
	struct sys_filter_fail *n;
	int ret;

	if (!ev_switchable(call) || strcmp(call->klass->system, sf->system))
		return 0;
	ret = filter_apply(sf->tr, call, sf->text, &err);
	if (ret == -EINVAL) {
		n = realloc(sf->fails, (size_t)(sf->nr_fails + 1) * sizeof(*n));
		if (!n)
			return sf->ret = -ENOMEM;
		sf->fails = n;
		n[sf->nr_fails++] = (struct sys_filter_fail){ call->name, err };
		return 0;
	}
	if (ret)
		return sf->ret = ret;
	sf->accepted++;
	return 0;
}

/* The text shown by events/<sys>/filter; NULL clears. */
static int sys_filter_text_set(struct trev_trace_array *tr, const char *system, const char *text)
{
	struct trev_sys_filter *sf;

	for (sf = tr->sys_filters; sf; sf = sf->next)
		if (strcmp(sf->system, system) == 0)
			break;
	if (!sf && text) {
		sf = calloc(1, sizeof(*sf));
		if (!sf || !(sf->system = strdup(system))) {
			free(sf);
			return -ENOMEM;
		}
		sf->next = tr->sys_filters;
		tr->sys_filters = sf;
	}
	return sf ? set_text(&sf->text, text) : 0;
}

/*
 * events/<sys>/filter: the filter goes to every event of the system where
 * it compiles (the kernel's process_system_preds()); the events where it
 * does not are reported in error_log and keep their filter; if no event
 * took it, the write fails. "0" clears the filter of every event.
 */
static ssize_t system_filter_write(struct trev_file *f, const char *buf, size_t size)
{
	struct sys_filter_set sf = { f->loc.tr, f->loc.system, NULL, 0, 0, NULL, 0 };
	char *text = trev__strip(buf, size);
	int ret;

	if (!text)
		return -ENOMEM;
	sf.text = text;
	trev__events_write_lock();
	trev__events_for_each(sys_filter_one, &sf);
	ret = sf.ret;
	if (!ret && !sf.accepted)
		ret = sf.nr_fails ? -EINVAL : -ENODEV;
	if (!ret)
		ret = sys_filter_text_set(f->loc.tr, f->loc.system,
					  strcmp(text, "0") ? text : NULL);
	/*
	 * Each event that refused the text is named with its error; when none
	 * took it, the first error (they are usually all the same) and the
	 * kernel's message.
	 */
	for (int i = 0; i < sf.nr_fails && (sf.accepted || i == 0); i++)
		trev__tracing_log_err(f->loc.tr, filter_err_loc, text, sf.fails[i].err.pos, "%s%s%s",
				      sf.accepted ? sf.fails[i].event : "", sf.accepted ? ": " : "",
				      sf.fails[i].err.msg);
	if (ret == -EINVAL)
		trev__tracing_log_err(f->loc.tr, filter_err_loc, text, 0, "%s", TREV_FILTER_ERR_SUBSYS);
	trev__events_write_unlock();
	free(sf.fails);
	free(text);
	return ret ? ret : (ssize_t)size;
}

/* The kernel's DEFAULT_SYS_FILTER_MESSAGE. */
static const char sys_filter_default[] =
	"### global filter ###\n"
	"# Use this to set filters for multiple events.\n"
	"# Only events with the given fields will be affected.\n"
	"# If no events are modified, an error message will be displayed here\n";

static int system_filter_show(struct trev_file *f, struct trev_buf *out)
{
	for (struct trev_sys_filter *sf = f->loc.tr->sys_filters; sf; sf = sf->next)
		if (strcmp(sf->system, f->loc.system) == 0 && sf->text)
			return trev__buf_printf(out, "%s\n", sf->text);
	return trev__buf_puts(out, sys_filter_default);
}

static const struct tfs_fops system_filter_fops = {
	.show = system_filter_show,
	.write = system_filter_write,
};

/* Under the registry lock: the event's file in the open file's instance. */
static struct trev_event_file *trigger_file(struct trev_file *f, bool create)
{
	struct trev_event_call *call = ev_find(f->loc.system, f->loc.event);

	return call ? trev__event_file(f->loc.tr, call, create) : NULL;
}

static int trigger_open(struct trev_file *f)
{
	struct trev_event_file *file;

	/* The kernel drops every trigger when the file is opened with O_TRUNC. */
	if (!tfs_writable(f) || !(f->flags & O_TRUNC) || (f->flags & O_APPEND))
		return 0;
	trev__events_write_lock();
	file = trigger_file(f, false);
	if (file)
		trev__triggers_clear(file);
	trev__events_write_unlock();
	return 0;
}

static int trigger_show(struct trev_file *f, struct trev_buf *out)
{
	int ret;

	trev__events_read_lock();
	ret = trev__trigger_show(trigger_file(f, false), out);
	trev__events_read_unlock();
	return ret;
}

/* One trigger per write, as the kernel parses it (src/trigger/trigger.c). */
static ssize_t trigger_write(struct trev_file *f, const char *buf, size_t size)
{
	char *line = trev__strip(buf, size), *start;
	struct trev_event_file *file;
	int ret;

	if (!line)
		return -ENOMEM;
	start = line + strspn(line, " \t\n");
	if (!*start) {
		free(line);
		return (ssize_t)size;
	}
	if (size >= 4096) {
		free(line);
		return -EINVAL;	/* the kernel's PAGE_SIZE limit */
	}
	trev__events_write_lock();
	file = trigger_file(f, true);
	ret = file ? trev__trigger_write(f->loc.tr, file, start) : -ENODEV;
	trev__events_write_unlock();
	free(line);
	return ret ? ret : (ssize_t)size;
}

static const struct tfs_fops trigger_fops = {
	.open = trigger_open,
	.show = trigger_show,
	.write = trigger_write,
};

/* hist: the histograms of the event's hist triggers (src/trigger/hist.c). */
static int hist_file_show(struct trev_file *f, struct trev_buf *out)
{
	int ret;

	trev__events_read_lock();
	ret = trev__hist_file_show(trigger_file(f, false), out);
	trev__events_read_unlock();
	return ret;
}

static const struct tfs_fops hist_fops = {
	.show = hist_file_show,
};

/* hist_debug: how each hist trigger of the event was compiled (src/trigger/hist.c). */
static int hist_debug_show(struct trev_file *f, struct trev_buf *out)
{
	int ret;

	trev__events_read_lock();
	ret = trev__hist_debug_file_show(trigger_file(f, false), out);
	trev__events_read_unlock();
	return ret;
}

static const struct tfs_fops hist_debug_fops = {
	.show = hist_debug_show,
};

/* ------------------------------------------------------------------ */
/* format, id, header_page, header_event                                */

static int format_show(struct trev_file *f, struct trev_buf *out)
{
	struct trev_event_call *call;
	char *text = NULL;
	int ret = -ENODEV;

	trev__events_read_lock();
	call = ev_find(f->loc.system, f->loc.event);
	if (call)
		ret = trev__event_format_text(call, &text);
	trev__events_read_unlock();
	if (!ret)
		ret = trev__buf_puts(out, text);
	free(text);
	return ret;
}

static const struct tfs_fops format_fops = {
	.show = format_show,
};

static int id_show(struct trev_file *f, struct trev_buf *out)
{
	struct trev_event_call *call;
	int ret = -ENODEV;

	trev__events_read_lock();
	call = ev_find(f->loc.system, f->loc.event);
	if (call)
		ret = trev__buf_printf(out, "%u\n", (unsigned int)call->id);
	trev__events_read_unlock();
	return ret;
}

static const struct tfs_fops id_fops = {
	.show = id_show,
};

static int header_page_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__buf_puts(out, trev__header_page_text);
}

static int header_event_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__buf_puts(out, trev__header_event_text);
}

static const struct tfs_fops header_page_fops = { .show = header_page_show };
static const struct tfs_fops header_event_fops = { .show = header_event_show };

/* ------------------------------------------------------------------ */
/* The directories                                                      */

static const struct tfs_node event_entries[] = {
	{ "enable", 0640, &event_enable_fops, NULL, false },
	{ "filter", 0640, &event_filter_fops, NULL, false },
	{ "format", 0440, &format_fops, NULL, false },
	{ "hist", 0440, &hist_fops, NULL, false },
	{ "hist_debug", 0440, &hist_debug_fops, NULL, false },
	{ "id", 0440, &id_fops, NULL, false },
	{ "trigger", 0640, &trigger_fops, NULL, false },
	{ NULL, 0, NULL, NULL, false },
};

/*
 * The built-in ftrace events cannot be switched: no enable, no filter (the
 * kernel's TRACE_EVENT_FL_IGNORE_ENABLE). Each has its format, id and a
 * hist file, as the kernel's do.
 */
static const struct tfs_node ftrace_event_entries[] = {
	{ "format", 0440, &format_fops, NULL, false },
	{ "hist", 0440, &hist_fops, NULL, false },
	{ "id", 0440, &id_fops, NULL, false },
	{ NULL, 0, NULL, NULL, false },
};

/*
 * ftrace/print has a trigger file too, in every instance (the kernel's
 * trace.c adds it beside trace_marker): a write to the instance's
 * trace_marker runs its triggers (src/write/trace_printk.c).
 */
static const struct tfs_node ftrace_print_entries[] = {
	{ "format", 0440, &format_fops, NULL, false },
	{ "hist", 0440, &hist_fops, NULL, false },
	{ "id", 0440, &id_fops, NULL, false },
	{ "trigger", 0640, &trigger_fops, NULL, false },
	{ NULL, 0, NULL, NULL, false },
};

static const struct tfs_dir event_dir = { .entries = event_entries };
static const struct tfs_dir ftrace_event_dir = { .entries = ftrace_event_entries };
static const struct tfs_dir ftrace_print_dir = { .entries = ftrace_print_entries };
static const struct tfs_node event_node = { "", 0750, NULL, &event_dir, false };
static const struct tfs_node ftrace_event_node = { "", 0750, NULL, &ftrace_event_dir, false };
static const struct tfs_node ftrace_print_node = { "", 0750, NULL, &ftrace_print_dir, false };

struct dir_walk {
	const char *system;		/* list this system's events; NULL: systems */
	trev_readdir_fn fn;
	void *arg;
	char **seen;			/* systems listed so far */
	int nr_seen;
};

static int dir_walk_one(struct trev_event_call *call, void *arg)
{
	struct dir_walk *w = arg;
	struct trev_stat st = { 1, 0750 };
	char **n;

	if (w->system)
		return strcmp(call->klass->system, w->system) ? 0 : w->fn(call->name, &st, w->arg);
	for (int i = 0; i < w->nr_seen; i++)
		if (strcmp(w->seen[i], call->klass->system) == 0)
			return 0;
	n = realloc(w->seen, (size_t)(w->nr_seen + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	w->seen = n;
	w->seen[w->nr_seen++] = (char *)call->klass->system;
	return w->fn(call->klass->system, &st, w->arg);
}

static int system_list(const struct tfs_loc *loc, trev_readdir_fn fn, void *arg)
{
	struct dir_walk w = { loc->system, fn, arg, NULL, 0 };

	return trev__events_for_each(dir_walk_one, &w);
}

static int system_lookup(struct tfs_loc *loc, const char *name)
{
	struct trev_event_call *call = ev_find(loc->system, name);

	if (!call || strlen(name) >= sizeof(loc->event))
		return -ENOENT;
	strcpy(loc->event, name);
	if (ev_switchable(call))
		loc->node = &event_node;
	else if (call->id == TREV_TYPE_PRINT)
		loc->node = &ftrace_print_node;
	else
		loc->node = &ftrace_event_node;
	return 0;
}

static const struct tfs_node system_entries[] = {
	{ "enable", 0640, &group_enable_fops, NULL, false },
	{ "filter", 0640, &system_filter_fops, NULL, false },
	{ NULL, 0, NULL, NULL, false },
};

static const struct tfs_dir system_dir = {
	.entries = system_entries,
	.list = system_list,
	.lookup = system_lookup,
};

static const struct tfs_dir ftrace_system_dir = {
	.list = system_list,
	.lookup = system_lookup,
};

static const struct tfs_node system_node = { "", 0750, NULL, &system_dir, false };
static const struct tfs_node ftrace_system_node = { "", 0750, NULL, &ftrace_system_dir, false };

static int events_list(const struct tfs_loc *loc, trev_readdir_fn fn, void *arg)
{
	struct dir_walk w = { NULL, fn, arg, NULL, 0 };
	int ret;

	(void)loc;
	ret = trev__events_for_each(dir_walk_one, &w);
	free(w.seen);
	return ret;
}

static int events_lookup(struct tfs_loc *loc, const char *name)
{
	struct trev_event_call *call = ev_find(name, NULL);

	if (!call || strlen(name) >= sizeof(loc->system))
		return -ENOENT;
	strcpy(loc->system, name);
	loc->node = ev_switchable(call) ? &system_node : &ftrace_system_node;
	return 0;
}

static const struct tfs_node events_entries[] = {
	{ "enable", 0640, &group_enable_fops, NULL, false },
	{ "header_event", 0440, &header_event_fops, NULL, false },
	{ "header_page", 0440, &header_page_fops, NULL, false },
	{ NULL, 0, NULL, NULL, false },
};

const struct tfs_dir trev__events_dir = {
	.entries = events_entries,
	.list = events_list,
	.lookup = events_lookup,
};
