/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which threads and CPUs an instance records events from: set_event_pid,
 * set_event_notrace_pid (with options/event-fork) and tracing_cpumask, the
 * kernel's trace_events.c pid lists and trace.c's tracing_cpumask; and the
 * instance-wide bits of its event files (TREV_FILE_FL_INST) that send its
 * events to the write path's slow path only while one of these is set, so
 * an event of an instance without them costs what it did (docs/tracefs.md).
 *
 * The pid lists are replaced whole: a writer (registry lock) publishes a
 * new sorted array with a release exchange and frees the old one after an
 * RCU grace period; a probe reads them inside its read section with an
 * acquire load (what rcu_dereference() is on x86). tracing_cpumask is a
 * bitmap of atomics, one word at a time, as the kernel changes its CPUs'
 * buffers one by one.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trev/tracepoint.h>

#include "base/buf.h"
#include "base/rcu.h"
#include "events/events_internal.h"
#include "ring_buffer/rb_internal.h"

#define WORD_BITS	(8 * sizeof(unsigned long))

static bool tr_is_top(const struct trev_trace_array *tr)
{
	return !tr->name[0];
}

/* The bits of @bits that apply to files of @call. */
static unsigned int inst_bits_for(const struct trev_event_call *call, unsigned int bits)
{
	/* The kernel's pid lists and stacktrace option are its trace events', not ftrace's own. */
	if (call->flags & TREV_EVENT_FL_FTRACE)
		bits &= ~(TREV_FILE_FL_PID | TREV_FILE_FL_STACK);
	return bits;
}

unsigned int trev__inst_file_bits(const struct trev_trace_array *tr,
				  const struct trev_event_call *call)
{
	return tr ? inst_bits_for(call, tr->file_bits) : 0;
}

static void file_bits_apply(struct trev_event_file *file, unsigned int bits, bool on)
{
	bits = inst_bits_for(file->call, bits);
	if (!bits)
		return;
	/* Relaxed, as every flags change: the probe's state it leads to is published apart. */
	if (on)
		atomic_fetch_or_explicit(&file->flags, bits, memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&file->flags, ~bits, memory_order_relaxed);
}

struct bits_arg {
	unsigned int bits;
	bool on;
};

static int top_file_bits(struct trev_event_call *call, void *arg)
{
	const struct bits_arg *a = arg;
	struct trev_event_rt *rt = trev__event_rt(call);

	if (rt)
		file_bits_apply(&rt->file, a->bits, a->on);
	return 0;
}

void trev__inst_bits_set(struct trev_trace_array *tr, unsigned int bits, bool on)
{
	struct bits_arg a = { bits, on };

	if (on)
		tr->file_bits |= bits;
	else
		tr->file_bits &= ~bits;
	if (tr_is_top(tr)) {
		trev__events_for_each(top_file_bits, &a);
		return;
	}
	for (unsigned int i = 0; i < tr->nr_files; i++)
		if (tr->files[i])
			file_bits_apply(tr->files[i], bits, on);
}

/* ------------------------------------------------------------------ */
/* The probe's side                                                     */

bool trev__inst_ignores(const struct trev_trace_array *tr, unsigned int flags, pid_t tid,
			int cpu)
{
	if (!tr)
		return false;
	if ((flags & TREV_FILE_FL_CPUMASK) && cpu >= 0 && (unsigned int)cpu < 1024 &&
	    (atomic_load_explicit(&tr->cpus_off[(unsigned int)cpu / WORD_BITS],
				  memory_order_relaxed) >> ((unsigned int)cpu % WORD_BITS) & 1))
		return true;
	if (flags & TREV_FILE_FL_PID) {
		/* rcu_dereference(): pairs with the release exchange of pids_replace(). */
		const struct trev_pid_list *pids = atomic_load_explicit(&tr->event_pids[0],
									memory_order_acquire);
		const struct trev_pid_list *nopids = atomic_load_explicit(&tr->event_pids[1],
									  memory_order_acquire);
		bool ignore = (pids && !trev__pid_list_has(pids, tid)) || (nopids && trev__pid_list_has(nopids, tid));

		/* For TSan: the grace period orders these reads before the frees. */
		if (pids)
			trev_tsan_release(pids);
		if (nopids)
			trev_tsan_release(nopids);
		return ignore;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* set_event_pid, set_event_notrace_pid                                 */

/* Publish @p as @tr's list @k; the files' PID bit follows. Context: registry lock (write). */
static void pids_replace(struct trev_trace_array *tr, int k, struct trev_pid_list *p)
{
	struct trev_pid_list *old = atomic_exchange_explicit(&tr->event_pids[k], p,
							     memory_order_acq_rel);
	bool any = atomic_load_explicit(&tr->event_pids[0], memory_order_relaxed) ||
		   atomic_load_explicit(&tr->event_pids[1], memory_order_relaxed);

	if (any != !!(tr->file_bits & TREV_FILE_FL_PID))
		trev__inst_bits_set(tr, TREV_FILE_FL_PID, any);
	if (old) {
		trev__rcu_synchronize();
		trev_tsan_acquire(old);
		free(old);
	}
}

void trev__event_pids_clear(struct trev_trace_array *tr, bool notrace)
{
	trev__events_write_lock();
	pids_replace(tr, notrace, NULL);
	trev__events_write_unlock();
}

int trev__event_pids_write(struct trev_trace_array *tr, bool notrace, const char *text,
			   size_t len, int *err_pos)
{
	const struct trev_pid_list *cur;
	struct trev_pid_list *p;
	int ret = 0;

	trev__events_write_lock();
	cur = atomic_load_explicit(&tr->event_pids[notrace], memory_order_relaxed);
	/* The kernel's trace_pid_write(): a number below pid_max; 0 is nobody's. */
	p = trev__pid_list_add(cur, text, len, false, err_pos, &ret);
	if (p && p->n > (cur ? cur->n : 0))
		pids_replace(tr, notrace, p);
	else
		free(p);
	trev__events_write_unlock();
	return ret;
}

int trev__event_pids_show(struct trev_trace_array *tr, bool notrace, struct trev_buf *out)
{
	const struct trev_pid_list *p;
	int ret = 0;

	trev__events_read_lock();
	p = atomic_load_explicit(&tr->event_pids[notrace], memory_order_relaxed);
	for (size_t i = 0; p && i < p->n && !ret; i++)
		ret = trev__buf_printf(out, "%d\n", (int)p->tid[i]);
	trev__events_read_unlock();
	return ret;
}

/* options/event-fork: the thread that calls fork() (saved before it). */
static pid_t fork_parent;

static void event_fork_prepare(void)
{
	fork_parent = trev__gettid();
}

/* In @tr's lists that hold the parent, the child too (it is the only thread here). */
static void event_fork_add(struct trev_trace_array *tr, pid_t child)
{
	if (!(__atomic_load_n(&tr->trace_flags, __ATOMIC_RELAXED) & TREV_ITER_EVENT_FORK))
		return;
	for (int k = 0; k < 2; k++) {
		struct trev_pid_list *cur = atomic_load_explicit(&tr->event_pids[k],
								 memory_order_relaxed), *p;

		if (!cur || !trev__pid_list_has(cur, fork_parent) || trev__pid_list_has(cur, child))
			continue;
		p = malloc(sizeof(*p) + (cur->n + 1) * sizeof(pid_t));
		if (!p)
			continue;	/* the child is left out, as with a list that is full */
		memcpy(p->tid, cur->tid, cur->n * sizeof(pid_t));
		p->tid[cur->n] = child;
		p->n = cur->n + 1;
		qsort(p->tid, p->n, sizeof(pid_t), trev__pid_cmp);
		/* No reader but this thread (and its signal handlers: the old list stays). */
		atomic_store_explicit(&tr->event_pids[k], p, memory_order_release);
	}
}

static int event_fork_named(struct trev_trace_array *tr, void *arg)
{
	event_fork_add(tr, *(pid_t *)arg);
	return 0;
}

/*
 * The kernel adds a child of a listed task at sched_process_fork; trev's
 * tasks are its threads, and the new process's only thread is the one that
 * forked. Without locks: the child has one thread, and a lock another
 * thread of the parent held stays held in it.
 */
static void event_fork_child(void)
{
	pid_t child = getpid();
	struct trev_trace_array *top = trev__top_instance_if_made();

	if (top)
		event_fork_add(top, child);
	trev__instance_for_each(event_fork_named, &child);
}

static __attribute__((constructor)) void inst_filter_init(void)
{
	pthread_atfork(event_fork_prepare, NULL, event_fork_child);
}

/* ------------------------------------------------------------------ */
/* tracing_cpumask                                                      */

static unsigned int mask_bits(void)
{
	unsigned int n = trev_nr_cpumask_bits();

	return n > 1024 ? 1024 : n;
}

int trev__cpumask_show(struct trev_trace_array *tr, struct trev_buf *out)
{
	unsigned int n = mask_bits();
	/* The kernel's bitmap_string(): the top group as wide as its bits need. */
	unsigned int chunk = n % 32 ? n % 32 : 32;
	bool first = true;
	int ret = 0;

	for (int i = (int)((n + 31) / 32 * 32 - 32); i >= 0 && !ret; i -= 32) {
		unsigned long w = ~atomic_load_explicit(&tr->cpus_off[(unsigned int)i / WORD_BITS],
							memory_order_relaxed);
		unsigned long long v = (w >> ((unsigned int)i % WORD_BITS)) &
				       ((1ull << chunk) - 1);

		ret = trev__buf_printf(out, "%s%0*llx", first ? "" : ",", (int)((chunk + 3) / 4), v);
		first = false;
		chunk = 32;
	}
	return ret ? ret : trev__buf_puts(out, "\n");
}

int trev__cpumask_write(struct trev_trace_array *tr, const char *text, size_t len,
			int *err_pos, const char **why)
{
	unsigned long on[TREV_CPUMASK_WORDS] = { 0 };
	unsigned int n = mask_bits(), bit = 0;
	size_t end = len, start = 0;
	bool partial = false;

	while (start < end && isspace((unsigned char)text[start]))
		start++;
	while (end > start && isspace((unsigned char)text[end - 1]))
		end--;
	*err_pos = (int)start;
	if (start == end) {
		*why = "No mask given";
		return -EINVAL;
	}
	/* Groups of at most 8 hex digits, split by commas, the lowest last (bitmap_parse()). */
	for (size_t g = end;;) {
		size_t b = g;
		unsigned long long v = 0;

		while (b > start && text[b - 1] != ',')
			b--;
		if (b == g || g - b > 8) {
			*err_pos = (int)b;
			*why = b == g ? "Empty group in the mask" :
					"A group of the mask has more than 8 digits";
			return -EINVAL;
		}
		for (size_t i = b; i < g; i++) {
			if (!isxdigit((unsigned char)text[i])) {
				*err_pos = (int)i;
				*why = "Not a hex digit";
				return -EINVAL;
			}
			v = v << 4 | (unsigned long long)(isdigit((unsigned char)text[i]) ?
				text[i] - '0' : (tolower((unsigned char)text[i]) - 'a' + 10));
		}
		for (unsigned int k = 0; k < 32; k++) {
			if (!(v >> k & 1))
				continue;
			if (bit + k >= n) {
				*err_pos = (int)b;
				*why = "The mask names a CPU that does not exist";
				return -EINVAL;
			}
			on[(bit + k) / WORD_BITS] |= 1ul << ((bit + k) % WORD_BITS);
		}
		if (b == start)
			break;
		bit += 32;
		g = b - 1;	/* the comma */
	}
	trev__events_write_lock();
	for (unsigned int w = 0; w < TREV_CPUMASK_WORDS; w++) {
		unsigned long valid = 0;

		for (unsigned int k = 0; k < WORD_BITS && w * WORD_BITS + k < n; k++)
			valid |= 1ul << k;
		/* Relaxed: an event sees each CPU's bit before or after, as the kernel's per CPU. */
		atomic_store_explicit(&tr->cpus_off[w], ~on[w] & valid, memory_order_relaxed);
		partial |= (~on[w] & valid) != 0;
	}
	if (partial != !!(tr->file_bits & TREV_FILE_FL_CPUMASK))
		trev__inst_bits_set(tr, TREV_FILE_FL_CPUMASK, partial);
	trev__events_write_unlock();
	return 0;
}
