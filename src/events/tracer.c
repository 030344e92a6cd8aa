/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The registry of tracers (tracer.h): a list, the newest first, that
 * registration only prepends to; each instance's current tracer is a
 * pointer into it (NULL: nop).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "base/buf.h"
#include "events/events_internal.h"
#include "events/tracer.h"

/* The kernel's nop_trace: nothing to start or stop, the events' own lines. */
struct trev_tracer trev__nop_tracer = {
	.name = "nop",
};

static pthread_mutex_t tracers_lock = PTHREAD_MUTEX_INITIALIZER;
/* The newest first; readers walk it without the lock (entries are never removed). */
static const struct trev_tracer *tracers = &trev__nop_tracer;

static bool tracer_is_top(const struct trev_trace_array *tr)
{
	return !tr->name || !tr->name[0];
}

static bool tracer_allowed(const struct trev_trace_array *tr, const struct trev_tracer *t)
{
	return !(t->flags & TREV_TRACER_TOP_ONLY) || tracer_is_top(tr);
}

int trev__tracer_register(struct trev_tracer *t)
{
	int ret = 0;

	if (!t->name || !t->name[0])
		return -EINVAL;
	pthread_mutex_lock(&tracers_lock);
	for (const struct trev_tracer *o = tracers; o; o = o->next) {
		if (!strcmp(o->name, t->name)) {
			ret = -EEXIST;
			goto out_unlock;
		}
	}
	t->next = tracers;
	/* Release: a reader that loads @t (acquire, below) sees its fields and ->next. */
	__atomic_store_n(&tracers, t, __ATOMIC_RELEASE);
out_unlock:
	pthread_mutex_unlock(&tracers_lock);
	return ret;
}

const struct trev_tracer *trev__tracer_find(const struct trev_trace_array *tr, const char *name)
{
	for (const struct trev_tracer *t = __atomic_load_n(&tracers, __ATOMIC_ACQUIRE); t;
	     t = t->next)
		if (!strcmp(t->name, name))
			return tracer_allowed(tr, t) ? t : NULL;
	return NULL;
}

int trev__tracers_show(const struct trev_trace_array *tr, struct trev_buf *out)
{
	const char *sep = "";

	for (const struct trev_tracer *t = __atomic_load_n(&tracers, __ATOMIC_ACQUIRE); t;
	     t = t->next) {
		if (!tracer_allowed(tr, t))
			continue;
		trev__buf_printf(out, "%s%s", sep, t->name);
		sep = " ";
	}
	return trev__buf_puts(out, "\n");
}

const struct trev_tracer *trev__tracer_of(const struct trev_trace_array *tr)
{
	const struct trev_tracer *t = __atomic_load_n(&tr->tracer, __ATOMIC_ACQUIRE);

	return t ? t : &trev__nop_tracer;
}

int trev__tracer_set(struct trev_trace_array *tr, const struct trev_tracer *t, const char **why)
{
	const struct trev_tracer *was = trev__tracer_of(tr);
	const char *ignored;
	int ret;

	if (t == was)
		return 0;
	if (was->reset) {
		ret = was->reset(tr, t, why);
		if (ret)
			return ret;
	}
	if (t->init) {
		ret = t->init(tr, was, why);
		if (ret) {
			/* The previous one back, as it ran (its init saw it stopped or still on). */
			if (was->init)
				was->init(tr, t, &ignored);
			return ret;
		}
	}
	/* Pairs with trev__tracer_of()'s acquire: a reader sees the tracer that init started. */
	__atomic_store_n(&tr->tracer, t, __ATOMIC_RELEASE);
	return 0;
}
