/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Jump labels: the asm goto sites of trace_<name>() built with
 * TREV_JUMP_LABEL (trev/jump_label.h), each object's table of them, and
 * their patching between nop5 and a jmp to the enabled block when a
 * tracepoint's probes go from none to some and back (docs/jump-labels.md).
 *
 * Locking: jl_lock guards the modules and the set of tracepoints that are
 * on; it is taken under tp_mutex (tracepoint.c) and before the text
 * patcher's own lock. The sites' bytes are only written under it, so what
 * a site's first byte reads under it is its state (nop5 or jmp).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <trev/jump_label.h>

#include "base/log.h"
#include "patch/text_patch.h"
#include "tracepoint/tracepoint_internal.h"

#define JL_JMP		0xe9

/* One object's table. */
struct jl_module {
	const struct trev_jump_entry *start;	/* its __start___trev_jump_table */
	const struct trev_jump_entry *stop;	/* and __stop_ */
	struct jl_module *next;
};

static pthread_mutex_t jl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct jl_module *jl_modules;		/* (jl_lock) */
static struct trev_tracepoint **jl_on;		/* tracepoints with probes (jl_lock) */
static size_t jl_nr_on, jl_cap_on;

static uintptr_t jl_code(const struct trev_jump_entry *e)
{
	return (uintptr_t)&e->code + (intptr_t)e->code;
}

static uintptr_t jl_target(const struct trev_jump_entry *e)
{
	return (uintptr_t)&e->target + (intptr_t)e->target;
}

static bool jl_is_on(const struct trev_tracepoint *tp)
{
	for (size_t i = 0; i < jl_nr_on; i++)
		if (jl_on[i] == tp)
			return true;
	return false;
}

/* The 5 bytes site @e gets in state @on. */
static void jl_bytes(const struct trev_jump_entry *e, bool on, uint8_t out[TEXT_SITE_SIZE])
{
	if (on)
		trev__text_make_rel32(out, TREV_TEXT_JMP, jl_code(e), jl_target(e));
	else
		memcpy(out, trev__text_nop5, TEXT_SITE_SIZE);
}

void trev_jump_label_register(const struct trev_jump_entry *start,
			      const struct trev_jump_entry *stop)
{
	struct jl_module *m;

	if (!start || stop <= start)
		return;
	pthread_mutex_lock(&jl_lock);
	for (m = jl_modules; m; m = m->next)
		if (m->start == start)
			goto out_unlock;
	m = calloc(1, sizeof(*m));
	if (!m) {
		trev__log(TREV_LOG_ERR, "jump labels: no memory for an object's %zu sites: "
			  "its tracepoints stay off\n", (size_t)(stop - start));
		goto out_unlock;
	}
	*m = (struct jl_module){ start, stop, jl_modules };
	jl_modules = m;
	/* Compiled as nop5; the tracepoints that are on already get their jmp now. */
	for (const struct trev_jump_entry *e = start; e < stop; e++) {
		uint8_t b[TEXT_SITE_SIZE];

		if (!e->tp || !jl_is_on(e->tp))
			continue;
		jl_bytes(e, true, b);
		if (trev__text_init(jl_code(e), b))
			trev__log(TREV_LOG_ERR, "jump labels: cannot write the site at %p\n",
				  (void *)jl_code(e));
	}
out_unlock:
	pthread_mutex_unlock(&jl_lock);
}

void trev_jump_label_unregister(const struct trev_jump_entry *start)
{
	pthread_mutex_lock(&jl_lock);
	for (struct jl_module **pm = &jl_modules; *pm; pm = &(*pm)->next) {
		if ((*pm)->start == start) {
			struct jl_module *m = *pm;

			*pm = m->next;
			free(m);
			break;
		}
	}
	pthread_mutex_unlock(&jl_lock);
}

/* Record @tp as on or off. Return: 0 or -ENOMEM. Context: jl_lock. */
static int jl_mark(struct trev_tracepoint *tp, bool on)
{
	for (size_t i = 0; i < jl_nr_on; i++) {
		if (jl_on[i] == tp) {
			if (!on)
				jl_on[i] = jl_on[--jl_nr_on];
			return 0;
		}
	}
	if (!on)
		return 0;
	if (jl_nr_on == jl_cap_on) {
		size_t cap = jl_cap_on ? 2 * jl_cap_on : 16;
		struct trev_tracepoint **n = realloc(jl_on, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		jl_on = n;
		jl_cap_on = cap;
	}
	jl_on[jl_nr_on++] = tp;
	return 0;
}

/*
 * Change every site of @tp whose state is not @on, in one batch. Return: 0,
 * -ENOMEM, or the patcher's error (-EBUSY with @blocker). Context: jl_lock.
 */
static int jl_patch(struct trev_tracepoint *tp, bool on, pid_t *blocker)
{
	struct trev_text_patch *p = NULL;
	size_t n = 0, cap = 0;
	int ret;

	for (struct jl_module *m = jl_modules; m; m = m->next) {
		for (const struct trev_jump_entry *e = m->start; e < m->stop; e++) {
			if (e->tp != tp ||
			    (*(const volatile uint8_t *)jl_code(e) == JL_JMP) == on)
				continue;
			if (n == cap) {
				size_t c = cap ? 2 * cap : 8;
				struct trev_text_patch *q = realloc(p, c * sizeof(*q));

				if (!q) {
					free(p);
					return -ENOMEM;
				}
				p = q;
				cap = c;
			}
			p[n].addr = jl_code(e);
			jl_bytes(e, on, p[n].bytes);
			n++;
		}
	}
	ret = trev__text_patch_batch(p, n, blocker);
	free(p);
	return ret;
}

int trev__jl_set(struct trev_tracepoint *tp, bool on)
{
	pid_t blocker = 0;
	int ret;

	pthread_mutex_lock(&jl_lock);
	ret = jl_mark(tp, on);
	if (!ret)
		ret = jl_patch(tp, on, &blocker);
	if (ret && on) {
		/* The sites already changed go back; the tracepoint stays off. */
		jl_mark(tp, false);
		jl_patch(tp, false, &blocker);
	} else if (ret) {
		struct trev__tp_ref ref;

		/* Left as jmps, the sites find no probes: correct, only slower. */
		trev__log(TREV_LOG_WARN, "jump labels: %s's sites stay jmps: %s\n",
			  trev__tp_ref(tp, &ref) ? "?" : ref.name,
			  ret == -EBUSY ? "a thread blocks SIGTRAP" : strerror(-ret));
		ret = 0;
	}
	pthread_mutex_unlock(&jl_lock);
	return ret;
}
