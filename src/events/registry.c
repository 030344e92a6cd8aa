/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event registry: objects (the program and each shared object) announce
 * their __trev_events section when loaded and withdraw it when unloaded;
 * every event gets a process-unique id, its field list and its file in the
 * top instance. Ids are never reused, so a record of an unloaded event can
 * never be printed as another event.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "events/abi.h"
#include "events/events_internal.h"
#include "tracepoint/tracepoint_internal.h"

/*
 * One object that registered its sections (a program or a shared object).
 * The sections' entries may be of different ABIs (static libraries built
 * against different releases); calls[] and evals[] hold, entry by entry,
 * what the registry uses: the descriptor itself, a library-owned copy of an
 * older one (abi.c), or NULL for one refused or empty.
 */
struct ev_module {
	struct trev_event_call *const *start, *const *stop;
	struct trev_tracepoint *const *tp_start, *const *tp_stop;
	const struct trev_eval_map *const *eval_start, *const *eval_stop; /* TRACE_DEFINE_ENUM */
	struct trev_event_call **calls;		/* stop - start of them */
	const struct trev_eval_map **evals;	/* eval_stop - eval_start of them */
	size_t nr_calls, nr_evals;
	int refs;			/* CREATE_TRACE_POINTS files in it */
	struct ev_module *next;
};

static pthread_rwlock_t events_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct ev_module *modules;
static struct trev_event_call **by_id;	/* by_id[id], NULL when free */
static unsigned int by_id_len;
static unsigned int next_id = TREV_FIRST_EVENT_ID;

void trev__events_read_lock(void)
{
	pthread_rwlock_rdlock(&events_lock);
}

void trev__events_read_unlock(void)
{
	pthread_rwlock_unlock(&events_lock);
}

void trev__events_write_lock(void)
{
	pthread_rwlock_wrlock(&events_lock);
}

void trev__events_write_unlock(void)
{
	pthread_rwlock_unlock(&events_lock);
}

void trev__events_crash_child(void)
{
	pthread_rwlock_init(&events_lock, NULL);
}

struct trev_event_call *trev__event_by_id(unsigned int id)
{
	return id < by_id_len ? by_id[id] : NULL;
}

int trev__events_for_each(int (*fn)(struct trev_event_call *call, void *arg), void *arg)
{
	for (unsigned int id = 0; id < by_id_len; id++) {
		int ret;

		if (!by_id[id])
			continue;
		ret = fn(by_id[id], arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Fields                                                               */

/* Set before the first event registers, so a probe only ever reads it. */
static unsigned int nr_cpumask_bits;

unsigned int trev_nr_cpumask_bits(void)
{
	unsigned int n = __atomic_load_n(&nr_cpumask_bits, __ATOMIC_RELAXED);

	if (!n) {
		long conf = sysconf(_SC_NPROCESSORS_CONF);

		n = conf < 1 ? 1 : conf > CPU_SETSIZE ? CPU_SETSIZE : (unsigned int)conf;
		__atomic_store_n(&nr_cpumask_bits, n, __ATOMIC_RELAXED);
	}
	return n;
}

/* The kernel's filter_assign_type(): how filters will compare the field. */
static int ev_filter_type(const char *type, int filter_type)
{
	if (filter_type != TREV_FILTER_OTHER)
		return filter_type;
	if (strstr(type, "__data_loc") && strstr(type, "char"))
		return TREV_FILTER_DYN_STRING;
	if (strstr(type, "__rel_loc") && strstr(type, "char"))
		return TREV_FILTER_RDYN_STRING;
	if (strchr(type, '[') && strstr(type, "char"))
		return TREV_FILTER_STATIC_STRING;
	if (strcmp(type, "char *") == 0 || strcmp(type, "const char *") == 0)
		return TREV_FILTER_PTR_STRING;
	return TREV_FILTER_OTHER;
}

int trev_event_define_field(struct trev_event_call *call, const char *type, const char *name,
			    int offset, int size, int is_signed, int filter_type)
{
	struct trev_event_rt *rt = trev__event_rt(call);
	struct trev_field *f;

	if (rt->nr_fields == rt->fields_cap) {
		int cap = rt->fields_cap ? rt->fields_cap * 2 : 8;
		struct trev_field *n = realloc(rt->fields, (size_t)cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		rt->fields = n;
		rt->fields_cap = cap;
	}
	f = &rt->fields[rt->nr_fields];
	f->type = strdup(type);
	f->name = strdup(name);
	if (!f->type || !f->name) {
		free(f->type);
		free(f->name);
		return -ENOMEM;
	}
	f->offset = offset;
	f->size = size;
	f->is_signed = is_signed;
	f->filter_type = ev_filter_type(type, filter_type);
	rt->nr_fields++;
	if (strncmp(type, "__data_loc", 10) == 0 || strncmp(type, "__rel_loc", 9) == 0)
		rt->nr_data_locs++;
	return 0;
}

int trev_event_define_array(struct trev_event_call *call, const char *type, const char *name,
			    int offset, int size, int elem_size, int is_signed)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s[%d]", type, elem_size ? size / elem_size : 0);
	return trev_event_define_field(call, buf, name, offset, size, is_signed,
				       TREV_FILTER_OTHER);
}

static const struct trev__event_file_ops *file_ops;

void trev__event_file_ops_set(const struct trev__event_file_ops *ops)
{
	pthread_rwlock_wrlock(&events_lock);
	__atomic_store_n(&file_ops, ops, __ATOMIC_RELEASE);
	pthread_rwlock_unlock(&events_lock);
}

void trev__event_file_release(struct trev_event_file *file)
{
	if (file_ops)
		file_ops->release(file);
}

/*
 * file_ops is set before a trigger can exist (trev__library_init()): no lock;
 * the acquire pairs with trev__event_file_ops_set()'s release (the ops' fields).
 */
unsigned int trev__event_triggers_call(struct trev_event_file *file, void *rec, unsigned int len)
{
	const struct trev__event_file_ops *ops = __atomic_load_n(&file_ops, __ATOMIC_ACQUIRE);

	return ops ? ops->triggers_call(file, rec, len) : 0;
}

void trev__event_triggers_post_call(struct trev_event_file *file, unsigned int tt)
{
	const struct trev__event_file_ops *ops = __atomic_load_n(&file_ops, __ATOMIC_ACQUIRE);

	if (ops)
		ops->triggers_post_call(file, tt);
}

static void ev_free_rt(struct trev_event_call *call)
{
	struct trev_event_rt *rt = trev__event_rt(call);

	if (!rt)
		return;
	trev__event_file_release(&rt->file);	/* its probes are gone */
	for (int i = 0; i < rt->nr_fields; i++) {
		free(rt->fields[i].type);
		free(rt->fields[i].name);
	}
	free(rt->fields);
	free(rt->print_fmt);
	free(rt);
	call->rt = NULL;
}

/* ------------------------------------------------------------------ */
/* Registering events                                                   */

static int ev_set_id(struct trev_event_call *call, unsigned int id)
{
	if (id >= by_id_len) {
		unsigned int len = by_id_len ? by_id_len : 1024;
		struct trev_event_call **n;

		while (len <= id)
			len *= 2;
		n = realloc(by_id, len * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + by_id_len, 0, (len - by_id_len) * sizeof(*n));
		by_id = n;
		by_id_len = len;
	}
	by_id[id] = call;
	call->id = (unsigned short)id;
	return 0;
}

/* Called with events_lock held for writing; @m is NULL for the built-in events. */
static int ev_register_call(struct trev_event_call *call, unsigned int id,
			    const struct ev_module *m)
{
	struct trev_event_rt *rt;
	int ret;

	if (call->rt)
		return -EEXIST;
	if (id > TREV_MAX_EVENT_ID) {
		trev__log(TREV_LOG_ERR, "event %s:%s: no event ids left\n",
			  call->klass->system, call->name);
		return -ENOSPC;
	}
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return -ENOMEM;
	call->rt = rt;
	rt->file.call = call;
	/* A top instance with set_event_pid, tracing_cpumask, ...: its new event's file too. */
	atomic_store_explicit(&rt->file.flags, trev__inst_file_bits(trev__top_instance_if_made(), call),
			      memory_order_relaxed);
	ret = call->klass->define_fields ? call->klass->define_fields(call) : 0;
	if (!ret && m)
		ret = trev__eval_print_fmt(call, m->evals, m->evals + m->nr_evals, &rt->print_fmt);
	if (!ret)
		ret = ev_set_id(call, id);
	if (ret) {
		trev__log(TREV_LOG_ERR, "event %s:%s: cannot register: %s\n",
			  call->klass->system, call->name, strerror(-ret));
		ev_free_rt(call);
	}
	return ret;
}

/* Called with events_lock held for writing; the event's probes are gone. */
static void ev_unregister_call(struct trev_event_call *call)
{
	if (!call->rt)
		return;
	/* Triggers that refer to it go first, while it is still findable. */
	if (file_ops)
		file_ops->call_gone(call);
	if (call->id < by_id_len && by_id[call->id] == call)
		by_id[call->id] = NULL;
	trev__event_files_drop(call);
	ev_free_rt(call);
}

int trev__events_register_builtin(struct trev_event_call *call, unsigned int type)
{
	int ret;

	pthread_rwlock_wrlock(&events_lock);
	ret = ev_register_call(call, type, NULL);
	pthread_rwlock_unlock(&events_lock);
	return ret;
}

int trev__events_register_dynamic(struct trev_event_call *call)
{
	int ret;

	(void)trev_nr_cpumask_bits();
	pthread_rwlock_wrlock(&events_lock);
	ret = ev_register_call(call, next_id, NULL);
	if (!ret)
		next_id++;
	pthread_rwlock_unlock(&events_lock);
	return ret;
}

/* Called with events_lock held: some instance has @call's probe registered. */
static int ev_call_busy(struct trev_trace_array *tr, void *arg)
{
	struct trev_event_file *file = trev__event_file(tr, arg, false);

	return file && (atomic_load(&file->flags) & TREV_FILE_FL_ENABLED) ? -EBUSY : 0;
}

int trev__events_unregister_dynamic(struct trev_event_call *call)
{
	int ret;

	pthread_rwlock_wrlock(&events_lock);
	ret = trev__instance_for_each(ev_call_busy, call);
	if (!ret && call->rt && (atomic_load(&trev__event_rt(call)->file.flags) &
				 TREV_FILE_FL_ENABLED))
		ret = -EBUSY;
	if (!ret) {
		if (call->tp)
			trev__tp_remove_all(call->tp);
		ev_unregister_call(call);
	}
	pthread_rwlock_unlock(&events_lock);
	return ret;
}

static void ev_free_module(struct ev_module *m)
{
	for (size_t i = 0; i < m->nr_calls; i++)
		trev__abi_release_call(m->calls[i], m->start[i]);
	for (size_t i = 0; i < m->nr_evals; i++)
		trev__abi_release_eval(m->evals[i], m->eval_start[i]);
	free(m->calls);
	free(m->evals);
	free(m);
}

/* Every entry of @m's sections checked, older ones translated. Called with events_lock held. */
static int ev_adopt_sections(struct ev_module *m)
{
	size_t nr_calls = m->start && m->stop > m->start ? (size_t)(m->stop - m->start) : 0;
	size_t nr_evals = m->eval_start && m->eval_stop > m->eval_start ?
			  (size_t)(m->eval_stop - m->eval_start) : 0;
	struct trev__tp_ref ref;

	m->calls = calloc(nr_calls ? nr_calls : 1, sizeof(*m->calls));
	m->evals = calloc(nr_evals ? nr_evals : 1, sizeof(*m->evals));
	if (!m->calls || !m->evals)
		return -ENOMEM;
	for (size_t i = 0; i < nr_calls; i++, m->nr_calls++)
		m->calls[i] = m->start[i] ? trev__abi_adopt_call(m->start[i]) : NULL;
	for (size_t i = 0; i < nr_evals; i++, m->nr_evals++)
		m->evals[i] = m->eval_start[i] ? trev__abi_adopt_eval(m->eval_start[i]) : NULL;
	/* Tracepoints of no event (DECLARE_TRACE) are only checked. */
	for (struct trev_tracepoint *const *t = m->tp_start; t && t < m->tp_stop; t++)
		if (*t && trev__tp_ref(*t, &ref))
			trev__log(TREV_LOG_ERR,
				  "tracepoint descriptor at %p is of an ABI this libtrev (ABI %d) "
				  "does not read: it cannot be enabled\n", (void *)*t,
				  TREV_ABI_VERSION);
	return 0;
}

/* Told of each object whose events were registered (frontend/init.c). */
static _Atomic(trev__events_registered_fn) registered_hook;

void trev__events_on_register(trev__events_registered_fn fn)
{
	atomic_store(&registered_hook, fn);
}

void trev__events_register_module(const struct trev_module *mod)
{
	trev__events_registered_fn hook;
	struct ev_module *m;
	unsigned int first_id;
	const void *key;

	(void)trev_nr_cpumask_bits();	/* before a probe can need it */
	pthread_rwlock_wrlock(&events_lock);
	for (m = modules; m; m = m->next) {
		if (m->start == mod->events_start && m->tp_start == mod->tp_start) {
			m->refs++;
			goto out_unlock;
		}
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		trev__log(TREV_LOG_ERR, "cannot register events: %s\n", strerror(ENOMEM));
		goto out_unlock;
	}
	m->start = mod->events_start;
	m->stop = mod->events_stop;
	m->tp_start = mod->tp_start;
	m->tp_stop = mod->tp_stop;
	m->eval_start = mod->eval_start;
	m->eval_stop = mod->eval_stop;
	m->refs = 1;
	if (ev_adopt_sections(m)) {
		trev__log(TREV_LOG_ERR, "cannot register events: %s\n", strerror(ENOMEM));
		ev_free_module(m);
		goto out_unlock;
	}
	m->next = modules;
	modules = m;
	first_id = next_id;
	for (size_t i = 0; i < m->nr_calls; i++)
		if (m->calls[i] && ev_register_call(m->calls[i], next_id, m) == 0)
			next_id++;
	pthread_rwlock_unlock(&events_lock);
	key = mod->events_start ? (const void *)mod->events_start : (const void *)mod->tp_start;
	hook = atomic_load(&registered_hook);
	if (hook)
		hook(first_id, key);
	return;

out_unlock:
	pthread_rwlock_unlock(&events_lock);
}

void trev__events_unregister_module(const struct trev_module *mod)
{
	struct ev_module **pm, *m;

	pthread_rwlock_wrlock(&events_lock);
	for (pm = &modules; *pm; pm = &(*pm)->next)
		if ((*pm)->start == mod->events_start && (*pm)->tp_start == mod->tp_start)
			break;
	m = *pm;
	if (!m || --m->refs > 0)
		goto out_unlock;
	*pm = m->next;
	/*
	 * Every probe of the object's tracepoints goes (ours and the user's),
	 * and a grace period passes, before the object's memory does.
	 */
	for (struct trev_tracepoint *const *t = m->tp_start; t && t < m->tp_stop; t++)
		if (*t)
			trev__tp_remove_all(*t);
	for (size_t i = 0; i < m->nr_calls; i++)
		if (m->calls[i])
			ev_unregister_call(m->calls[i]);
	ev_free_module(m);
out_unlock:
	pthread_rwlock_unlock(&events_lock);
}

/* ------------------------------------------------------------------ */
/* Enabling                                                             */

/* Called with events_lock held for writing. */
static int ev_enable_locked(struct trev_event_file *file, bool enable)
{
	struct trev_event_call *call = file->call;
	unsigned int flags = atomic_load(&file->flags);
	int ret = 0;

	if (call->flags & TREV_EVENT_FL_FTRACE)
		return 0;
	if (enable && !(flags & TREV_FILE_FL_ENABLED)) {
		ret = trev_tracepoint_probe_register(call->tp, call->klass->probe, file);
		if (ret == 0)
			atomic_fetch_or(&file->flags, TREV_FILE_FL_ENABLED);
	} else if (!enable && (flags & TREV_FILE_FL_ENABLED)) {
		/* Soft mode (triggers) keeps the probe; only recording stops. */
		if (file->sm_ref > 0) {
			atomic_fetch_or(&file->flags, TREV_FILE_FL_SOFT_DISABLED);
			return 0;
		}
		ret = trev_tracepoint_probe_unregister(call->tp, call->klass->probe, file);
		if (ret == 0)
			atomic_fetch_and(&file->flags,
					 ~(TREV_FILE_FL_ENABLED | TREV_FILE_FL_SOFT_DISABLED));
	}
	if (enable && ret == 0)
		atomic_fetch_and(&file->flags, ~TREV_FILE_FL_SOFT_DISABLED);
	return ret;
}

/* Called with events_lock held for writing. */
static int ev_call_enable_locked(struct trev_trace_array *tr, struct trev_event_call *call,
				 bool enable)
{
	struct trev_event_file *file = trev__event_file(tr, call, enable);

	if (!file)
		return enable ? -ENOMEM : 0;
	return ev_enable_locked(file, enable);
}

/*
 * The kernel's __ftrace_set_clr_event(): @match is a bare word (an event
 * or a system name), or @sub:@event with "*" or "" meaning any.
 */
static int ev_set_clr(struct trev_trace_array *tr, const char *match, const char *sub,
		      const char *event, bool set, unsigned int min_id)
{
	int matched = 0, ret = 0;

	pthread_rwlock_wrlock(&events_lock);
	for (unsigned int id = min_id; id < by_id_len; id++) {
		struct trev_event_call *call = by_id[id];
		int r;

		if (!call || (call->flags & TREV_EVENT_FL_FTRACE))
			continue;
		if (match && strcmp(match, call->name) && strcmp(match, call->klass->system))
			continue;
		if (sub && strcmp(sub, call->klass->system))
			continue;
		if (event && strcmp(event, call->name))
			continue;
		r = ev_call_enable_locked(tr, call, set);
		if (r)
			ret = r;
		matched++;
	}
	pthread_rwlock_unlock(&events_lock);
	if (!matched)
		return -EINVAL;
	return ret;
}

int trev__set_event_tr(struct trev_trace_array *tr, const char *spec, unsigned int min_id)
{
	char *buf, *colon, *sub = NULL, *event = NULL, *match = NULL;
	bool set = true;
	int ret;

	while (*spec == ' ' || *spec == '\t')
		spec++;
	if (*spec == '!') {
		set = false;
		spec++;
	}
	buf = strdup(spec);
	if (!buf)
		return -ENOMEM;
	buf[strcspn(buf, " \t\n")] = '\0';
	if (!*buf) {
		free(buf);
		return -EINVAL;
	}
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		sub = buf;
		event = colon + 1;
		if (!*sub || strcmp(sub, "*") == 0)
			sub = NULL;
		if (!*event || strcmp(event, "*") == 0)
			event = NULL;
	} else {
		match = buf;
		if (strcmp(match, "*") == 0)
			match = NULL;
	}
	ret = ev_set_clr(tr, match, sub, event, set, min_id);
	free(buf);
	return ret;
}

int trev__set_event_from(const char *spec, unsigned int min_id)
{
	struct trev_trace_array *tr = trev__top_instance();

	return tr ? trev__set_event_tr(tr, spec, min_id) : -ENOMEM;
}

int trev__event_enable(struct trev_trace_array *tr, const char *system, const char *event,
		       bool enable)
{
	int matched = 0, ret = 0;

	pthread_rwlock_wrlock(&events_lock);
	for (unsigned int id = 0; id < by_id_len; id++) {
		struct trev_event_call *call = by_id[id];
		int r;

		if (!call || (call->flags & TREV_EVENT_FL_FTRACE))
			continue;
		if ((system && strcmp(system, call->klass->system)) ||
		    (event && strcmp(event, call->name)))
			continue;
		r = ev_call_enable_locked(tr, call, enable);
		if (r && !ret)
			ret = r;
		matched++;
	}
	pthread_rwlock_unlock(&events_lock);
	return matched ? ret : -ENOENT;
}

void trev__events_disable_all(struct trev_trace_array *tr)
{
	trev__event_enable(tr, NULL, NULL, false);
}

int trev__set_event(const char *spec)
{
	return trev__set_event_from(spec, 0);
}

/*
 * trev__file_soft_mode_locked() - take or drop a soft-mode reference (the
 * kernel's trace_event_enable_disable() with soft_disable = 1): while any
 * is held the probe stays registered so that triggers run, but nothing is
 * recorded unless the event is also enabled.
 */
int trev__file_soft_mode_locked(struct trev_event_file *file, bool take)
{
	int ret = 0;

	/*
	 * A built-in event has no probe to keep: whoever writes its record
	 * runs its triggers (ftrace/print's: trace_marker, write/trace_printk.c).
	 */
	if (file->call->flags & TREV_EVENT_FL_FTRACE)
		return 0;
	if (take) {
		if (file->sm_ref++ == 0) {
			unsigned int flags = atomic_load(&file->flags);

			if (!(flags & TREV_FILE_FL_ENABLED)) {
				atomic_fetch_or(&file->flags, TREV_FILE_FL_SOFT_DISABLED);
				ret = ev_enable_locked(file, true);
				/* ev_enable_locked() clears SOFT_DISABLED for a real enable. */
				atomic_fetch_or(&file->flags, TREV_FILE_FL_SOFT_DISABLED);
				if (ret)
					file->sm_ref--;
			}
			if (!ret)
				atomic_fetch_or(&file->flags, TREV_FILE_FL_SOFT_MODE);
		}
	} else if (file->sm_ref > 0 && --file->sm_ref == 0) {
		unsigned int flags = atomic_fetch_and(&file->flags, ~TREV_FILE_FL_SOFT_MODE);

		/* Soft-disabled means nobody enabled it for real: remove the probe. */
		if (flags & TREV_FILE_FL_SOFT_DISABLED)
			ret = ev_enable_locked(file, false);
	}
	return ret;
}

int trev__event_soft_mode(struct trev_event_call *call, bool take)
{
	struct trev_trace_array *tr = trev__top_instance();
	struct trev_event_file *file;
	int ret = -ENOENT;

	if (!tr)
		return -ENOMEM;
	pthread_rwlock_wrlock(&events_lock);
	if (call->rt && !(call->flags & TREV_EVENT_FL_FTRACE)) {
		file = trev__event_file(tr, call, true);
		ret = file ? trev__file_soft_mode_locked(file, take) : -ENOMEM;
	}
	pthread_rwlock_unlock(&events_lock);
	return ret;
}
