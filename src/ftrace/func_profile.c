/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function profiler (the kernel's CONFIG_FUNCTION_PROFILER in ftrace.c):
 * with function_profile_enabled, every function set_ftrace_filter and
 * set_ftrace_notrace select counts its calls and their time per CPU, and
 * trace_stat/function<N> lists them as the kernel does with the graph
 * tracer ("Function  Hit  Time  Avg  s^2"). The time is taken on
 * function_graph's frames (fgraph.h's hooks): the entry pushes a frame for
 * a profiled function, its return adds the call's duration and its square.
 * docs/function-tracer.md, "The function profiler".
 *
 * The trampoline reads fp_table (RCU, as func_cmd.c's table): the selected
 * functions sorted by address, and nr_cpus counters per function, added to
 * with relaxed atomic adds (exact under any number of threads; a thread
 * that moves between reading its CPU and the add counts on the CPU it
 * read). A new selection makes a new table: the old one's counts are added
 * into it after a grace period, so no hit is lost. Enabling starts from
 * zero, as the kernel's ftrace_profile_reset(); disabling keeps the counts
 * readable.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>


#include <trev/tracepoint.h>

#include "base/buf.h"
#include "base/rcu.h"
#include "events/events_internal.h"
#include "ftrace/fgraph.h"
#include "ftrace/ftrace.h"
#include "ftrace/func_cmd.h"

struct fp_table {
	size_t n;			/* functions */
	int nr_cpus;			/* counters per function */
	uintptr_t *addr;		/* sorted */
	_Atomic unsigned long *hits;	/* [i * nr_cpus + cpu] */
	_Atomic unsigned long long *time;	/* ns, as hits */
	_Atomic unsigned long long *time_sq;	/* ns^2, as hits (wraps as the kernel's) */
};

/* Read by the trampoline (acquire); replaced under ft_lock (release exchange). */
static _Atomic(struct fp_table *) fp_table;

/*
 * The counters' index of the function at @ip on this CPU in @t, or -1.
 * Context: inside an RCU read section.
 */
static long fp_slot(const struct fp_table *t, unsigned long ip)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->addr[mid] == ip) {
			int cpu = sched_getcpu();

			if (cpu < 0)
				cpu = 0;
			return (long)(mid * (size_t)t->nr_cpus + (size_t)(cpu % t->nr_cpus));
		}
		if (t->addr[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void trev__fp_hit(unsigned long ip)
{
	/* Pairs with the release exchange of trev__fp_publish(). */
	struct fp_table *t = atomic_load_explicit(&fp_table, memory_order_acquire);
	long i;

	if (!t)
		return;
	i = fp_slot(t, ip);
	/* Relaxed: a count, read only by trace_stat (after a grace period or racily). */
	if (i >= 0)
		atomic_fetch_add_explicit(&t->hits[i], 1, memory_order_relaxed);
	/* For TSan: the grace period orders this read before trev__fp_publish()'s free. */
	trev_tsan_release(t);
}

/* The hooks' entry: push a frame (take the return) for a profiled function only. */
static bool fp_entry(unsigned long func, unsigned int depth, unsigned long long calltime)
{
	struct fp_table *t = atomic_load_explicit(&fp_table, memory_order_acquire);
	bool found;

	(void)depth, (void)calltime;
	if (!t)
		return false;
	found = fp_slot(t, func) >= 0;
	trev_tsan_release(t);
	return found;
}

/*
 * The hooks' exit: the call's time, as the kernel's profile_graph_return()
 * with graph-time on (a function's time holds its callees'). Counted in
 * the table there is now, on the CPU the return runs on.
 */
static void fp_exit(unsigned long func, unsigned int depth, unsigned long long calltime,
		    unsigned long long rettime)
{
	struct fp_table *t = atomic_load_explicit(&fp_table, memory_order_acquire);
	unsigned long long d = rettime > calltime ? rettime - calltime : 0;
	long i;

	(void)depth;
	if (!t)
		return;
	i = fp_slot(t, func);
	if (i >= 0) {
		atomic_fetch_add_explicit(&t->time[i], d, memory_order_relaxed);
		atomic_fetch_add_explicit(&t->time_sq[i], d * d, memory_order_relaxed);
	}
	trev_tsan_release(t);
}

static struct trev_fg_hooks fp_hooks = { fp_entry, fp_exit, NULL };

static void fp_free(struct fp_table *t)
{
	if (!t)
		return;
	free(t->addr);
	free((void *)t->hits);
	free((void *)t->time);
	free((void *)t->time_sq);
	free(t);
}

struct fp_collect {
	uintptr_t *addr;
	size_t n, cap;
	int err;
};

static void fp_collect_one(void *arg, uintptr_t addr, const char *name, const char *mod)
{
	struct fp_collect *c = arg;

	(void)name, (void)mod;
	if (c->err || !trev__ft_selected(addr))
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		uintptr_t *n = realloc(c->addr, cap * sizeof(*n));

		if (!n) {
			c->err = -ENOMEM;
			return;
		}
		c->addr = n;
		c->cap = cap;
	}
	c->addr[c->n++] = addr;
}

static int fp_addr_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

int trev__fp_publish(bool on, bool reset, int nr_cpus)
{
	struct fp_table *old = atomic_load_explicit(&fp_table, memory_order_relaxed), *t;
	struct fp_collect c = { 0 };

	if (!on) {
		/* The counts stay readable; the trampoline stops counting (its relaxed load). */
		atomic_fetch_and(&trev__ft_extra, ~TREV_FT_EXTRA_PROFILE);
		trev__fg_hooks_set(NULL);	/* returns after the calls in the hooks */
		return 0;
	}
	/* The frames are timed on the top instance's clock (its trace_clock). */
	if (!fp_hooks.clock) {
		fp_hooks.clock = trev__top_instance();
		if (!fp_hooks.clock)
			return -ENOMEM;
	}
	/* Ours (again, or still): the table below is what they look in. */
	if (trev__fg_hooks_set(&fp_hooks))
		return -EBUSY;
	trev__ft_match("*", NULL, fp_collect_one, &c);
	if (c.err) {
		free(c.addr);
		return c.err;
	}
	if (c.n)
		qsort(c.addr, c.n, sizeof(*c.addr), fp_addr_cmp);
	t = calloc(1, sizeof(*t));
	if (!t) {
		free(c.addr);
		return -ENOMEM;
	}
	t->n = c.n;
	t->nr_cpus = nr_cpus > 0 ? nr_cpus : 1;
	t->addr = c.addr;
	t->hits = calloc(t->n ? t->n * (size_t)t->nr_cpus : 1, sizeof(*t->hits));
	t->time = calloc(t->n ? t->n * (size_t)t->nr_cpus : 1, sizeof(*t->time));
	t->time_sq = calloc(t->n ? t->n * (size_t)t->nr_cpus : 1, sizeof(*t->time_sq));
	if (!t->hits || !t->time || !t->time_sq) {
		fp_free(t);
		return -ENOMEM;
	}
	/* Release: the table's contents before its address (pairs with trev__fp_hit()). */
	atomic_exchange_explicit(&fp_table, t, memory_order_acq_rel);
	/* After the table: a call that sees the bit finds a table (or counts nothing). */
	atomic_fetch_or(&trev__ft_extra, TREV_FT_EXTRA_PROFILE);
	if (!old)
		return 0;
	trev__rcu_synchronize();
	trev_tsan_acquire(old);
	/* No reader counts into @old any more: carry its counts over, unless starting anew. */
	for (size_t i = 0, j = 0; !reset && i < old->n && j < t->n;) {
		if (old->addr[i] < t->addr[j]) {
			i++;
		} else if (old->addr[i] > t->addr[j]) {
			j++;
		} else {
			for (int cpu = 0; cpu < old->nr_cpus; cpu++) {
				size_t to = j * (size_t)t->nr_cpus + (size_t)(cpu % t->nr_cpus);
				size_t from = i * (size_t)old->nr_cpus + (size_t)cpu;

				atomic_fetch_add_explicit(&t->hits[to],
							  atomic_load_explicit(&old->hits[from],
									       memory_order_relaxed),
							  memory_order_relaxed);
				atomic_fetch_add_explicit(&t->time[to],
							  atomic_load_explicit(&old->time[from],
									       memory_order_relaxed),
							  memory_order_relaxed);
				atomic_fetch_add_explicit(&t->time_sq[to],
							  atomic_load_explicit(&old->time_sq[from],
									       memory_order_relaxed),
							  memory_order_relaxed);
			}
			i++;
			j++;
		}
	}
	fp_free(old);
	return 0;
}

struct fp_row {
	const char *name;
	unsigned long hits;
	unsigned long long time, time_sq;
};

/* The kernel's function_stat_cmp() with the graph tracer: the longest time first. */
static int fp_row_cmp(const void *a, const void *b)
{
	const struct fp_row *x = a, *y = b;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The kernel's trace_print_graph_duration(): microseconds, then up to 3
 * digits of ns while the number has fewer than 7, " us ", and spaces to
 * a width of 8 characters before " us ".
 */
static int fp_duration(struct trev_buf *out, unsigned long long ns)
{
	char us[24], frac[8] = "";
	int len = snprintf(us, sizeof(us), "%llu", ns / 1000);
	int ret;

	if (len < 7) {
		/* "%03lu" cut to 8 - len - 1 characters (at most 3), as the kernel's snprintf. */
		int keep = 8 - len - 1 < 3 ? 8 - len - 1 : 3;

		snprintf(frac, sizeof(frac), ".%03llu", ns % 1000);
		frac[1 + keep] = '\0';
		len += 1 + keep;
	}
	ret = trev__buf_printf(out, "%s%s us ", us, frac);
	for (; len < 8 && !ret; len++)
		ret = trev__buf_putc(out, ' ');
	return ret;
}

/* One row: function_stat_show(), with the sample variance as Welford's form gives it. */
static int fp_row_show(struct trev_buf *out, const struct fp_row *r)
{
	unsigned long long avg = r->time / r->hits, s2 = 0;
	int ret;

	if (r->hits > 1) {
		/* (n * sum(x^2) - sum(x)^2) / (n * (n - 1)), in us^2 after /1000 here and below. */
		unsigned __int128 n = r->hits;
		unsigned __int128 num = n * r->time_sq, sq = (unsigned __int128)r->time * r->time;

		s2 = num > sq ? (unsigned long long)((num - sq) / (n * (n - 1) * 1000)) : 0;
	}
	ret = trev__buf_printf(out, "  %-30.30s  %10lu    ", r->name, r->hits);
	ret = ret ?: fp_duration(out, r->time);
	ret = ret ?: trev__buf_puts(out, "    ");
	ret = ret ?: fp_duration(out, avg);
	ret = ret ?: trev__buf_puts(out, "    ");
	ret = ret ?: fp_duration(out, s2);
	return ret ?: trev__buf_putc(out, '\n');
}

int trev__fp_show(int cpu, struct trev_buf *out)
{
	/* ft_lock: the table is ours to read; the counters are loaded relaxed, racing adds. */
	struct fp_table *t = atomic_load_explicit(&fp_table, memory_order_relaxed);
	unsigned long long thresh = trev__fg_thresh();
	struct fp_row *rows;
	size_t n = 0;
	int ret;

	/* The kernel's function_stat_headers() with CONFIG_FUNCTION_GRAPH_TRACER. */
	ret = trev__buf_puts(out, "  Function                               Hit    Time            "
				  "Avg             s^2\n"
				  "  --------                               ---    ----            "
				  "---             ---\n");
	if (ret || !t || cpu >= t->nr_cpus)
		return ret;
	rows = malloc((t->n ? t->n : 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = i * (size_t)t->nr_cpus + (size_t)cpu;
		unsigned long h = atomic_load_explicit(&t->hits[k], memory_order_relaxed);
		const char *name = h ? trev__ft_site_name(t->addr[i]) : NULL;
		struct fp_row r;

		/* As the kernel's: a function is listed on a CPU once it was hit there. */
		if (!name)
			continue;
		r = (struct fp_row){ name, h,
				     atomic_load_explicit(&t->time[k], memory_order_relaxed),
				     atomic_load_explicit(&t->time_sq[k], memory_order_relaxed) };
		/* function_stat_show(): with tracing_thresh, only functions whose average reaches it. */
		if (thresh && r.time / r.hits < thresh)
			continue;
		rows[n++] = r;
	}
	qsort(rows, n, sizeof(*rows), fp_row_cmp);
	for (size_t i = 0; i < n && !ret; i++)
		ret = fp_row_show(out, &rows[i]);
	free(rows);
	return ret;
}
