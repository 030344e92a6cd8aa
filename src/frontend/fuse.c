/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev_mount(): the process's own tracefs tree as a FUSE file system. The
 * serving (requests, blocking reads, poll, unmount) is fuse_serve.c's, over a
 * backend made of <trev/trev.h>'s tree API (trev_path_stat, trev_readdir,
 * trev_mkdir, trev_file_open/read/write/poll/wake/close); this file adds the
 * one mount per process, the exit handler and the signals.
 *
 * Signals. No signal handler of the application is replaced: at mount, for
 * SIGTERM, SIGINT and SIGHUP whose action is still SIG_DFL, a handler is
 * installed that detaches the mount (async-signal-safe system calls only),
 * restores SIG_DFL and re-raises, so the process dies as it would have,
 * without leaving a stale mount. An application that installs its own
 * handler later takes the signal over; exit() unmounts (atexit). auto_unmount
 * is not used: libfuse would fork a fusermount3 child of the application
 * (even as root), whose exit an application reaping with waitpid(-1) or
 * ignoring SIGCHLD would interfere with. After SIGKILL the mount is stale:
 * `fusermount3 -u DIR` or `umount -l DIR` (docs/fuse.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "tracefs/fuse_serve.h"
#include "tracefs/tracefs_internal.h"

#define UNMOUNT_WAIT_MS 1000	/* how long trev_unmount() waits for the loop to end */

static pthread_mutex_t mount_lock = PTHREAD_MUTEX_INITIALIZER;
static struct trev_fuse_mnt *mounted;	/* guarded by mount_lock */

/* ---- the backend: the tree API -------------------------------------------------------------- */

static int tree_stat(void *ctx, const char *path, struct trev_stat *st)
{
	(void)ctx;
	return trev_path_stat(path, st);
}

static int tree_readdir(void *ctx, const char *path, trev_readdir_fn fn, void *arg)
{
	(void)ctx;
	return trev_readdir(path, fn, arg);
}

static int tree_mkdir(void *ctx, const char *path)
{
	(void)ctx;
	return trev_mkdir(path);
}

static int tree_rmdir(void *ctx, const char *path)
{
	(void)ctx;
	return trev_rmdir(path);
}

static int tree_open(void *ctx, const char *path, int flags, void **file)
{
	struct trev_file *f;
	int ret;

	(void)ctx;
	ret = trev_file_open(path, flags | O_NONBLOCK, &f);
	if (ret)
		return ret;
	f->outside = true;	/* trace_marker's records carry the process's pid */
	*file = f;
	return 0;
}

static ssize_t tree_read(void *file, void *buf, size_t size)
{
	return trev_file_read(file, buf, size);
}

static ssize_t tree_write(void *file, const void *buf, size_t size)
{
	return trev_file_write(file, buf, size);
}

static int tree_poll(void *file, int timeout_ms)
{
	return trev_file_poll(file, timeout_ms);
}

static void tree_wake(void *file)
{
	trev_file_wake(file);
}

static int tree_close(void *file)
{
	return trev_file_close(file);
}

static __attribute__((format(printf, 3, 4))) void
tree_log(void *ctx, int warn, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	(void)ctx;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	trev__log(warn ? TREV_LOG_WARN : TREV_LOG_INFO, "%s", line);
}

static const struct trev_fuse_backend tree_backend = {
	.stat = tree_stat,
	.readdir = tree_readdir,
	.mkdir = tree_mkdir,
	.rmdir = tree_rmdir,
	.open = tree_open,
	.read = tree_read,
	.write = tree_write,
	.poll = tree_poll,
	.wake = tree_wake,
	.close = tree_close,
	.log = tree_log,
};

/* ---- mount, unmount, signals ---------------------------------------------------------------- */

/* Set at mount for the signal handler, which may only read them. */
static char sig_dir[PATH_MAX];
static volatile sig_atomic_t sig_armed;
static volatile sig_atomic_t sig_fuse_fd = -1;	/* the session's /dev/fuse descriptor */
static const int term_signals[] = { SIGTERM, SIGINT, SIGHUP };
static int sig_installed[3];		/* guarded by mount_lock */
/* The action ours replaced: the default, or the TREV_OUTPUT writer's (frontend/crash.c). */
static struct sigaction sig_prev[3];


static void on_term_signal(int sig)
{
	int saved_errno = errno;

	if (sig_armed) {
		sig_armed = 0;
		atomic_store(&trev__fuse_dying, 1);
		trev__fuse_detach(sig_dir);
		/*
		 * A thread of this process blocked reading its own mount would
		 * otherwise keep the process from ever ending: its request waits
		 * for an answer only the dying process could give, and the device
		 * closes only when that thread is gone. Without our descriptor the
		 * device is released when the killed workers leave their read(),
		 * which ends the connection and fails the waiting request. The
		 * workers are in read() on it and the process dies next: a raw
		 * close(2), which ThreadSanitizer does not take for a race.
		 */
		if (sig_fuse_fd >= 0)
			syscall(SYS_close, sig_fuse_fd);
	}
	for (size_t i = 0; i < sizeof(term_signals) / sizeof(term_signals[0]); i++)
		if (term_signals[i] == sig)
			sigaction(sig, &sig_prev[i], NULL);
	raise(sig);	/* blocked in here: delivered with that action when the handler returns */
	errno = saved_errno;
}

/* Called with mount_lock held. */
static void signals_arm(const char *dir, int fuse_fd)
{
	strcpy(sig_dir, dir);	/* dir is shorter than PATH_MAX: realpath() made it */
	sig_fuse_fd = fuse_fd;
	sig_armed = 1;
	for (size_t i = 0; i < sizeof(term_signals) / sizeof(term_signals[0]); i++) {
		struct sigaction old, act;

		if (sigaction(term_signals[i], NULL, &old))
			continue;
		if (!trev__crash_handler_is(&old) &&
		    (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)))
			continue;	/* the application's choice stays */
		sig_prev[i] = old;
		memset(&act, 0, sizeof(act));
		act.sa_handler = on_term_signal;
		sigemptyset(&act.sa_mask);
		act.sa_flags = SA_RESTART;
		sig_installed[i] = sigaction(term_signals[i], &act, NULL) == 0;
	}
}

/* Called with mount_lock held: put the action before ours back where our handler still is. */
static void signals_disarm(void)
{
	sig_armed = 0;
	sig_fuse_fd = -1;
	for (size_t i = 0; i < sizeof(term_signals) / sizeof(term_signals[0]); i++) {
		struct sigaction old;

		if (!sig_installed[i])
			continue;
		sig_installed[i] = 0;
		if (sigaction(term_signals[i], NULL, &old) || old.sa_handler != on_term_signal)
			continue;
		sigaction(term_signals[i], &sig_prev[i], NULL);
	}
}

static void unmount_at_exit(void)
{
	trev_unmount();
}

int trev_mount(const char *dir)
{
	static int atexit_done;
	struct trev_fuse_mnt *m;
	int ret;

	trev__library_init();
	if (!dir)
		return -EINVAL;
	pthread_mutex_lock(&mount_lock);
	if (mounted) {
		if (!mounted->loop_done) {
			ret = -EBUSY;
			goto out_unlock;
		}
		/* Unmounted from outside (umount, fusermount3 -u). */
		trev__fuse_free(mounted);
		mounted = NULL;
	}
	ret = trev__fuse_start(dir, "trev", &tree_backend, NULL, &m);
	if (ret) {
		trev__log(TREV_LOG_ERR, "fuse: cannot mount at %s: %s\n", dir, strerror(-ret));
		goto out_unlock;
	}
	mounted = m;
	signals_arm(m->dir, m->fuse_fd);
	if (!atexit_done)
		atexit_done = atexit(unmount_at_exit) == 0;
	trev__log(TREV_LOG_INFO, "fuse: tracefs tree mounted at %s\n", m->dir);
out_unlock:
	pthread_mutex_unlock(&mount_lock);
	return ret;
}

int trev_unmount(void)
{
	struct trev_fuse_mnt *m;
	int ret;

	pthread_mutex_lock(&mount_lock);
	m = mounted;
	if (!m) {
		pthread_mutex_unlock(&mount_lock);
		return -ENOENT;
	}
	mounted = NULL;
	signals_disarm();
	ret = trev__fuse_stop(m, UNMOUNT_WAIT_MS);
	if (ret == -EBUSY)
		trev__log(TREV_LOG_WARN,
			  "fuse: unmounted, but a file is still open; served until closed\n");
	pthread_mutex_unlock(&mount_lock);
	return ret;
}
