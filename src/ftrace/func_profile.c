/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function profiler (the kernel's CONFIG_FUNCTION_PROFILER in ftrace.c):
 * with function_profile_enabled, every function set_ftrace_filter and
 * set_ftrace_notrace select counts its calls per CPU, and
 * trace_stat/function<N> lists them as the kernel does without the graph
 * tracer ("Function  Hit"). docs/function-tracer.md, "The function profiler".
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

#define _LGPL_SOURCE
#include <urcu-bp.h>

#include <trev/tracepoint.h>

#include "base/buf.h"
#include "ftrace/func_cmd.h"

struct fp_table {
	size_t n;			/* functions */
	int nr_cpus;			/* counters per function */
	uintptr_t *addr;		/* sorted */
	_Atomic unsigned long *hits;	/* [i * nr_cpus + cpu] */
};

/* Read by the trampoline (acquire); replaced under ft_lock (release exchange). */
static _Atomic(struct fp_table *) fp_table;

void trev__fp_hit(unsigned long ip)
{
	/* Pairs with the release exchange of trev__fp_publish(). */
	struct fp_table *t = atomic_load_explicit(&fp_table, memory_order_acquire);
	size_t lo = 0, hi;

	if (!t)
		return;
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->addr[mid] == ip) {
			int cpu = sched_getcpu();

			if (cpu < 0)
				cpu = 0;
			/* Relaxed: a count, read only by trace_stat (after a grace period or racily). */
			atomic_fetch_add_explicit(&t->hits[mid * (size_t)t->nr_cpus +
							   (size_t)(cpu % t->nr_cpus)], 1,
						  memory_order_relaxed);
			break;
		}
		if (t->addr[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* For TSan: the grace period orders this read before trev__fp_publish()'s free. */
	trev_tsan_release(t);
}

static void fp_free(struct fp_table *t)
{
	if (!t)
		return;
	free(t->addr);
	free((void *)t->hits);
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
		return 0;
	}
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
	if (!t->hits) {
		fp_free(t);
		return -ENOMEM;
	}
	/* Release: the table's contents before its address (pairs with trev__fp_hit()). */
	atomic_exchange_explicit(&fp_table, t, memory_order_acq_rel);
	/* After the table: a call that sees the bit finds a table (or counts nothing). */
	atomic_fetch_or(&trev__ft_extra, TREV_FT_EXTRA_PROFILE);
	if (!old)
		return 0;
	urcu_bp_synchronize_rcu();
	trev_tsan_acquire(old);
	/* No reader counts into @old any more: carry its counts over, unless starting anew. */
	for (size_t i = 0, j = 0; !reset && i < old->n && j < t->n;) {
		if (old->addr[i] < t->addr[j]) {
			i++;
		} else if (old->addr[i] > t->addr[j]) {
			j++;
		} else {
			for (int cpu = 0; cpu < old->nr_cpus; cpu++)
				atomic_fetch_add_explicit(
					&t->hits[j * (size_t)t->nr_cpus + (size_t)(cpu % t->nr_cpus)],
					atomic_load_explicit(&old->hits[i * (size_t)old->nr_cpus +
									(size_t)cpu],
							     memory_order_relaxed),
					memory_order_relaxed);
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
};

static int fp_row_cmp(const void *a, const void *b)
{
	const struct fp_row *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return strcmp(x->name, y->name);
}

int trev__fp_show(int cpu, struct trev_buf *out)
{
	/* ft_lock: the table is ours to read; the counters are loaded relaxed, racing adds. */
	struct fp_table *t = atomic_load_explicit(&fp_table, memory_order_relaxed);
	struct fp_row *rows;
	size_t n = 0;
	int ret;

	/* The kernel's function_stat_headers() without CONFIG_FUNCTION_GRAPH_TRACER. */
	ret = trev__buf_puts(out, "  Function                               Hit\n"
				  "  --------                               ---\n");
	if (ret || !t || cpu >= t->nr_cpus)
		return ret;
	rows = malloc((t->n ? t->n : 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		unsigned long h = atomic_load_explicit(&t->hits[i * (size_t)t->nr_cpus + (size_t)cpu],
						       memory_order_relaxed);
		const char *name = h ? trev__ft_site_name(t->addr[i]) : NULL;

		/* As the kernel's: a function is listed on a CPU once it was hit there. */
		if (name)
			rows[n++] = (struct fp_row){ name, h };
	}
	qsort(rows, n, sizeof(*rows), fp_row_cmp);
	/* function_stat_show(): "  %-30.30s  %10lu". */
	for (size_t i = 0; i < n && !ret; i++)
		ret = trev__buf_printf(out, "  %-30.30s  %10lu\n", rows[i].name, rows[i].hits);
	free(rows);
	return ret;
}
