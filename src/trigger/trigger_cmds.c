/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's basic trigger commands: traceon, traceoff, snapshot,
 * stacktrace, enable_event and disable_event (trace_events_trigger.c), on
 * the framework of trigger_internal.h. Their ->fire() run in the event's
 * context: atomics only (docs/triggers.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trigger/hist.h"
#include "trigger/trigger_internal.h"
#include "write/write.h"

/* The instance the trigger's event records into. */
static struct trev_trace_array *trig_tr(const struct trev_event_trigger *t)
{
	return __atomic_load_n(&t->file->tr, __ATOMIC_RELAXED);
}

/* Its current main buffer (a snapshot may swap it at any time). */
static struct trev_rb *trig_rb(const struct trev_event_trigger *t)
{
	return __atomic_load_n(&trig_tr(t)->rb, __ATOMIC_ACQUIRE);
}

/* The generic ":N" parse: a count and nothing else. */
static int trig_parse_count(struct trev_event_trigger *t, char *param, bool remove,
			    struct trev_trigger_err *err)
{
	if (remove)
		return 0;
	return trev__trigger_parse_count(t, param, err);
}

/* ------------------------------------------------------------------ */
/* traceon, traceoff                                                    */

static bool traceon_skip(const struct trev_event_trigger *t)
{
	return trev_rb_record_is_on(trig_rb(t));
}

static void traceon_fire(struct trev_event_trigger *t, void *rec, unsigned int len)
{
	(void)rec, (void)len;
	trev_rb_record_on(trig_rb(t));
}

static bool traceoff_skip(const struct trev_event_trigger *t)
{
	return !trev_rb_record_is_on(trig_rb(t));
}

static void traceoff_fire(struct trev_event_trigger *t, void *rec, unsigned int len)
{
	(void)rec, (void)len;
	trev_rb_record_off(trig_rb(t));
}

static const struct trev_trigger_cmd traceon_cmd = {
	.name = "traceon",
	.type = TREV_TT_TRACE_ONOFF,
	.parse = trig_parse_count,
	.skip = traceon_skip,
	.fire = traceon_fire,
};

/* Post: the event that turns tracing off is itself recorded. */
static const struct trev_trigger_cmd traceoff_cmd = {
	.name = "traceoff",
	.type = TREV_TT_TRACE_ONOFF,
	.flags = TREV_TRIGGER_CMD_POST,
	.parse = trig_parse_count,
	.skip = traceoff_skip,
	.fire = traceoff_fire,
};

/* ------------------------------------------------------------------ */
/* snapshot                                                             */

/* Like the kernel's tracing_arm_snapshot(): the buffer exists before any event fires. */
static int snapshot_reg(struct trev_event_trigger *t)
{
	return trev__snapshot_arm(trig_tr(t));
}

static void snapshot_unreg(struct trev_event_trigger *t)
{
	trev__snapshot_disarm(trig_tr(t));
}

static void snapshot_fire(struct trev_event_trigger *t, void *rec, unsigned int len)
{
	(void)rec, (void)len;
	trev__snapshot_swap_probe(trig_tr(t));
}

static const struct trev_trigger_cmd snapshot_cmd = {
	.name = "snapshot",
	.type = TREV_TT_SNAPSHOT,
	.parse = trig_parse_count,
	.reg = snapshot_reg,
	.unreg = snapshot_unreg,
	.fire = snapshot_fire,
};

/* ------------------------------------------------------------------ */
/* stacktrace                                                           */

static int stacktrace_reg(struct trev_event_trigger *t)
{
	struct trev_stack_skip *skip = malloc(sizeof(*skip));

	if (!skip)
		return -ENOMEM;
	trev__stack_prepare(t->file->call, skip);
	t->priv = skip;
	return 0;
}

static void stacktrace_fire(struct trev_event_trigger *t, void *rec, unsigned int len)
{
	(void)rec, (void)len;
	trev__stack_record(trig_tr(t), t->priv);
}

static void trig_free_priv(struct trev_event_trigger *t)
{
	free(t->priv);
	t->priv = NULL;
}

/* Post, as the kernel's: the stack follows the event it belongs to. */
static const struct trev_trigger_cmd stacktrace_cmd = {
	.name = "stacktrace",
	.type = TREV_TT_STACKTRACE,
	.flags = TREV_TRIGGER_CMD_POST,
	.parse = trig_parse_count,
	.reg = stacktrace_reg,
	.fire = stacktrace_fire,
	.free = trig_free_priv,
};

/* ------------------------------------------------------------------ */
/* enable_event, disable_event                                          */

struct enable_data {
	struct trev_event_file *target;	/* the event switched, same instance */
	bool enable;
};

struct ev_lookup {
	const char *system, *event;
	struct trev_event_call *call;
};

static int ev_lookup_one(struct trev_event_call *call, void *arg)
{
	struct ev_lookup *l = arg;

	if ((call->flags & TREV_EVENT_FL_FTRACE) || strcmp(call->klass->system, l->system) ||
	    strcmp(call->name, l->event))
		return 0;
	l->call = call;
	return 1;
}

int trev__trigger_parse_target(struct trev_event_trigger *t, char *param, bool remove,
			       struct trev_trigger_err *err, struct trev_event_file **target)
{
	struct ev_lookup l = { param, NULL, NULL };
	char *colon, *count = NULL;

	if (!param) {
		err->msg = "Missing system:event";
		err->pos = 0;
		return -EINVAL;
	}
	colon = strchr(param, ':');
	if (!colon) {
		err->msg = "Missing event name";
		err->pos = (int)strlen(param);
		return -EINVAL;
	}
	*colon = '\0';
	l.event = colon + 1;
	colon = strchr(l.event, ':');
	if (colon) {
		*colon = '\0';
		count = colon + 1;
	}
	trev__events_for_each(ev_lookup_one, &l);
	if (!l.call) {
		err->msg = "Event not found";
		err->pos = 0;
		return -EINVAL;
	}
	*target = trev__event_file(trig_tr(t), l.call, true);
	if (!*target)
		return -ENOMEM;
	if (!remove && count && trev__trigger_parse_count(t, count, err)) {
		err->pos = (int)(count - param);
		return -EINVAL;
	}
	return 0;
}

static int enable_parse(struct trev_event_trigger *t, char *param, bool remove,
			struct trev_trigger_err *err)
{
	struct enable_data *ed = calloc(1, sizeof(*ed));

	if (!ed)
		return -ENOMEM;
	t->priv = ed;
	ed->enable = strcmp(t->cmd->name, "enable_event") == 0;
	return trev__trigger_parse_target(t, param, remove, err, &ed->target);
}

static bool enable_match(const struct trev_event_trigger *a, const struct trev_event_trigger *b)
{
	const struct enable_data *x = a->priv, *y = b->priv;

	return x && y && x->target == y->target;
}

/* The target keeps its probe while the trigger exists: soft mode. */
static int enable_reg(struct trev_event_trigger *t)
{
	struct enable_data *ed = t->priv;

	return trev__file_soft_mode_locked(ed->target, true);
}

static void enable_unreg(struct trev_event_trigger *t)
{
	struct enable_data *ed = t->priv;

	trev__file_soft_mode_locked(ed->target, false);
}

/* Already in the state the trigger would set: the count is kept. */
static bool enable_skip(const struct trev_event_trigger *t)
{
	const struct enable_data *ed = t->priv;
	unsigned int flags = atomic_load_explicit(&ed->target->flags, memory_order_relaxed);

	return ed->enable == !(flags & TREV_FILE_FL_SOFT_DISABLED);
}

static void enable_fire(struct trev_event_trigger *t, void *rec, unsigned int len)
{
	struct enable_data *ed = t->priv;

	(void)rec, (void)len;
	if (ed->enable)
		atomic_fetch_and(&ed->target->flags, ~TREV_FILE_FL_SOFT_DISABLED);
	else
		atomic_fetch_or(&ed->target->flags, TREV_FILE_FL_SOFT_DISABLED);
}

static int enable_print(const struct trev_event_trigger *t, struct trev_buf *out)
{
	const struct enable_data *ed = t->priv;
	const struct trev_event_call *call = ed->target->call;
	char name[2 * TREV_NAME_MAX + 16];

	snprintf(name, sizeof(name), "%s:%s:%s", t->cmd->name, call->klass->system, call->name);
	return trev__trigger_print_std(t, name, out);
}

static bool enable_uses(const struct trev_event_trigger *t, const struct trev_event_call *call)
{
	const struct enable_data *ed = t->priv;

	return ed && ed->target->call == call;
}

static const struct trev_trigger_cmd enable_event_cmd = {
	.name = "enable_event",
	.type = TREV_TT_EVENT_ENABLE,
	.parse = enable_parse,
	.match = enable_match,
	.reg = enable_reg,
	.unreg = enable_unreg,
	.skip = enable_skip,
	.fire = enable_fire,
	.print = enable_print,
	.free = trig_free_priv,
	.uses = enable_uses,
};

static const struct trev_trigger_cmd disable_event_cmd = {
	.name = "disable_event",
	.type = TREV_TT_EVENT_ENABLE,
	.parse = enable_parse,
	.match = enable_match,
	.reg = enable_reg,
	.unreg = enable_unreg,
	.skip = enable_skip,
	.fire = enable_fire,
	.print = enable_print,
	.free = trig_free_priv,
	.uses = enable_uses,
};

/* ------------------------------------------------------------------ */

/* The kernel's listing order; hist.c's commands go at the end (enable_hist, disable_hist, hist). */
const struct trev_trigger_cmd *const trev__trigger_cmds[] = {
	&traceon_cmd, &traceoff_cmd, &snapshot_cmd, &stacktrace_cmd,
	&enable_event_cmd, &disable_event_cmd, &trev__enable_hist_cmd, &trev__disable_hist_cmd,
	&trev__hist_cmd,
};
const unsigned int trev__nr_trigger_cmds =
	sizeof(trev__trigger_cmds) / sizeof(trev__trigger_cmds[0]);
