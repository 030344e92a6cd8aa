/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Does the recorder keep up? `trev record` against LTTng-UST's consumer
 * daemon, both recording one thread's 3-int events (bench:be_ints3;
 * trev_bench:ints3) fired by the same loop, in the same run, interleaved:
 *
 *  disk	the output directory's sequential write rate: DISK_MB written
 *		with write() and fsync()ed, the ceiling of any recorder there
 *  flood	as fast as one thread can for FLOOD_S s, file in the output
 *		directory: recorded events/s, lost, recorded + lost == fired
 *  paced	RATE events/s for PACED_S s (batches of PACE_BATCH, spinning to
 *		each batch's due time), file on a tmpfs: lost, target 0
 *
 * LTTng: a streaming session in discard mode, per-UID buffers, its own
 * lttng-sessiond (bench/lttng/, once per process, so each LTTng case is a
 * child process), the trace written to the same filesystem as trev's file;
 * babeltrace2 counts what it recorded, `lttng list` what it discarded.
 *
 *	bench_record				the table
 *	bench_record --emit RATE SECONDS	trev's traced side (RATE 0: flood)
 *	bench_record --lttng RATE SECONDS DIR	LTTng's, its trace under DIR
 *
 * Environment: BENCH_RECORD_DIR (output directory, default $TMPDIR or
 * /tmp), BENCH_RECORD_TMPFS (default /dev/shm; must be a tmpfs),
 * BENCH_RECORD_RATES (paced rates, default "2000000,1000000,4000000";
 * LTTng runs beside the first), BENCH_RECORD_PACED_S (default 10),
 * BENCH_RECORD_FLOOD_S (default 2), BENCH_RECORD_LTTNG=0 (trev only).
 *
 * Exit status 1 when a trev run fails or its recorded + lost != fired; no
 * timing is a failure.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include <trev/trev.h>

#include "bench_common.h"
#include "lttng/bench_lttng.h"

#define CREATE_TRACE_POINTS
#include "bench_events_trace.h"

#define FLOOD_S		2
#define PACED_S		10
#define PACE_BATCH	64		/* events fired per clock check when paced */
#define FLOOD_BATCH	1024
#define DISK_MB		256
#define PREV_RECORDER	0.9e6		/* events/s, the recorder before the mapping */
#define MAX_RATES	8

/* ---- the traced side ------------------------------------------------ */

struct fired {
	uint64_t n;
	double secs;
	double late_ms;		/* paced: the most a batch started after its due time */
};

static void fire_trev(int a, int b, int c)
{
	trace_be_ints3(a, b, c);
}

/*
 * One thread fires @fire for @secs s: as fast as it can (@rate 0), or
 * @rate events/s, batch k due at k * PACE_BATCH / @rate s: spin until then,
 * fire the batch. A batch that starts late (the thread was preempted) is
 * not skipped: the ones after it catch up, as a clock-paced source would.
 */
static struct fired fire_loop(void (*fire)(int, int, int), uint64_t rate, unsigned int secs)
{
	uint64_t t0 = now_ns(), end = t0 + secs * 1000000000ull, n = 0, late = 0;
	struct fired f;

	if (!rate) {
		while (now_ns() < end)
			for (int i = 0; i < FLOOD_BATCH; i++, n++)
				fire((int)n, (int)n, (int)n);
	} else {
		uint64_t total = rate * secs;

		for (uint64_t k = 0; n < total; k++) {
			uint64_t due = t0 + (uint64_t)((double)k * PACE_BATCH * 1e9 / (double)rate);
			uint64_t now;

			while ((now = now_ns()) < due)
				;
			if (now - due > late)
				late = now - due;
			for (int i = 0; i < PACE_BATCH && n < total; i++, n++)
				fire((int)n, (int)n, (int)n);
		}
	}
	f.n = n;
	f.secs = (double)(now_ns() - t0) / 1e9;
	f.late_ms = (double)late / 1e6;
	return f;
}

static int emit_trev(uint64_t rate, unsigned int secs)
{
	struct fired f = fire_loop(fire_trev, rate, secs);

	printf("fired %llu %.3f %.3f\n", (unsigned long long)f.n, f.secs, f.late_ms);
	return 0;
}

/* The LTTng side, in this process: start, fire, stop, count. */
static int emit_lttng(uint64_t rate, unsigned int secs, const char *dir)
{
	unsigned long long rec, disc;
	char err[512];
	struct fired f;

	setenv("TMPDIR", dir, 1);
	setenv("BENCH_LTTNG_MODE", "discard", 1);
	if (lttng_bench_start(err, sizeof(err)) < 0) {
		printf("n/a %s\n", err);
		return 0;
	}
	printf("config %s\n", lttng_bench_config());
	f = fire_loop(lttng_bench_ints3, rate, secs);
	if (lttng_bench_stop(&rec, &disc) < 0 || rec == LTTNG_BENCH_UNKNOWN) {
		printf("n/a lttng stop or babeltrace2 failed\n");
		return 0;
	}
	printf("lttng %llu %.3f %.3f %.3f %llu %lld %llu\n", (unsigned long long)f.n, f.secs,
	       f.late_ms, lttng_bench_stop_seconds(), rec, lttng_bench_trace_bytes(),
	       disc == LTTNG_BENCH_UNKNOWN ? ~0ull : disc);
	return 0;
}

/* ---- the runs ------------------------------------------------------- */

struct run {
	const char *tracer;
	bool ok;			/* ran and was counted */
	char why[256];			/* !ok: why not */
	unsigned long long fired, recorded, lost;
	double fire_secs, late_ms;
	double secs;			/* recording: trev record's; LTTng's emit + stop */
	double rec_cpu;			/* trev record's CPU time (its summary), s; 0: unknown */
	double bytes;			/* to the file(s) */
};

static char self[4096];

/* trev record -- self --emit @rate @secs, its file in @dir. */
static struct run run_trev(const char *dir, uint64_t rate, unsigned int secs)
{
	char out[4096], line[512], cmd[16384];
	struct run r = { .tracer = "trev" };
	double evs = 0, mbs = 0;
	FILE *p;

	snprintf(out, sizeof(out), "%s/bench_record.%d.dat", dir, (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -e bench:be_ints3 -o '%s' -- '%s' --emit %llu %u 2>&1",
		 TREV_CLI, out, self, (unsigned long long)rate, secs);
	p = popen(cmd, "r");
	if (!p)
		die("popen", errno);
	while (fgets(line, sizeof(line), p)) {
		sscanf(line, "fired %llu %lf %lf", &r.fired, &r.fire_secs, &r.late_ms);
		if (strstr(line, " events, "))
			sscanf(line, "trev: %llu events, %llu lost", &r.recorded, &r.lost);
		if (strstr(line, " events/s, "))
			sscanf(line, "trev: %lf s, %lf events/s, %lf MB/s, %lf s of CPU", &r.secs,
			       &evs, &mbs, &r.rec_cpu);
	}
	r.ok = pclose(p) == 0 && r.recorded && r.fired && r.secs > 0;
	if (!r.ok)
		snprintf(r.why, sizeof(r.why), "trev record failed (exit status or no summary)");
	r.bytes = mbs * 1e6 * r.secs;
	unlink(out);
	return r;
}

/* self --lttng @rate @secs @dir; @config: LTTng's, once known. */
static struct run run_lttng(const char *dir, uint64_t rate, unsigned int secs,
			    char *config, size_t config_len)
{
	struct run r = { .tracer = "LTTng-UST" };
	char line[1024], cmd[8192];
	double stop_secs = 0;
	long long bytes = -1;
	FILE *p;

	snprintf(r.why, sizeof(r.why), "no result");
	snprintf(cmd, sizeof(cmd), "'%s' --lttng %llu %u '%s' 2>&1", self,
		 (unsigned long long)rate, secs, dir);
	p = popen(cmd, "r");
	if (!p)
		die("popen", errno);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "n/a ", 4))
			snprintf(r.why, sizeof(r.why), "%.200s", line + 4);
		else if (!strncmp(line, "config ", 7))
			snprintf(config, config_len, "%.200s", line + 7);
		else if (sscanf(line, "lttng %llu %lf %lf %lf %llu %lld %llu", &r.fired,
				&r.fire_secs, &r.late_ms, &stop_secs, &r.recorded, &bytes,
				&r.lost) == 7)
			r.ok = true;
	}
	if (pclose(p) != 0 && r.ok) {
		r.ok = false;
		snprintf(r.why, sizeof(r.why), "exited with an error");
	}
	r.secs = r.fire_secs + stop_secs;
	r.bytes = (double)bytes;
	return r;
}

/* ---- the disk ------------------------------------------------------- */

static const char *fs_name(const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) < 0)
		return "?";
	switch ((unsigned long)sf.f_type) {
	case TMPFS_MAGIC:	return "tmpfs";
	case EXT4_SUPER_MAGIC:	return "ext2/3/4";
	case XFS_SUPER_MAGIC:	return "xfs";
	case BTRFS_SUPER_MAGIC:	return "btrfs";
	case OVERLAYFS_SUPER_MAGIC: return "overlay";
	default:		return "other";
	}
}

/* DISK_MB written to @dir in 1 MiB write()s, then fsync(): MB/s. */
static double disk_rate(const char *dir)
{
	char path[4096];
	size_t chunk = 1 << 20;
	unsigned char *buf = malloc(chunk);
	uint64_t t0;
	int fd;

	if (!buf)
		die("malloc", ENOMEM);
	for (size_t i = 0; i < chunk; i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	snprintf(path, sizeof(path), "%s/bench_record_disk.%d", dir, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path, errno);
	t0 = now_ns();
	for (int i = 0; i < DISK_MB; i++)
		for (size_t off = 0; off < chunk;) {
			ssize_t n = write(fd, buf + off, chunk - off);

			if (n < 0 && errno != EINTR)
				die(path, errno);
			off += n > 0 ? (size_t)n : 0;
		}
	if (fsync(fd) < 0)
		die(path, errno);
	t0 = now_ns() - t0;
	close(fd);
	unlink(path);
	free(buf);
	return (double)DISK_MB * (1 << 20) / 1e6 / ((double)t0 / 1e9);
}

/* ---- the table ------------------------------------------------------ */

static void print_head(void)
{
	printf("%-24s %-9s %11s %7s %11s %7s %6s %5s %11s %6s %8s %6s  %s\n", "case", "tracer",
	       "fired", "M/s", "recorded", "M/s", "MB/s", "B/ev", "lost", "lost%", "late ms",
	       "CPU %", "recorded+lost=fired");
}

/* One row; returns false when trev's counts do not add up. */
static bool print_run(const char *name, const struct run *r)
{
	bool sum_ok = r->recorded + r->lost == r->fired;

	if (!r->ok) {
		printf("%-24s %-9s n/a (%s)\n", name, r->tracer, r->why);
		return strcmp(r->tracer, "trev") != 0;
	}
	printf("%-24s %-9s %11llu %7.2f %11llu %7.2f %6.1f %5.1f %11llu %5.1f%% %8.1f ", name,
	       r->tracer, r->fired, (double)r->fired / r->fire_secs / 1e6, r->recorded,
	       (double)r->recorded / r->secs / 1e6, r->bytes / r->secs / 1e6,
	       r->bytes / (double)r->recorded, r->lost,
	       100.0 * (double)r->lost / (double)r->fired, r->late_ms);
	if (r->rec_cpu > 0)
		printf("%5.0f%%", 100.0 * r->rec_cpu / r->secs);
	else
		printf("%6s", "-");
	printf("  %s\n", sum_ok ? "OK" : "MISMATCH");
	return sum_ok;
}

static double rec_rate(const struct run *r)
{
	return (double)r->recorded / r->secs;
}

static int parse_rates(uint64_t *rates)
{
	const char *env = getenv("BENCH_RECORD_RATES");
	char buf[256], *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", env && *env ? env : "2000000,1000000,4000000");
	for (char *t = strtok_r(buf, ",", &save); t && n < MAX_RATES;
	     t = strtok_r(NULL, ",", &save))
		if (strtoull(t, NULL, 0))
			rates[n++] = strtoull(t, NULL, 0);
	return n;
}

static unsigned int env_uint(const char *name, unsigned int dflt)
{
	const char *v = getenv(name);

	return v && *v && atoi(v) > 0 ? (unsigned int)atoi(v) : dflt;
}

static void cpu_model(char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, len, "?");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			char *v = strchr(line, ':') + 2;

			v[strcspn(v, "\n")] = '\0';
			snprintf(out, len, "%s", v);
			break;
		}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR"), *dir = getenv("BENCH_RECORD_DIR");
	const char *shm = getenv("BENCH_RECORD_TMPFS");
	unsigned int flood_s = env_uint("BENCH_RECORD_FLOOD_S", FLOOD_S);
	unsigned int paced_s = env_uint("BENCH_RECORD_PACED_S", PACED_S);
	const char *lenv = getenv("BENCH_RECORD_LTTNG");
	bool lttng = !(lenv && !strcmp(lenv, "0")), sums_ok = true, have_shm;
	struct run ft, fl = { 0 }, pt[MAX_RATES], pl = { 0 };
	char config[256] = "n/a", cpu[256], name[64];
	uint64_t rates[MAX_RATES];
	double disk, bpe, target;
	int nrates = parse_rates(rates);
	struct statfs sf;
	ssize_t n;

	if (argc == 4 && !strcmp(argv[1], "--emit"))
		return emit_trev(strtoull(argv[2], NULL, 0), (unsigned int)atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "--lttng"))
		return emit_lttng(strtoull(argv[2], NULL, 0), (unsigned int)atoi(argv[3]), argv[4]);
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--emit RATE SECONDS | --lttng RATE SECONDS DIR]\n",
			argv[0]);
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		die("readlink", errno);
	self[n] = '\0';
	dir = dir && *dir ? dir : tmp && *tmp ? tmp : "/tmp";
	shm = shm && *shm ? shm : "/dev/shm";
	have_shm = statfs(shm, &sf) == 0 && (unsigned long)sf.f_type == TMPFS_MAGIC;
	cpu_model(cpu, sizeof(cpu));
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("# bench_record: %s, %ld CPUs; trev record, default buffers (1408 KB per thread)\n",
	       cpu, sysconf(_SC_NPROCESSORS_ONLN));
	disk = disk_rate(dir);
	printf("# disk: %s (%s): %d MB write() + fsync(): %.0f MB/s\n", dir, fs_name(dir),
	       DISK_MB, disk);

	/* Interleaved: trev, then LTTng, for each case. */
	ft = run_trev(dir, 0, flood_s);
	if (lttng)
		fl = run_lttng(dir, 0, flood_s, config, sizeof(config));
	for (int i = 0; i < nrates && have_shm; i++) {
		pt[i] = run_trev(shm, rates[i], paced_s);
		if (i == 0 && lttng)
			pl = run_lttng(shm, rates[0], paced_s, config, sizeof(config));
	}

	printf("# LTTng-UST: %s\n", lttng ? config : "off (BENCH_RECORD_LTTNG=0)");
	printf("# flood: one thread as fast as it can for %u s, file in %s; paced: batches of %d "
	       "due by the clock for %u s, file in %s\n", flood_s, dir, PACE_BATCH, paced_s, shm);
	printf("# recorded M/s: events recorded / (trev record's run | LTTng's emitting + "
	       "lttng stop); lost: trev's count in the file, LTTng's discarded;\n"
	       "# late ms: the most a paced batch started after its due time; CPU %%: trev "
	       "record's CPU time / its run\n");
	print_head();
	snprintf(name, sizeof(name), "flood, %s", fs_name(dir));
	sums_ok &= print_run(name, &ft);
	if (lttng)
		print_run(name, &fl);
	if (!have_shm)
		printf("%-24s n/a (%s is not a tmpfs)\n", "paced", shm);
	for (int i = 0; i < nrates && have_shm; i++) {
		snprintf(name, sizeof(name), "paced %.1f M/s, tmpfs", (double)rates[i] / 1e6);
		sums_ok &= print_run(name, &pt[i]);
		if (i == 0 && lttng)
			print_run(name, &pl);
	}

	printf("\n");
	if (ft.ok) {
		bpe = ft.bytes / (double)ft.recorded;
		target = disk / bpe * 1e6 < 10 * PREV_RECORDER ? disk / bpe * 1e6 : 10 * PREV_RECORDER;
		printf("flood: trev recorded %.2f M events/s; the disk allows %.2f M/s at %.1f B/event, "
		       "10 x the previous recorder is %.2f M/s: target %.2f M/s, %s (%.2f x)\n",
		       rec_rate(&ft) / 1e6, disk / bpe, bpe, 10 * PREV_RECORDER / 1e6, target / 1e6,
		       rec_rate(&ft) >= target ? "met" : "not met", rec_rate(&ft) / target);
		if (ft.rec_cpu > 0)
			printf("flood: trev record had %.2f s of CPU in %.2f s (%.0f %% of one CPU): "
			       "%.1f M events recorded per CPU-second\n", ft.rec_cpu, ft.secs,
			       100.0 * ft.rec_cpu / ft.secs, (double)ft.recorded / ft.rec_cpu / 1e6);
		if (fl.ok)
			printf("flood: trev / LTTng-UST recorded events/s: %.2f x (%.2f M against "
			       "%.2f M): %s\n", rec_rate(&ft) / rec_rate(&fl), rec_rate(&ft) / 1e6,
			       rec_rate(&fl) / 1e6, rec_rate(&ft) >= rec_rate(&fl) ? "met" : "not met");
	}
	if (have_shm && nrates && pt[0].ok) {
		printf("paced %.1f M/s: trev lost %llu of %llu: %s", (double)rates[0] / 1e6,
		       pt[0].lost, pt[0].fired, pt[0].lost ? "not met" : "met");
		if (pl.ok)
			printf("; LTTng-UST discarded %llu of %llu", pl.lost, pl.fired);
		printf("\n");
	}
	if (!sums_ok)
		printf("MISMATCH: a trev run's recorded + lost != fired\n");
	return sums_ok ? 0 : 1;
}
