/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_rb: the ring buffer's write and read paths, side by side with a
 * floor measured in the same run (docs/benchmarks.md).
 *
 * The floor is a hand-written per-thread ring write of the same 24-byte
 * record with an rdtsc time stamp: a 1 MiB thread-local byte ring, a
 * kernel-style header word, a release store of the committed offset.
 * Every writer case is given as ns/event and as a ratio to that floor, in
 * wall time (CLOCK_MONOTONIC) and in the writers' CPU time, which the load
 * of other processes on a shared machine does not inflate; the reader cases
 * as events/s (consume) and GB/s against memcpy of the same number of 4 KiB
 * pages (read_page). Each case runs BENCH_RUNS times after a warm-up; the
 * median is printed, and the spread (max - min) / median.
 *
 * Environment:
 *   BENCH_RB_EVENTS  events per timed run and thread (default 4000000)
 *   BENCH_RB_ONLY    comma-separated case keys to run (see the keys
 *                    printed in the last column), e.g. "floor,rc-1t-ovw"
 *   BENCH_RB_VERBOSE set: every run's value to stderr
 *
 * Prints a table and exits 0: no thresholds, no pass/fail.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <trev/ring_buffer.h>

#include "bench_common.h"

#define BENCH_RUNS		5
#define COMMIT_MASK		((1ull << 27) - 1)
#define FILL_PER_CYCLE		40000u		/* fits a default-size buffer */
#define DEFAULT_EVENTS		4000000ull


static uint64_t nr_events;	/* per timed run and thread */
static uint64_t nr_warm;	/* warm-up events per case and thread */
static const char *only;	/* BENCH_RB_ONLY */
static bool verbose;		/* BENCH_RB_VERBOSE: every run to stderr */
static double floor_ns;		/* 0 until measured */
static double floor_cpu_ns;	/* the same in CPU time */
static double floor2_ns;	/* the floor with 2 threads */

static void show_runs(const char *key, const double *v)
{
	if (!verbose)
		return;
	fprintf(stderr, "%-14s", key);
	for (int r = 0; r < BENCH_RUNS; r++)
		fprintf(stderr, " %9.3f", v[r]);
	fprintf(stderr, "\n");
}

/* (max - min) / median, in percent; @v sorted. */
static double spread(const double *v, int n)
{
	double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;

	return med > 0 ? (v[n - 1] - v[0]) / med * 100 : 0;
}

static bool want(const char *key)
{
	size_t len = strlen(key);
	const char *p = only;

	if (!only || !*only)
		return true;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && !memcmp(p, key, len))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* trev writers                                                         */

/* reserve, fill, commit; returns the number of refused events */
static noinline uint64_t rc_loop(struct trev_rb *rb, uint64_t n)
{
	uint64_t refused = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t v[3] = { i, i * 3, ~i };
		void *p = trev_rb_reserve(rb, REC_LEN);

		if (!p) {
			refused++;
			continue;
		}
		memcpy(p, v, REC_LEN);
		trev_rb_commit(rb, p);
	}
	return refused;
}

static noinline uint64_t write_loop(struct trev_rb *rb, uint64_t n)
{
	uint64_t refused = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t v[3] = { i, i * 3, ~i };

		if (trev_rb_write(rb, v, REC_LEN) != 0)
			refused++;
	}
	return refused;
}

enum wkind {
	W_FLOOR,
	W_RC,
	W_WRITE,
};

/* A timed writer case: @threads writers, BENCH_RUNS timed runs each. */
struct wcase {
	enum wkind kind;
	struct trev_rb *rb;
	int threads;
	uint64_t warm;			/* warm-up events per thread */
	bool reset_each_run;		/* trev_rb_reset() before every run */
	pthread_barrier_t bar;
	_Atomic uint64_t refused;	/* in the timed runs, all threads */
	_Atomic uint64_t cpu[BENCH_RUNS]; /* CPU time of the writers per run */
};

static uint64_t wcase_run(struct wcase *wc, uint64_t n)
{
	switch (wc->kind) {
	case W_FLOOR:
		return floor_loop(n);
	case W_RC:
		return rc_loop(wc->rb, n);
	case W_WRITE:
		return write_loop(wc->rb, n);
	}
	return 0;
}

static void *writer_thread(void *arg)
{
	struct wcase *wc = arg;

	if (wc->kind == W_FLOOR)
		floor_setup();
	wcase_run(wc, wc->warm);
	pthread_barrier_wait(&wc->bar);		/* warm-up done */
	for (int r = 0; r < BENCH_RUNS; r++) {
		uint64_t refused, c0, c1;

		pthread_barrier_wait(&wc->bar);	/* start */
		c0 = cpu_ns();
		refused = wcase_run(wc, nr_events);
		c1 = cpu_ns();
		pthread_barrier_wait(&wc->bar);	/* stop */
		atomic_fetch_add(&wc->refused, refused);
		atomic_fetch_add(&wc->cpu[r], c1 - c0);
	}
	if (wc->kind == W_FLOOR)
		floor_teardown();
	return NULL;
}

/*
 * Run @wc; fills @ns[BENCH_RUNS] with per-thread ns/event (wall time x
 * threads / events of all threads) and @cpu with the same in the writers'
 * CPU time: time a writer was not on a CPU does not count there.
 */
static void wcase_time(struct wcase *wc, double *ns, double *cpu)
{
	pthread_t tids[8];
	int err;

	err = pthread_barrier_init(&wc->bar, NULL, (unsigned int)wc->threads + 1);
	if (err)
		die("pthread_barrier_init", err);
	for (int t = 0; t < wc->threads; t++) {
		err = pthread_create(&tids[t], NULL, writer_thread, wc);
		if (err)
			die("pthread_create", err);
	}
	pthread_barrier_wait(&wc->bar);
	for (int r = 0; r < BENCH_RUNS; r++) {
		uint64_t t0, t1;

		if (wc->reset_each_run)
			trev_rb_reset(wc->rb);
		pthread_barrier_wait(&wc->bar);
		t0 = now_ns();
		pthread_barrier_wait(&wc->bar);
		t1 = now_ns();
		ns[r] = (double)(t1 - t0) * wc->threads / ((double)nr_events * wc->threads);
	}
	for (int t = 0; t < wc->threads; t++)
		pthread_join(tids[t], NULL);
	for (int r = 0; r < BENCH_RUNS; r++)
		cpu[r] = (double)atomic_load(&wc->cpu[r]) / ((double)nr_events * wc->threads);
	pthread_barrier_destroy(&wc->bar);
}

/* A consuming reader that keeps a discard-mode buffer from filling up. */
struct drainer {
	struct trev_rb *rb;
	pthread_t tid;
	_Atomic bool stop;
	uint64_t pages, errors;
};

static void *drain_thread(void *arg)
{
	struct drainer *dr = arg;
	_Alignas(64) uint8_t page[TREV_RB_PAGE_SIZE];

	while (!atomic_load_explicit(&dr->stop, memory_order_relaxed)) {
		int ret = trev_rb_read_page(dr->rb, page, NULL);
		uint64_t commit;

		if (ret == 1) {
			dr->pages++;
			memcpy(&commit, page + 8, 8);
			/* A (nearly) full page: there may be more right away. */
			if ((commit & COMMIT_MASK) >= TREV_RB_PAGE_SIZE / 2)
				continue;
		} else if (ret < 0) {
			dr->errors++;
		}
		/* Caught up with the writers: let them fill a few pages. */
		usleep(100);
	}
	return NULL;
}

static struct trev_rb *make_rb(int overwrite, unsigned int size_kb, unsigned int cap_kb)
{
	struct trev_rb_options o = {
		.size_kb = size_kb,
		.cap_kb = cap_kb,
		.overwrite = overwrite,
		.clock = -1,
	};
	struct trev_rb *rb;
	int err = trev_rb_create(&rb, &o);

	if (err < 0)
		die("trev_rb_create", err);
	return rb;
}

static void print_header(void)
{
	printf("%-50s %8s %7s %6s %7s %5s %6s  %s\n", "case", "ns/event", "x floor", "cpu ns",
	       "x floor", "cpu%", "spread", "key / notes");
}

static void print_row(const char *name, const char *key, double *ns, double *cpu,
		      const char *note)
{
	double med, med_cpu, pct[BENCH_RUNS];
	char ratio[16], cpu_ratio[16];

	for (int r = 0; r < BENCH_RUNS; r++)
		pct[r] = 100.0 * cpu[r] / ns[r];
	show_runs(key, ns);
	med = median(ns, BENCH_RUNS);
	med_cpu = median(cpu, BENCH_RUNS);
	snprintf(ratio, sizeof(ratio), "-");
	snprintf(cpu_ratio, sizeof(cpu_ratio), "-");
	if (floor_ns > 0) {
		snprintf(ratio, sizeof(ratio), "%.2f", med / floor_ns);
		snprintf(cpu_ratio, sizeof(cpu_ratio), "%.2f", med_cpu / floor_cpu_ns);
	}
	printf("%-50s %8.2f %7s %6.2f %7s %5.0f %5.1f%%  %s%s%s\n", name, med, ratio, med_cpu,
	       cpu_ratio, median(pct, BENCH_RUNS), spread(ns, BENCH_RUNS), key,
	       note && *note ? "; " : "", note ? note : "");
	fflush(stdout);
}

/*
 * One writer case. @mode: 1 overwrite, 0 discard with a draining reader,
 * -1 discard with a buffer that holds a whole run (no reader).
 */
static void writer_case(const char *name, const char *key, enum wkind kind, int threads,
			int mode, bool record_off)
{
	struct wcase wc = { .kind = kind, .threads = threads, .warm = nr_warm };
	struct drainer dr = { 0 };
	double ns[BENCH_RUNS], cpu[BENCH_RUNS];
	char note[160] = "";
	uint64_t attempts = nr_events * BENCH_RUNS * (uint64_t)threads;

	if (!want(key))
		return;
	if (kind != W_FLOOR) {
		if (mode >= 0) {
			wc.rb = make_rb(mode, 0, 0);
		} else {
			/* Room for a run, and a warm-up of a run to fault it in. */
			uint64_t pages = nr_events / ((TREV_RB_PAGE_SIZE - 16) / REC_SIZE) + 8;
			unsigned int kb = (unsigned int)(pages * (TREV_RB_PAGE_SIZE / 1024));

			wc.rb = make_rb(0, kb, kb * (unsigned int)threads + 4096);
			wc.warm = nr_events;
			wc.reset_each_run = true;
		}
		if (record_off)
			trev_rb_record_off(wc.rb);
	}
	if (mode == 0 && kind != W_FLOOR) {
		int err;

		dr.rb = wc.rb;
		err = pthread_create(&dr.tid, NULL, drain_thread, &dr);
		if (err)
			die("pthread_create", err);
	}
	wcase_time(&wc, ns, cpu);
	if (dr.rb) {
		atomic_store(&dr.stop, true);
		pthread_join(dr.tid, NULL);
	}
	if (kind != W_FLOOR && !record_off) {
		uint64_t refused = atomic_load(&wc.refused);

		snprintf(note, sizeof(note), "refused %llu of %llu (%.3f%%)",
			 (unsigned long long)refused, (unsigned long long)attempts,
			 100.0 * (double)refused / (double)attempts);
		if (dr.rb) {
			size_t len = strlen(note);

			snprintf(note + len, sizeof(note) - len, ", reader: %llu pages%s",
				 (unsigned long long)dr.pages, dr.errors ? ", ERRORS" : "");
		}
	}
	if (wc.rb)
		trev_rb_destroy(wc.rb);
	if (threads == 2 && kind != W_FLOOR && floor2_ns > 0) {
		size_t len = strlen(note);

		snprintf(note + len, sizeof(note) - len, "; %.2f x floor-2t",
			 median(ns, BENCH_RUNS) / floor2_ns);
	}
	if (kind == W_FLOOR && threads == 1) {
		floor_ns = median(ns, BENCH_RUNS);
		floor_cpu_ns = median(cpu, BENCH_RUNS);
	}
	if (kind == W_FLOOR && threads == 2)
		floor2_ns = median(ns, BENCH_RUNS);
	print_row(name, key, ns, cpu, note);
}

/* ------------------------------------------------------------------ */
/* Readers: consume and read_page on pre-filled buffers                 */

/*
 * Writer threads that fill their buffers on request and then wait. The
 * reader (the main thread) runs on the first CPU and the fillers on the
 * last, so that what is read always comes from another core's cache, not
 * sometimes from the reader's own (placement made the GB/s bimodal).
 */
struct fillers {
	struct trev_rb *rb;
	int n;
	pthread_t tids[2];
	pthread_barrier_t bar;
	bool stop;
	uint8_t *src;			/* when set, write it instead of events */
	size_t src_pages;		/* pages of it to write, all fillers */
	_Atomic int next_idx;
	_Atomic uint64_t refused;
	cpu_set_t main_cpus;		/* the main thread's affinity before */
	bool pinned;
};

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *fill_thread(void *arg)
{
	struct fillers *f = arg;
	int idx = atomic_fetch_add(&f->next_idx, 1);

	if (f->pinned)
		pin_self((int)sysconf(_SC_NPROCESSORS_ONLN) - 1);
	for (;;) {
		pthread_barrier_wait(&f->bar);	/* fill */
		if (f->stop)
			break;
		if (f->src) {
			size_t per = (f->src_pages + (size_t)f->n - 1) / (size_t)f->n;
			size_t from = per * (size_t)idx, to = from + per;

			if (to > f->src_pages)
				to = f->src_pages;
			if (from < to)
				memset(f->src + from * TREV_RB_PAGE_SIZE, (int)(to & 0xff),
				       (to - from) * TREV_RB_PAGE_SIZE);
		} else {
			atomic_fetch_add(&f->refused, rc_loop(f->rb, FILL_PER_CYCLE));
		}
		pthread_barrier_wait(&f->bar);	/* filled */
	}
	return NULL;
}

static void fillers_start(struct fillers *f, int n)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->n = n;
	f->rb = make_rb(0, 0, 0);	/* discard: a fill never overwrites */
	f->pinned = sysconf(_SC_NPROCESSORS_ONLN) > 1 &&
		    !pthread_getaffinity_np(pthread_self(), sizeof(f->main_cpus), &f->main_cpus);
	if (f->pinned)
		pin_self(0);
	err = pthread_barrier_init(&f->bar, NULL, (unsigned int)n + 1);
	if (err)
		die("pthread_barrier_init", err);
	for (int t = 0; t < n; t++) {
		err = pthread_create(&f->tids[t], NULL, fill_thread, f);
		if (err)
			die("pthread_create", err);
	}
}

/* Every buffer gets FILL_PER_CYCLE new events; the fillers are idle after. */
static void fillers_fill(struct fillers *f)
{
	pthread_barrier_wait(&f->bar);
	pthread_barrier_wait(&f->bar);
}

/* The fillers write @pages pages of @src, as they write events. */
static void fillers_write(struct fillers *f, uint8_t *src, size_t pages)
{
	f->src = src;
	f->src_pages = pages;
	fillers_fill(f);
	f->src = NULL;
}

static void fillers_stop(struct fillers *f)
{
	f->stop = true;
	pthread_barrier_wait(&f->bar);
	for (int t = 0; t < f->n; t++)
		pthread_join(f->tids[t], NULL);
	pthread_barrier_destroy(&f->bar);
	trev_rb_destroy(f->rb);
	if (f->pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(f->main_cpus), &f->main_cpus);
}

/*
 * How consume_all() reads: trev_rb_consume(), or the per-CPU reader of the
 * fillers' CPU, or first the reader of another CPU (which stages every
 * event, returning none) and then the fillers' CPU (from its staging queue).
 */
enum consume_mode { C_ALL, C_CPU, C_CPU_STAGED };
static enum consume_mode consume_mode;

static int fill_cpu(void)
{
	static int cpu = -2;

	if (cpu == -2)	/* sysconf() reads /sys each time */
		cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	return cpu;
}

static int consume_next(struct trev_rb *rb, struct trev_rb_event *ev)
{
	if (consume_mode == C_ALL)
		return trev_rb_consume(rb, ev, 0);
	return trev_rb_consume_cpu(rb, fill_cpu(), ev, 0);
}

/* Consume everything there is; returns the events, adds the time to *@ns. */
static noinline uint64_t consume_all(struct trev_rb *rb, uint64_t *ns, uint64_t *cpu,
				    uint64_t *bad)
{
	struct trev_rb_event ev;
	uint64_t t0, t1, c0, got = 0, sum = 0, w;
	int ret;

	t0 = now_ns();
	c0 = cpu_ns();
	if (consume_mode == C_CPU_STAGED && trev_rb_consume_cpu(rb, 0, &ev, 0) != 0)
		die("trev_rb_consume_cpu (other CPU)", EPROTO);
	while ((ret = consume_next(rb, &ev)) == 1) {
		memcpy(&w, ev.data, 8);
		sum += w + ev.ts;
		if (ev.len != REC_LEN)
			(*bad)++;
		got++;
	}
	*cpu += cpu_ns() - c0;
	t1 = now_ns();
	if (ret < 0)
		die("trev_rb_consume", ret);
	*ns += t1 - t0;
	sink += sum;
	return got;
}

static void consume_case(const char *name, const char *key, int buffers, enum consume_mode mode)
{
	struct fillers f;
	double ns[BENCH_RUNS], evs[BENCH_RUNS], cpu[BENCH_RUNS], med_evs, med_ns, med_cpu;
	uint64_t bad = 0, dummy = 0, dummy_cpu = 0;

	if (!want(key))
		return;
	if (mode != C_ALL && fill_cpu() < 1) {
		printf("%-50s skipped: needs 2 CPUs\n", name);
		return;
	}
	consume_mode = mode;
	fillers_start(&f, buffers);
	fillers_fill(&f);		/* warm-up: buffers made, pages touched */
	consume_all(f.rb, &dummy, &dummy_cpu, &bad);
	for (int r = 0; r < BENCH_RUNS; r++) {
		uint64_t got = 0, t = 0, c = 0;

		while (got < nr_events) {
			fillers_fill(&f);
			got += consume_all(f.rb, &t, &c, &bad);
		}
		ns[r] = (double)t / (double)got;
		evs[r] = 1e9 / ns[r];
		cpu[r] = 100.0 * (double)c / (double)t;
	}
	fillers_stop(&f);
	show_runs(key, ns);
	med_evs = median(evs, BENCH_RUNS);
	med_ns = median(ns, BENCH_RUNS);
	med_cpu = median(cpu, BENCH_RUNS);
	printf("%-50s %9.2f M/s %8.2f %5.0f %5.1f%%  %s; refused %llu%s\n", name, med_evs / 1e6,
	       med_ns, med_cpu, spread(ns, BENCH_RUNS), key,
	       (unsigned long long)atomic_load(&f.refused), bad ? ", BAD EVENTS" : "");
	fflush(stdout);
}

/* Read every page there is; returns the pages, adds the time to *@ns. */
static noinline uint64_t read_pages_all(struct trev_rb *rb, uint8_t *page, uint64_t *ns,
					uint64_t *cpu, uint64_t *bad)
{
	uint64_t t0, t1, c0, pages = 0, sum = 0, commit;
	int ret;

	t0 = now_ns();
	c0 = cpu_ns();
	while ((ret = trev_rb_read_page(rb, page, NULL)) == 1) {
		memcpy(&commit, page + 8, 8);
		if ((commit & COMMIT_MASK) == 0)
			(*bad)++;
		sum += commit;
		pages++;
	}
	*cpu += cpu_ns() - c0;
	t1 = now_ns();
	if (ret < 0)
		die("trev_rb_read_page", ret);
	*ns += t1 - t0;
	sink += sum;
	return pages;
}

/* memcpy @pages 4 KiB pages of @src into @dst, one at a time. */
static noinline void copy_pages(uint8_t *dst, const uint8_t *src, uint64_t pages, uint64_t *ns)
{
	uint64_t t0, t1;

	t0 = now_ns();
	for (uint64_t i = 0; i < pages; i++) {
		memcpy(dst, src + i * TREV_RB_PAGE_SIZE, TREV_RB_PAGE_SIZE);
		__asm__ __volatile__("" : : "r"(dst) : "memory");
	}
	t1 = now_ns();
	*ns += t1 - t0;
	sink += dst[8];
}

static void read_page_case(const char *name, const char *key, int buffers)
{
	/* Pages a fill cycle leaves, bounded generously. */
	size_t src_pages = (size_t)buffers * (TREV_RB_DEFAULT_SIZE_KB / 4 + 16);
	double gbs[BENCH_RUNS], mgbs[BENCH_RUNS], ratio[BENCH_RUNS], cpu[BENCH_RUNS];
	double med_gbs, med_mgbs, med_ratio, med_cpu;
	uint64_t bad = 0, dummy = 0, dummy_cpu = 0;
	uint8_t *page, *src;
	struct fillers f;

	if (!want(key))
		return;
	page = aligned_alloc(64, TREV_RB_PAGE_SIZE);
	src = aligned_alloc(64, src_pages * TREV_RB_PAGE_SIZE);
	if (!page || !src)
		die("aligned_alloc", ENOMEM);
	memset(src, 0, src_pages * TREV_RB_PAGE_SIZE);
	fillers_start(&f, buffers);
	fillers_fill(&f);
	read_pages_all(f.rb, page, &dummy, &dummy_cpu, &bad);
	for (int r = 0; r < BENCH_RUNS; r++) {
		uint64_t got = 0, pages = 0, t = 0, mt = 0, c = 0;

		while (got < nr_events) {
			uint64_t n;

			fillers_fill(&f);
			n = read_pages_all(f.rb, page, &t, &c, &bad);
			if (n > src_pages)
				n = src_pages;
			/* As many pages by memcpy, just written by the same threads. */
			fillers_write(&f, src, n);
			copy_pages(page, src, n, &mt);
			pages += n;
			got += (uint64_t)FILL_PER_CYCLE * (uint64_t)buffers;
		}
		gbs[r] = (double)(pages * TREV_RB_PAGE_SIZE) / (double)t;
		mgbs[r] = (double)(pages * TREV_RB_PAGE_SIZE) / (double)mt;
		ratio[r] = gbs[r] / mgbs[r];
		cpu[r] = 100.0 * (double)c / (double)t;
	}
	fillers_stop(&f);
	show_runs(key, gbs);
	med_gbs = median(gbs, BENCH_RUNS);
	med_mgbs = median(mgbs, BENCH_RUNS);
	med_ratio = median(ratio, BENCH_RUNS);
	med_cpu = median(cpu, BENCH_RUNS);
	printf("%-50s %7.2f GB/s  memcpy %6.2f GB/s  ratio %.3f  cpu%% %.0f  spread %.1f%%  %s%s\n",
	       name, med_gbs, med_mgbs, med_ratio, med_cpu, spread(gbs, BENCH_RUNS), key,
	       bad ? "; BAD PAGES" : "");
	fflush(stdout);
	free(src);
	free(page);
}

/* ------------------------------------------------------------------ */

static void print_machine(void)
{
	char line[256], model[256] = "unknown", date[64];
	FILE *fp = fopen("/proc/cpuinfo", "r");
	struct utsname u;
	time_t now = time(NULL);

	if (fp) {
		while (fgets(line, sizeof(line), fp)) {
			char *colon = strchr(line, ':');

			if (!strncmp(line, "model name", 10) && colon) {
				snprintf(model, sizeof(model), "%s", colon + 2);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		}
		fclose(fp);
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
	fp = fopen("/proc/loadavg", "r");
	if (!fp || !fgets(line, sizeof(line), fp))
		snprintf(line, sizeof(line), "?\n");
	if (fp)
		fclose(fp);
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	printf("bench_rb  %s\n", date);
	printf("cpu: %s (%ld online), kernel %s %s\n", model, sysconf(_SC_NPROCESSORS_ONLN),
	       u.release, u.machine);
	printf("load average before the run: %s", line);
	printf("events per timed run and thread: %llu; warm-up %llu; %d runs per case, median\n\n",
	       (unsigned long long)nr_events, (unsigned long long)nr_warm, BENCH_RUNS);
}

int main(void)
{
	const char *env = getenv("BENCH_RB_EVENTS");

	nr_events = env && *env ? strtoull(env, NULL, 0) : DEFAULT_EVENTS;
	if (nr_events < 1000)
		nr_events = 1000;
	nr_warm = nr_events / 4 > 200000 ? nr_events / 4 : 200000;
	only = getenv("BENCH_RB_ONLY");
	verbose = getenv("BENCH_RB_VERBOSE") != NULL;
	print_machine();

	print_header();
	writer_case("floor (hand-written ring + rdtsc)", "floor", W_FLOOR, 1, 1, false);
	writer_case("floor, 2 threads", "floor-2t", W_FLOOR, 2, 1, false);
	writer_case("reserve+commit 24B, 1 thread, overwrite", "rc-1t-ovw", W_RC, 1, 1, false);
	writer_case("reserve+commit 24B, 1 thread, discard + reader", "rc-1t-dsc", W_RC, 1, 0,
		    false);
	writer_case("reserve+commit 24B, 1 thread, discard, big buffer", "rc-1t-dsc-big", W_RC, 1,
		    -1, false);
	writer_case("reserve+commit 24B, 2 threads, overwrite", "rc-2t-ovw", W_RC, 2, 1, false);
	writer_case("reserve+commit 24B, 2 threads, discard + reader", "rc-2t-dsc", W_RC, 2, 0,
		    false);
	writer_case("reserve+commit 24B, 2 threads, discard, big buffer", "rc-2t-dsc-big", W_RC, 2,
		    -1, false);
	writer_case("trev_rb_write 24B, 1 thread, overwrite", "write-1t", W_WRITE, 1, 1, false);
	writer_case("reserve, recording off (refusal)", "rec-off", W_RC, 1, 1, true);

	printf("\n%-50s %13s %8s %5s %6s  %s\n", "reader (pre-filled, reads timed)", "events/s",
	       "ns/event", "cpu%", "spread", "key / notes");
	consume_case("trev_rb_consume, 1 buffer", "consume-1", 1, C_ALL);
	consume_case("trev_rb_consume, 2 buffers", "consume-2", 2, C_ALL);
	consume_case("trev_rb_consume_cpu, 2 buffers, nothing staged", "consume-cpu-2", 2, C_CPU);
	consume_case("trev_rb_consume_cpu, 1 buffer, all staged first", "consume-cpu-staged", 1,
		     C_CPU_STAGED);
	printf("\n");
	read_page_case("trev_rb_read_page, 1 buffer", "read-page-1", 1);
	read_page_case("trev_rb_read_page, 2 buffers", "read-page-2", 2);

	printf("\n+ reader: a thread drains the buffers with trev_rb_read_page (sleeps 100 us\n"
	       "  when it catches up); big buffer: no reader, the buffer holds a whole run\n"
	       "  (faulted in first, reset before each run). Per-thread ns/event = wall time x\n"
	       "  threads / events. x floor: ratio to the floor of this run. cpu ns: the same\n"
	       "  per event in the timed threads' CPU time (time off a CPU not counted), and\n"
	       "  its ratio to the floor's. cpu%%: CPU time / (wall time x threads), median;\n"
	       "  well under 100 means the threads were not all on a CPU (other load on the\n"
	       "  machine, or more threads than CPUs) and the wall-time figures are inflated.\n"
	       "  Readers: the reader is pinned to the first CPU, the writers that fill the\n"
	       "  buffers (and, for the memcpy comparison, its source pages) to the last.\n");
	return 0;
}
