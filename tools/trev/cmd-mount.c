/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev mount -p PID DIR: a running process's tree as a FUSE file system at
 * DIR, served by this command over the process's control socket until
 * Ctrl-C, SIGTERM or the end of the process. The FUSE side is the library's
 * own (src/tracefs/fuse_serve.c, from trev_common); this file is its
 * backend: one shared connection for stat, readdir, mkdir and rmdir, and one
 * connection per open file, because the protocol answers one request at a
 * time per connection and a blocked trace_pipe must not hold up the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "control/proto.h"
#include "remote.h"
#include "tracefs/fuse_serve.h"
#include "trev.h"

#define POLL_SLICE_MS 100	/* longest remote POLL: a file's connection is busy meanwhile */
#define STOP_WAIT_MS 2000	/* how long the unmount waits for the FUSE loop */

static const char mount_help[] =
	"usage: trev mount -p PID DIR\n"
	"\n"
	"Mount process PID's trace tree at DIR (an empty directory) as a FUSE file\n"
	"system, served by this command until Ctrl-C, SIGTERM or the end of the\n"
	"process; then DIR is unmounted. cat, echo, ls, mkdir instances/NAME work\n"
	"there as on /sys/kernel/tracing.\n";

/* The backend's context: the process and the shared connection. */
struct rmount {
	pid_t pid;
	pthread_mutex_t lock;		/* one request at a time on @r */
	struct trev_remote *r;		/* for stat, readdir, mkdir, rmdir */
};

/* An open file: a connection of its own. */
struct rfile {
	pthread_mutex_t lock;		/* one request at a time on @r */
	struct trev_remote *r;
	int h;				/* the file's handle on @r */
};

/* ---- the backend: the control socket -------------------------------------------------------- */

static int rm_stat(void *ctx, const char *path, struct trev_stat *st)
{
	struct rmount *rm = ctx;
	unsigned int mode = 0;
	int is_dir = 0, ret;

	pthread_mutex_lock(&rm->lock);
	ret = trev_remote_stat(rm->r, path, &is_dir, &mode);
	pthread_mutex_unlock(&rm->lock);
	st->is_dir = is_dir;
	st->mode = mode;
	return ret;
}

struct rm_readdir_arg {
	trev_readdir_fn fn;
	void *arg;
};

static int rm_readdir_entry(const char *name, int is_dir, unsigned int mode, void *arg)
{
	struct rm_readdir_arg *a = arg;
	struct trev_stat st = { .is_dir = is_dir, .mode = mode };

	return a->fn(name, &st, a->arg);
}

static int rm_readdir(void *ctx, const char *path, trev_readdir_fn fn, void *arg)
{
	struct rmount *rm = ctx;
	struct rm_readdir_arg a = { fn, arg };
	int ret;

	pthread_mutex_lock(&rm->lock);
	ret = trev_remote_readdir(rm->r, path, rm_readdir_entry, &a);
	pthread_mutex_unlock(&rm->lock);
	return ret;
}

static int rm_mkdir(void *ctx, const char *path)
{
	struct rmount *rm = ctx;
	int ret;

	pthread_mutex_lock(&rm->lock);
	ret = trev_remote_mkdir(rm->r, path);
	pthread_mutex_unlock(&rm->lock);
	return ret;
}

static int rm_rmdir(void *ctx, const char *path)
{
	struct rmount *rm = ctx;
	int ret;

	pthread_mutex_lock(&rm->lock);
	ret = trev_remote_rmdir(rm->r, path);
	pthread_mutex_unlock(&rm->lock);
	return ret;
}

static int rm_open(void *ctx, const char *path, int flags, void **file)
{
	struct rmount *rm = ctx;
	unsigned int po = 0;
	struct rfile *f;
	char why[256];
	int ret;

	if ((flags & O_ACCMODE) != O_WRONLY)
		po |= TREV_PO_READ;
	if ((flags & O_ACCMODE) != O_RDONLY)
		po |= TREV_PO_WRITE;
	if (flags & O_TRUNC)
		po |= TREV_PO_TRUNC;
	if (flags & O_APPEND)
		po |= TREV_PO_APPEND;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	ret = trev_remote_connect(rm->pid, &f->r, why, sizeof(why));
	if (ret < 0)
		goto out_free;
	ret = f->h = trev_remote_open(f->r, path, po | TREV_PO_NONBLOCK);
	if (ret < 0)
		goto out_disconnect;
	pthread_mutex_init(&f->lock, NULL);
	*file = f;
	return 0;
out_disconnect:
	trev_remote_close(f->r);
out_free:
	free(f);
	return ret;
}

static ssize_t rm_read(void *file, void *buf, size_t size)
{
	struct rfile *f = file;
	ssize_t n;

	pthread_mutex_lock(&f->lock);
	n = trev_remote_read(f->r, f->h, buf, size, 0);
	pthread_mutex_unlock(&f->lock);
	return n;
}

static ssize_t rm_write(void *file, const void *buf, size_t size)
{
	struct rfile *f = file;
	ssize_t n;

	pthread_mutex_lock(&f->lock);
	n = trev_remote_write(f->r, f->h, buf, size);
	pthread_mutex_unlock(&f->lock);
	return n;
}

/* No wake over the socket: sleep in short slices; the waiter looks at its flags between them. */
static int rm_poll(void *file, int timeout_ms)
{
	struct rfile *f = file;
	int ret;

	if (timeout_ms < 0 || timeout_ms > POLL_SLICE_MS)
		timeout_ms = POLL_SLICE_MS;
	pthread_mutex_lock(&f->lock);
	ret = trev_remote_poll(f->r, f->h, timeout_ms);
	pthread_mutex_unlock(&f->lock);
	return ret;
}

static int rm_close(void *file)
{
	struct rfile *f = file;
	int ret = trev_remote_close_file(f->r, f->h);

	trev_remote_close(f->r);
	pthread_mutex_destroy(&f->lock);
	free(f);
	return ret == -ECONNRESET ? 0 : ret;	/* the process is gone: nothing stays open */
}

static __attribute__((format(printf, 3, 4))) void
rm_log(void *ctx, int warn, const char *fmt, ...)
{
	va_list ap;

	(void)ctx;
	(void)warn;
	fputs("trev: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static const struct trev_fuse_backend remote_backend = {
	.stat = rm_stat,
	.readdir = rm_readdir,
	.mkdir = rm_mkdir,
	.rmdir = rm_rmdir,
	.open = rm_open,
	.read = rm_read,
	.write = rm_write,
	.poll = rm_poll,
	.close = rm_close,
	.log = rm_log,
};

/* ---- the command ---------------------------------------------------------------------------- */

/* Is @dir usable as a mount point? Return: 0, or 1 after an error message. */
static int check_dir(const char *dir)
{
	struct stat st, parent;
	char *up;
	int ret;

	if (stat(dir, &st) < 0) {
		if (errno == ENOTCONN)
			trev_err("%s: a stale FUSE mount; run fusermount3 -u %s", dir, dir);
		else
			trev_err("%s: %s", dir, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		trev_err("%s: not a directory", dir);
		return 1;
	}
	if (asprintf(&up, "%s/..", dir) < 0) {
		trev_err("%s", strerror(ENOMEM));
		return 1;
	}
	ret = stat(up, &parent);
	free(up);
	if (ret == 0 && (st.st_dev != parent.st_dev || st.st_ino == parent.st_ino)) {
		trev_err("%s: already a mount point", dir);
		return 1;
	}
	return 0;
}

/*
 * Wait for the end: a signal, the process's exit, or the mount gone from
 * outside (fusermount3 -u). Return: the reason, for the last message.
 */
static const char *wait_for_end(struct trev_fuse_mnt *m, pid_t pid, int sig_fd, int pid_fd)
{
	static char why[64];

	for (;;) {
		struct pollfd fds[2] = { { sig_fd, POLLIN, 0 }, { pid_fd, POLLIN, 0 } };
		struct signalfd_siginfo si;
		int done;

		if (poll(fds, pid_fd >= 0 ? 2 : 1, 200) < 0 && errno != EINTR)
			return "poll failed";
		if (fds[0].revents && read(sig_fd, &si, sizeof(si)) == sizeof(si)) {
			snprintf(why, sizeof(why), "%s", strsignal((int)si.ssi_signo));
			return why;
		}
		if ((pid_fd >= 0 && fds[1].revents) || (pid_fd < 0 && kill(pid, 0) < 0 &&
							errno == ESRCH)) {
			snprintf(why, sizeof(why), "process %d exited", (int)pid);
			return why;
		}
		pthread_mutex_lock(&m->lock);
		done = m->loop_done;
		pthread_mutex_unlock(&m->lock);
		if (done)
			return "unmounted from outside";
	}
}

int cmd_mount(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rmount rm = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct trev_fuse_mnt *m;
	const char *dir, *why;
	char fsname[32];
	sigset_t sigs;
	pid_t pid = 0;
	int c, ret, sig_fd, pid_fd;

	while ((c = getopt_long(argc, argv, "+p:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(mount_help, stdout);
			return 0;
		}
		if (c != 'p' || (pid = trev_parse_pid(optarg)) < 0) {
			fputs(mount_help, stderr);
			return 2;
		}
	}
	if (!pid || optind != argc - 1) {
		fputs(mount_help, stderr);
		return 2;
	}
	dir = argv[optind];
	rm.pid = pid;
	rm.r = trev_attach(pid);
	if (!rm.r)
		return 1;
	if (check_dir(dir))
		goto out_disconnect;
	if (access("/dev/fuse", R_OK | W_OK) < 0) {
		trev_err("FUSE is not available: /dev/fuse: %s", strerror(errno));
		goto out_disconnect;
	}

	/* Taken by the signalfd below only; every thread started from here on has them blocked. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	sig_fd = signalfd(-1, &sigs, SFD_CLOEXEC);
	pid_fd = (int)syscall(SYS_pidfd_open, pid, 0);	/* -1 before Linux 5.3: kill(pid, 0) */

	snprintf(fsname, sizeof(fsname), "trev-%d", (int)pid);
	ret = trev__fuse_start(dir, fsname, &remote_backend, &rm, &m);
	if (ret < 0) {
		trev_err("cannot mount at %s: %s", dir, ret == -EACCES || ret == -ENODEV ?
			 "FUSE is not available here" : strerror(-ret));
		ret = 1;
		goto out_close;
	}
	fprintf(stderr, "trev: process %d's tree mounted at %s; Ctrl-C unmounts\n", (int)pid,
		m->dir);
	why = wait_for_end(m, pid, sig_fd, pid_fd);
	if (trev__fuse_stop(m, STOP_WAIT_MS) == -EBUSY) {
		/* The loop thread still uses the connection: the process's exit ends both. */
		trev_err("%s: detached; a file of it was still open", dir);
		return 0;
	}
	fprintf(stderr, "trev: unmounted %s: %s\n", dir, why);
	ret = 0;
out_close:
	if (pid_fd >= 0)
		close(pid_fd);
	if (sig_fd >= 0)
		close(sig_fd);
	trev_remote_close(rm.r);
	return ret;
out_disconnect:
	trev_remote_close(rm.r);
	return 1;
}
