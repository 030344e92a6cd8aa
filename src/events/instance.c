/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Trace instances (the kernel's struct trace_array): the top instance, the
 * named ones under instances/, each with its main buffer, its snapshot
 * buffer and one event file per event it has touched.
 *
 * Who changes what:
 *   - the list of named instances and every instance's files[] change with
 *     the registry lock held for writing (registry.c), so the enable paths
 *     and dlclose see one consistent set;
 *   - tr->rb changes only by a snapshot swap, with tr->buf_lock held for
 *     writing; readers hold it for reading around each use of tr->rb;
 *     writers (event probes, trace_printk, trace_marker) load tr->rb inside
 *     an RCU read section, so a buffer swapped out is freed only after a
 *     grace period.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>


#include <trev/tracepoint.h>

#include "base/log.h"
#include "base/rcu.h"
#include "events/events_internal.h"
#include "ring_buffer/rb_internal.h"

static struct trev_trace_array top = {
	.name = "",
	.trace_flags = TREV_ITER_DEFAULT,
	.buf_lock = PTHREAD_RWLOCK_INITIALIZER,
};
static struct trev_trace_array *_Atomic top_made;
static pthread_mutex_t top_lock = PTHREAD_MUTEX_INITIALIZER;
/* Named instances, newest first; under the registry lock. */
static struct trev_trace_array *named;

/* The top instance's buffer size when it is made (a frontend's setting; 0: the default). */
static unsigned int top_size_kb;

void trev__top_size_kb_set(unsigned int kb)
{
	pthread_mutex_lock(&top_lock);
	top_size_kb = kb;
	pthread_mutex_unlock(&top_lock);
}

/* Context: top_lock held. */
static void tr_default_options(struct trev_rb_options *opts)
{
	*opts = (struct trev_rb_options){ .overwrite = 1, .clock = -1, .size_kb = top_size_kb };
}

/* Where the top instance's region goes (the flight recorder): a frontend's hook. */
static const struct trev__top_region_ops *top_region;

void trev__top_region_set(const struct trev__top_region_ops *ops)
{
	pthread_mutex_lock(&top_lock);
	top_region = ops;
	pthread_mutex_unlock(&top_lock);
}

struct trev_trace_array *trev__top_instance_if_made(void)
{
	return atomic_load_explicit(&top_made, memory_order_acquire);
}

struct trev_trace_array *trev__top_instance(void)
{
	struct trev_trace_array *tr = trev__top_instance_if_made();
	struct trev_rb_options opts;
	int ret;

	if (tr)
		return tr;
	pthread_mutex_lock(&top_lock);
	if (!atomic_load_explicit(&top_made, memory_order_relaxed)) {
		int flight = top_region ? top_region->open() : -1;

		tr_default_options(&opts);
		ret = trev__rb_create_in(&top.rb, &opts, flight);
		if (ret && flight >= 0) {
			trev__log(TREV_LOG_WARN, "TREV_FLIGHT: cannot make the trace buffer in its "
				  "file: %s (it stays in memory only)\n", strerror(-ret));
			top_region->abandon(flight);
			ret = trev_rb_create(&top.rb, &opts);
		}
		if (ret)
			trev__log(TREV_LOG_ERR, "cannot make the trace buffer: %s\n", strerror(-ret));
		else
			atomic_store_explicit(&top_made, &top, memory_order_release);
	}
	pthread_mutex_unlock(&top_lock);
	return trev__top_instance_if_made();
}

void trev__instances_crash_child(void)
{
	pthread_mutex_init(&top_lock, NULL);
	pthread_rwlock_init(&top.buf_lock, NULL);
	for (struct trev_trace_array *tr = named; tr; tr = tr->next)
		pthread_rwlock_init(&tr->buf_lock, NULL);
}

/* ------------------------------------------------------------------ */
/* Named instances (mkdir/rmdir under instances/)                       */

struct trev_trace_array *trev__instance_lookup(const char *name)
{
	if (!name || !*name)
		return trev__top_instance();
	for (struct trev_trace_array *tr = named; tr; tr = tr->next)
		if (strcmp(tr->name, name) == 0)
			return tr;
	return NULL;
}

int trev__instance_for_each(int (*fn)(struct trev_trace_array *tr, void *arg), void *arg)
{
	for (struct trev_trace_array *tr = named; tr; tr = tr->next) {
		int ret = fn(tr, arg);

		if (ret)
			return ret;
	}
	return 0;
}

static void tr_file_free(struct trev_event_file *file)
{
	if (!file)
		return;
	trev__event_file_release(file);	/* no probe uses it: see the callers */
	free(file);
}

int trev__instance_create_locked(const char *name)
{
	struct trev_trace_array *tr;
	struct trev_rb_options opts;
	int ret;

	if (trev__instance_lookup(name))
		return -EEXIST;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	tr->name = strdup(name);
	tr->trace_flags = TREV_ITER_DEFAULT;
	pthread_rwlock_init(&tr->buf_lock, NULL);
	tr_default_options(&opts);
	ret = tr->name ? trev_rb_create(&tr->rb, &opts) : -ENOMEM;
	if (ret == -ENOSPC)
		trev__tracing_log_err(trev__top_instance(), "instances", name, 0,
				      "At most %u ring buffers at once: the top instance's, one per "
				      "instance and one per allocated snapshot", RB_MAX_SETS);
	if (ret) {
		free(tr->name);
		free(tr);
		return ret;
	}
	tr->next = named;
	named = tr;
	return 0;
}

/*
 * The caller has disabled every event of @tr (their probes are gone after a
 * grace period) and checked that no file of it is open.
 */
int trev__instance_remove_locked(struct trev_trace_array *tr)
{
	struct trev_trace_array **p;

	for (p = &named; *p && *p != tr; p = &(*p)->next)
		;
	if (!*p)
		return -ENOENT;
	*p = tr->next;
	for (unsigned int i = 0; i < tr->nr_files; i++)
		tr_file_free(tr->files[i]);
	while (tr->sys_filters) {
		struct trev_sys_filter *f = tr->sys_filters;

		tr->sys_filters = f->next;
		free(f->system);
		free(f->text);
		free(f);
	}
	for (unsigned int i = 0; i < TREV_ERR_LOG_MAX; i++) {
		free(tr->errs[i].loc);
		free(tr->errs[i].msg);
		free(tr->errs[i].cmd);
	}
	free(tr->files);
	/* Its set_event_pid lists: its files, the probes' way to them, are gone. */
	free(atomic_load_explicit(&tr->event_pids[0], memory_order_relaxed));
	free(atomic_load_explicit(&tr->event_pids[1], memory_order_relaxed));
	trev_rb_destroy(tr->rb);
	if (tr->snapshot)
		trev_rb_destroy(tr->snapshot);
	pthread_rwlock_destroy(&tr->buf_lock);
	free(tr->name);
	free(tr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Event files                                                          */

struct trev_event_file *trev__event_file(struct trev_trace_array *tr,
					 struct trev_event_call *call, bool create)
{
	struct trev_event_rt *rt = trev__event_rt(call);
	struct trev_event_file *file;

	if (!rt)
		return NULL;
	if (tr == &top) {
		if (!__atomic_load_n(&rt->file.tr, __ATOMIC_RELAXED))
			__atomic_store_n(&rt->file.tr, tr, __ATOMIC_RELAXED);
		return &rt->file;
	}
	if (call->id < tr->nr_files && tr->files[call->id])
		return tr->files[call->id];
	if (!create)
		return NULL;
	if (call->id >= tr->nr_files) {
		unsigned int n = tr->nr_files ? tr->nr_files : 64;
		struct trev_event_file **files;

		while (n <= call->id)
			n *= 2;
		files = realloc(tr->files, n * sizeof(*files));
		if (!files)
			return NULL;
		memset(files + tr->nr_files, 0, (n - tr->nr_files) * sizeof(*files));
		tr->files = files;
		tr->nr_files = n;
	}
	file = calloc(1, sizeof(*file));
	if (!file)
		return NULL;
	file->call = call;
	file->tr = tr;
	atomic_store_explicit(&file->flags, trev__inst_file_bits(tr, call), memory_order_relaxed);
	tr->files[call->id] = file;
	return file;
}

void trev__event_files_drop(struct trev_event_call *call)
{
	for (struct trev_trace_array *tr = named; tr; tr = tr->next) {
		if (call->id < tr->nr_files) {
			tr_file_free(tr->files[call->id]);
			tr->files[call->id] = NULL;
		}
	}
}

/* ------------------------------------------------------------------ */
/* The snapshot buffer                                                  */

/*
 * tr->snapshot is read and written with tr->buf_lock held (reading, or
 * writing to change it); a probe swaps only when pthread_rwlock_trywrlock()
 * gets the lock, so it never waits. See docs/triggers.md, "snapshot".
 */
static int tr_snapshot_alloc(struct trev_trace_array *tr)
{
	struct trev_rb_options opts;
	struct trev_rb *snap;
	int ret;

	pthread_rwlock_rdlock(&tr->buf_lock);
	snap = tr->snapshot;
	pthread_rwlock_unlock(&tr->buf_lock);
	if (snap)
		return 0;
	tr_default_options(&opts);
	opts.size_kb = trev_rb_size_kb(tr->rb);
	opts.overwrite = trev_rb_overwrite(tr->rb);
	opts.clock = trev_rb_clock(tr->rb);
	ret = trev_rb_create(&snap, &opts);
	if (ret)
		return ret;
	pthread_rwlock_wrlock(&tr->buf_lock);
	tr->snapshot = snap;
	pthread_rwlock_unlock(&tr->buf_lock);
	return 0;
}

void trev__snapshot_settle(struct trev_trace_array *tr)
{
	unsigned long swaps = atomic_load_explicit(&tr->snap_swaps, memory_order_acquire);

	if (swaps == tr->snap_settled)
		return;
	/* Writers that loaded the buffer before a probe swapped it out finish. */
	trev__rcu_synchronize();
	trev_tsan_acquire(tr);
	tr->snap_settled = swaps;
}

int trev__snapshot_take(struct trev_trace_array *tr)
{
	struct trev_rb *old;
	int ret = tr_snapshot_alloc(tr);

	if (ret)
		return ret;
	trev__snapshot_settle(tr);
	pthread_rwlock_wrlock(&tr->buf_lock);
	if (tr->lent) {
		pthread_rwlock_unlock(&tr->buf_lock);
		return -EBUSY;
	}
	/* The spare buffer starts empty and recording, as the kernel's does. */
	trev_rb_reset(tr->snapshot);
	if (trev_rb_record_is_on(tr->rb))
		trev_rb_record_on(tr->snapshot);
	else
		trev_rb_record_off(tr->snapshot);
	old = tr->rb;
	__atomic_store_n(&tr->rb, tr->snapshot, __ATOMIC_RELEASE);
	tr->snapshot = old;
	pthread_rwlock_unlock(&tr->buf_lock);
	/* Writers that loaded the old pointer finish before anyone reads it as a snapshot. */
	trev__rcu_synchronize();
	trev_tsan_acquire(tr);
	return 0;
}

int trev__snapshot_free(struct trev_trace_array *tr)
{
	struct trev_rb_held *held = NULL;
	struct trev_rb *snap;

	/* A snapshot trigger needs the buffer (the kernel's armed snapshot). */
	if (atomic_load(&tr->snap_arms))
		return -EBUSY;
	/* Made first: once the buffer left the instance, freeing it cannot fail. */
	if (tr->buf_holders && !(held = malloc(sizeof(*held))))
		return -ENOMEM;
	pthread_rwlock_wrlock(&tr->buf_lock);
	snap = tr->snapshot;
	tr->snapshot = NULL;
	pthread_rwlock_unlock(&tr->buf_lock);
	if (!snap) {
		free(held);
		return 0;
	}
	trev__rcu_synchronize();
	trev_tsan_acquire(tr);
	if (held) {
		/*
		 * A streamed reader may be walking it (it was the main buffer
		 * when a `trace` reader opened, perhaps): the kernel's iterators
		 * likewise keep a freed snapshot buffer from being shrunk.
		 */
		held->rb = snap;
		held->next = tr->freed;
		tr->freed = held;
		return 0;
	}
	trev_rb_destroy(snap);
	return 0;
}

void trev__instance_buffers_get(struct trev_trace_array *tr)
{
	tr->buf_holders++;
}

void trev__instance_buffers_put(struct trev_trace_array *tr)
{
	if (--tr->buf_holders)
		return;
	while (tr->freed) {
		struct trev_rb_held *held = tr->freed;

		tr->freed = held->next;
		trev_rb_destroy(held->rb);
		free(held);
	}
}

int trev__snapshot_clear(struct trev_trace_array *tr)
{
	int ret = 0;

	trev__snapshot_settle(tr);
	pthread_rwlock_rdlock(&tr->buf_lock);
	if (tr->snapshot)
		ret = trev_rb_reset(tr->snapshot);
	pthread_rwlock_unlock(&tr->buf_lock);
	return ret;
}

/*
 * Called under the registry lock, which printing takes inside buf_lock: so
 * no buf_lock here. While nothing is armed no probe touches tr->snapshot,
 * and every other user of it holds the tracefs lock, as the caller does.
 */
int trev__snapshot_arm(struct trev_trace_array *tr)
{
	struct trev_rb_options opts;
	int ret;

	if (atomic_load(&tr->snap_arms) == 0 && !tr->snapshot) {
		tr_default_options(&opts);
		opts.size_kb = trev_rb_size_kb(tr->rb);
		opts.overwrite = trev_rb_overwrite(tr->rb);
		opts.clock = trev_rb_clock(tr->rb);
		ret = trev_rb_create(&tr->snapshot, &opts);
		if (ret)
			return ret;
	}
	atomic_fetch_add(&tr->snap_arms, 1);
	return 0;
}

void trev__snapshot_disarm(struct trev_trace_array *tr)
{
	atomic_fetch_sub(&tr->snap_arms, 1);
}

/*
 * The swap itself, from a probe: no wait, no allocation, no grace period.
 * The lock is only tried: a reader of the buffers (trace, trace_pipe,
 * snapshot, a control write) holding it makes this swap fail, counted.
 * The buffer swapped out may still get the records of writers that loaded
 * it; trev__snapshot_settle() waits for them before it is read or freed.
 */
bool trev__snapshot_swap_probe(struct trev_trace_array *tr)
{
	struct trev_rb *old, *snap;

	if (!atomic_load_explicit(&tr->snap_arms, memory_order_relaxed))
		return false;
	if (pthread_rwlock_trywrlock(&tr->buf_lock) != 0) {
		atomic_fetch_add_explicit(&tr->snap_refused, 1, memory_order_relaxed);
		return false;
	}
	snap = tr->lent ? NULL : tr->snapshot;
	if (tr->lent)
		atomic_fetch_add_explicit(&tr->snap_refused, 1, memory_order_relaxed);
	if (snap) {
		old = tr->rb;
		/* The kernel's update_max_tr(): the new main buffer inherits tracing_on. */
		if (trev_rb_record_is_on(old))
			trev_rb_record_on(snap);
		else
			trev_rb_record_off(snap);
		__atomic_store_n(&tr->rb, snap, __ATOMIC_RELEASE);
		tr->snapshot = old;
		atomic_fetch_add_explicit(&tr->snap_swaps, 1, memory_order_release);
	}
	pthread_rwlock_unlock(&tr->buf_lock);
	return snap != NULL;
}

/* ------------------------------------------------------------------ */
/* Lending the buffer to a recorder in another process                 */

int trev__instance_lend(bool consume, int *memfd)
{
	struct trev_trace_array *tr = trev__top_instance();
	int seals, ret = 0;

	if (!tr)
		return -ENOMEM;
	pthread_rwlock_wrlock(&tr->buf_lock);
	/* A flight recorder's file cannot be sealed: a reader would refuse it
	 * (trev_rb_attach()), so nothing is lent; it reads the pages over the
	 * socket instead. */
	seals = fcntl(trev_rb_memfd(tr->rb), F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		ret = -EPERM;
	else if (consume)
		ret = trev_rb_lend_consumer(tr->rb);
	if (ret == 0) {
		tr->lent++;
		*memfd = trev_rb_memfd(tr->rb);
	}
	pthread_rwlock_unlock(&tr->buf_lock);
	return ret;
}

void trev__instance_unlend(bool consume)
{
	struct trev_trace_array *tr = trev__top_instance();

	pthread_rwlock_wrlock(&tr->buf_lock);
	if (consume)
		trev_rb_return_consumer(tr->rb);
	tr->lent--;
	pthread_rwlock_unlock(&tr->buf_lock);
}

int trev__instance_restage(const void *buf, size_t len)
{
	struct trev_trace_array *tr = trev__top_instance();
	int ret;

	if (!tr)
		return -ENOMEM;
	/* While lent the buffer cannot be swapped: it is the one lent. */
	pthread_rwlock_rdlock(&tr->buf_lock);
	ret = trev_rb_stage_import(tr->rb, buf, len);
	pthread_rwlock_unlock(&tr->buf_lock);
	return ret;
}

ssize_t trev__instance_unstage(void *buf, size_t size)
{
	struct trev_trace_array *tr = trev__top_instance();
	ssize_t ret;

	if (!tr)
		return -ENOMEM;
	pthread_rwlock_rdlock(&tr->buf_lock);
	ret = trev_rb_stage_export(tr->rb, buf, size);
	pthread_rwlock_unlock(&tr->buf_lock);
	return ret;
}

void trev__instance_lends_forget(void)
{
	struct trev_trace_array *tr = trev__top_instance_if_made();

	if (tr)
		tr->lent = 0;
}
