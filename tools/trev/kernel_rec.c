/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record --kernel: a kernel trace instance of the recording's own, on
 * the recording's clock, read into a trace.dat file by trev's writer
 * through a source on the kernel's tracefs (kernel_rec.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <mntent.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>

#include <tracefs.h>

#include <trev/tracedat.h>

#include "kernel_rec.h"
#include "trev.h"

/* The largest control file read whole (available_events is about 100 KB). */
#define KREC_MAX_FILE		(64u << 20)
/* A page header's commit word: the data size, and the kernel's two loss flags above it. */
#define KREC_COMMIT_SIZE_MASK	0x3fffffffull

struct trev_kernel {
	char root[PATH_MAX];		/* the tracing directory: where tracefs is mounted */
	struct tracefs_instance *inst;	/* instances/trev-record-<PID> */
	char *inst_dir;			/* its full path */
	char prefix[64];		/* "instances/trev-record-<PID>/" */
	int nr_cpus;
	int *fds;			/* per_cpu/cpuN/trace_pipe_raw, non-blocking */
	int stop_fd;			/* eventfd: the copying thread stops */
	int flush_ms;
	struct trev_dat_source src;
	struct trev_dat *dat;
	const char *output;
	int version;
	pthread_t thread;
	bool running;			/* the thread was started and not joined */
	int err;			/* the thread's error, a negative errno */
	uint64_t pages;			/* pages copied */
};

/* ------------------------------------------------------------------ */
/* The source: the kernel's tracefs                                     */

static ssize_t krec_read_path(const char *full, char **text)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1);
	int fd;

	if (!buf)
		return -ENOMEM;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		free(buf);
		return -err;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *bigger;

			if (cap >= KREC_MAX_FILE) {
				close(fd);
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			bigger = realloc(buf, cap + 1);
			if (!bigger) {
				close(fd);
				free(buf);
				return -ENOMEM;
			}
			buf = bigger;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			close(fd);
			free(buf);
			return -err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	/* The writer keeps texts as C strings: a NUL in one is not a tracefs text. */
	if (memchr(buf, '\0', len)) {
		free(buf);
		return -EILSEQ;
	}
	buf[len] = '\0';
	*text = buf;
	return (ssize_t)len;
}

static ssize_t krec_read_file(const struct trev_dat_source *src, const char *path, char **text)
{
	const struct trev_kernel *k = src->arg;
	char full[4096];

	if (strstr(path, "..") ||
	    (size_t)snprintf(full, sizeof(full), "%s/%s", k->root, path) >= sizeof(full))
		return -EINVAL;
	return krec_read_path(full, text);
}

static ssize_t krec_list_dir(const struct trev_dat_source *src, const char *path, char **text)
{
	const struct trev_kernel *k = src->arg;
	size_t len = 0, cap = 256;
	char full[4096], *buf;
	struct dirent *d;
	DIR *dir;

	if (strstr(path, "..") ||
	    (size_t)snprintf(full, sizeof(full), "%s/%s", k->root, path) >= sizeof(full))
		return -EINVAL;
	dir = opendir(full);
	if (!dir)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		closedir(dir);
		return -ENOMEM;
	}
	buf[0] = '\0';
	while ((d = readdir(dir))) {
		size_t n = strlen(d->d_name);

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (len + n + 2 > cap) {
			char *bigger;

			cap = (len + n + 2) * 2;
			bigger = realloc(buf, cap);
			if (!bigger) {
				free(buf);
				closedir(dir);
				return -ENOMEM;
			}
			buf = bigger;
		}
		memcpy(buf + len, d->d_name, n);
		len += n;
		buf[len++] = '\n';
		buf[len] = '\0';
	}
	closedir(dir);
	*text = buf;
	return (ssize_t)len;
}

/*
 * One page of a CPU's trace_pipe_raw. The kernel hands out a whole page per
 * read (a partial one too: the writer goes on in a fresh page); its header
 * is checked, the records are copied as they are.
 */
static int krec_read_page(const struct trev_dat_source *src, int cpu, void *page,
			  unsigned int flags)
{
	const struct trev_kernel *k = src->arg;
	uint64_t commit;
	ssize_t n;

	(void)flags;	/* a read() cannot ask for full pages only; splice() could */
	if (cpu < 0 || cpu >= k->nr_cpus)
		return -EINVAL;
	do
		n = read(k->fds[cpu], page, TREV_DAT_PAGE_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n == 0)
		return 0;
	if (n != TREV_DAT_PAGE_SIZE)
		return -EIO;
	memcpy(&commit, (const char *)page + 8, sizeof(commit));
	if ((commit & KREC_COMMIT_SIZE_MASK) > TREV_DAT_PAGE_SIZE - 16)
		return -EBADMSG;
	return 1;
}

/* ------------------------------------------------------------------ */
/* The instance                                                         */

static int krec_write(const struct trev_kernel *k, const char *file, const char *text,
		      bool append)
{
	char path[4096];
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", k->inst_dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

/* Sum the "overrun:" lines of the instance's per-CPU stats (-1: unreadable). */
static long long krec_overrun(const struct trev_kernel *k)
{
	long long sum = 0;

	for (int cpu = 0; cpu < k->nr_cpus; cpu++) {
		char path[128], *text, *at;
		unsigned long long v;

		snprintf(path, sizeof(path), "%sper_cpu/cpu%d/stats", k->prefix, cpu);
		if (krec_read_file(&k->src, path, &text) < 0)
			return -1;
		at = strstr(text, "overrun: ");
		if (!at || sscanf(at, "overrun: %llu", &v) != 1) {
			free(text);
			return -1;
		}
		sum += (long long)v;
		free(text);
	}
	return sum;
}

/*
 * Where tracefs is mounted: /sys/kernel/tracing if it is there, else the
 * first tracefs mount. (Not tracefs_tracing_dir_is_mounted(): in
 * libtracefs 1.6 it leaks the path it finds; nor tracefs_tracing_dir(),
 * which mounts tracefs when it finds none.) Return: 0, or -ENOENT.
 */
static int krec_find_tracefs(char *root, size_t size)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *m;
	int ret = -ENOENT;

	if (!f)
		return -ENOENT;
	while ((m = getmntent(f))) {
		if (strcmp(m->mnt_type, "tracefs") != 0 || strlen(m->mnt_dir) >= size)
			continue;
		if (ret == 0 && strcmp(m->mnt_dir, "/sys/kernel/tracing") != 0)
			continue;
		strcpy(root, m->mnt_dir);
		ret = 0;
	}
	endmntent(f);
	return ret;
}

static int krec_count_cpus(const struct trev_kernel *k)
{
	int n;

	for (n = 0; n < 4096; n++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", k->inst_dir, n);
		if (stat(path, &st) < 0)
			break;
	}
	return n;
}

int trev_kernel_setup(struct trev_kernel **out, const char *clock, char *const *specs,
		      int nr_specs)
{
	struct trev_kernel *k;
	char name[32];
	int ret;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k) {
		trev_err("--kernel: %s", strerror(ENOMEM));
		return -1;
	}
	k->stop_fd = -1;
	if (krec_find_tracefs(k->root, sizeof(k->root)) < 0) {
		trev_err("--kernel: the kernel's tracefs is not mounted (as root: mount -t tracefs "
			 "nodev /sys/kernel/tracing)");
		goto out_free;
	}
	if (access(k->root, R_OK | W_OK | X_OK) < 0) {
		trev_err("--kernel: %s: %s (recording the kernel's events needs root)", k->root,
			 strerror(errno));
		goto out_free;
	}
	/* libtracefs makes and removes the instance under the same directory. */
	if (tracefs_set_tracing_dir(k->root) < 0) {
		trev_err("--kernel: %s", strerror(ENOMEM));
		goto out_free;
	}
	snprintf(name, sizeof(name), "trev-record-%d", (int)getpid());
	snprintf(k->prefix, sizeof(k->prefix), "instances/%s/", name);
	errno = 0;
	k->inst = tracefs_instance_create(name);
	if (!k->inst) {
		trev_err("--kernel: %s/instances/%s: %s", k->root, name,
			 strerror(errno ? errno : ENOMEM));
		goto out_free;
	}
	if (!tracefs_instance_is_new(k->inst)) {
		/* Not ours: a process with our pid left it; it is not removed. */
		trev_err("--kernel: %s/instances/%s exists already (left by a trev record that was "
			 "killed? rmdir it)", k->root, name);
		tracefs_instance_free(k->inst);
		k->inst = NULL;
		goto out_free;
	}
	k->inst_dir = tracefs_instance_get_dir(k->inst);
	if (!k->inst_dir) {
		trev_err("--kernel: %s", strerror(ENOMEM));
		goto out_close;
	}
	k->nr_cpus = krec_count_cpus(k);
	if (k->nr_cpus == 0) {
		trev_err("--kernel: %s has no per_cpu/cpu0", k->inst_dir);
		goto out_close;
	}
	/* Nothing is recorded until trev_kernel_start(). */
	ret = krec_write(k, "tracing_on", "0", false);
	if (ret == 0 && (ret = krec_write(k, "trace_clock", clock, false)) < 0) {
		trev_err("--kernel: trace_clock: '%s': %s (the kernel's clocks: %s/trace_clock)",
			 clock, strerror(-ret), k->root);
		goto out_close;
	}
	if (ret < 0) {
		trev_err("--kernel: %s/tracing_on: %s", k->inst_dir, strerror(-ret));
		goto out_close;
	}
	for (int i = 0; i < nr_specs; i++) {
		ret = krec_write(k, "set_event", specs[i], true);
		if (ret < 0) {
			trev_err("--kernel: set_event: '%s': %s%s", specs[i], strerror(-ret),
				 ret == -EINVAL ? " (no such kernel event: see "
						  "available_events)" : "");
			goto out_close;
		}
	}
	k->fds = calloc((size_t)k->nr_cpus, sizeof(*k->fds));
	if (!k->fds) {
		trev_err("--kernel: %s", strerror(ENOMEM));
		goto out_close;
	}
	for (int cpu = 0; cpu < k->nr_cpus; cpu++)
		k->fds[cpu] = -1;
	for (int cpu = 0; cpu < k->nr_cpus; cpu++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", k->inst_dir, cpu);
		k->fds[cpu] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (k->fds[cpu] < 0) {
			trev_err("--kernel: %s: %s", path, strerror(errno));
			goto out_close;
		}
	}
	k->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (k->stop_fd < 0) {
		trev_err("--kernel: eventfd: %s", strerror(errno));
		goto out_close;
	}
	k->src.instance = k->prefix;
	k->src.read_file = krec_read_file;
	k->src.list_dir = krec_list_dir;
	k->src.read_page = krec_read_page;
	k->src.arg = k;
	*out = k;
	return 0;

out_close:
	trev_kernel_close(k);
	return -1;
out_free:
	free(k);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Copying                                                              */

/*
 * Wake when a CPU's buffer passes the instance's buffer_percent (poll on
 * trace_pipe_raw), when the flush interval passes, or when told to stop;
 * copy every page the kernel has each time.
 */
static void *krec_run(void *arg)
{
	struct trev_kernel *k = arg;
	struct pollfd *pfd = calloc((size_t)k->nr_cpus + 1, sizeof(*pfd));

	if (!pfd) {
		k->err = -ENOMEM;
		return NULL;
	}
	for (int cpu = 0; cpu < k->nr_cpus; cpu++)
		pfd[cpu] = (struct pollfd){ .fd = k->fds[cpu], .events = POLLIN };
	pfd[k->nr_cpus] = (struct pollfd){ .fd = k->stop_fd, .events = POLLIN };
	for (;;) {
		long n;

		if (poll(pfd, (nfds_t)k->nr_cpus + 1, k->flush_ms > 0 ? k->flush_ms : 100) < 0 &&
		    errno != EINTR) {
			k->err = -errno;
			break;
		}
		n = trev_dat_drain(k->dat);
		if (n < 0) {
			k->err = (int)n;
			break;
		}
		k->pages += (uint64_t)n;
		if (pfd[k->nr_cpus].revents & POLLIN)
			break;
	}
	free(pfd);
	return NULL;
}

int trev_kernel_start(struct trev_kernel *k, const char *output, int version, int flush_ms)
{
	int ret;

	k->output = output;
	k->version = version;
	k->flush_ms = flush_ms;
	ret = trev_dat_open(&k->dat, output, version, &k->src);
	if (ret < 0) {
		trev_err("--kernel: %s: %s", output, strerror(-ret));
		return -1;
	}
	if (trev_dat_nr_cpus(k->dat) != k->nr_cpus) {
		trev_err("--kernel: %s: %d CPUs, per_cpu/ has %d", k->inst_dir,
			 trev_dat_nr_cpus(k->dat), k->nr_cpus);
		return -1;
	}
	ret = krec_write(k, "tracing_on", "1", false);
	if (ret < 0) {
		trev_err("--kernel: %s/tracing_on: %s", k->inst_dir, strerror(-ret));
		return -1;
	}
	ret = pthread_create(&k->thread, NULL, krec_run, k);
	if (ret) {
		trev_err("--kernel: pthread_create: %s", strerror(ret));
		return -1;
	}
	k->running = true;
	return 0;
}

static void krec_stop_thread(struct trev_kernel *k)
{
	uint64_t one = 1;

	if (!k->running)
		return;
	if (write(k->stop_fd, &one, sizeof(one)) != sizeof(one))
		trev_err("--kernel: eventfd: %s", strerror(errno));
	pthread_join(k->thread, NULL);
	k->running = false;
}

int trev_kernel_finish(struct trev_kernel *k)
{
	long long overrun;
	struct stat st;
	long n;
	int ret;

	ret = krec_write(k, "tracing_on", "0", false);
	if (ret < 0)
		trev_err("--kernel: %s/tracing_on: %s", k->inst_dir, strerror(-ret));
	krec_stop_thread(k);
	if (k->err < 0) {
		trev_err("--kernel: reading %s/per_cpu: %s", k->inst_dir, strerror(-k->err));
		return -1;
	}
	n = trev_dat_drain(k->dat);
	if (n < 0) {
		trev_err("--kernel: reading %s/per_cpu: %s", k->inst_dir, strerror((int)-n));
		return -1;
	}
	k->pages += (uint64_t)n;
	overrun = krec_overrun(k);
	ret = trev_dat_finish(k->dat);
	k->dat = NULL;
	if (ret < 0) {
		trev_err("--kernel: %s: %s", k->output, strerror(-ret));
		return -1;
	}
	fprintf(stderr, "trev: wrote %s (the kernel's events: version %d, %lld bytes, %" PRIu64
		" pages, %lld overwritten before they were read)\n", k->output, k->version,
		stat(k->output, &st) == 0 ? (long long)st.st_size : -1LL, k->pages, overrun);
	return 0;
}

int trev_kernel_close(struct trev_kernel *k)
{
	int status = 0;

	if (!k)
		return 0;
	krec_stop_thread(k);
	if (k->dat)
		trev_dat_abort(k->dat);
	for (int cpu = 0; k->fds && cpu < k->nr_cpus; cpu++)
		if (k->fds[cpu] >= 0)
			close(k->fds[cpu]);
	free(k->fds);
	if (k->stop_fd >= 0)
		close(k->stop_fd);
	if (k->inst) {
		if (tracefs_instance_destroy(k->inst) < 0) {
			trev_err("--kernel: %s could not be removed: %s (rmdir it)",
				 k->inst_dir ? k->inst_dir : k->prefix, strerror(errno));
			status = -1;
		}
		tracefs_instance_free(k->inst);
	}
	tracefs_put_tracing_file(k->inst_dir);
	free(k);
	return status;
}
