/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_lttng_loader.c: LTTng-UST in the benchmark process, without linking
 * liblttng-ust into the benchmark binary (bench_lttng.h has the API).
 *
 * The ordering problem. liblttng-ust registers the process with the session
 * daemons from its constructor; a session daemon that starts later finds it
 * only through a futex wake-up and a retry loop with sleep(5). So the LTTng
 * side lives in libtrev_bench_lttng.so, loaded only when everything waits
 * for it:
 *
 *  1. mkdtemp() a directory: LTTNG_HOME (home/), the daemon's log, the
 *     trace (trace/) and, as root, the daemon's run directory (run/).
 *  2. Fork a keeper process that starts lttng-sessiond --sig-parent in the
 *     foreground and waits for its SIGUSR1, sent once all its threads (the
 *     application registration one included) are listening.
 *  3. lttng create, enable-channel, enable-event (trev_bench:ints3 and :str;
 *     :ints3_rej and :ints3_acc with --filter; lttng_ust_tracef:*), start.
 *  4. dlopen() the .so with LTTNG_HOME=home/ and a long
 *     LTTNG_UST_REGISTER_TIMEOUT: liblttng-ust's constructor connects to
 *     home/.lttng/lttng-ust-sock-8 and waits until the daemon says
 *     "registration done", which it says after pushing the session's
 *     channel and event rules; the .so's probe constructor then creates the
 *     trev_bench events (a round trip on the notify socket).
 *  5. Check that the three tracepoints are on; only then return 0.
 *
 * Root. A root lttng-sessiond and lttng client always use /var/run/lttng
 * (the client has no option for another path). So as root the daemon and
 * every lttng command run in a private mount namespace where run/ is
 * bind-mounted over /run (what /var/run points to): their /var/run/lttng is
 * run/lttng, seen by no one else. The daemon's apps socket is put in
 * home/.lttng (--apps-sock), where liblttng-ust in this process, outside
 * the namespace, looks for a per-user daemon when LTTNG_HOME is set. This
 * needs CAP_SYS_ADMIN; without it lttng_bench_start() fails.
 *
 * Clean-up. The keeper stops the daemon (SIGTERM, then SIGKILL to its
 * process group) when lttng_bench_stop() asks or when its pipe from this
 * process reaches EOF: exit without stop, a crash, a kill. In the last
 * cases it also removes the temp dir. The keeper ignores the signals sent
 * to a whole process group (^C and the like) so as to outlive this process
 * and clean up after it; the daemon, in a process group of its own, has
 * PR_SET_PDEATHSIG on the keeper, so even SIGKILL to the keeper stops it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_lttng.h"
#include "bench_lttng_so.h"

static void noop_ints3(int a, int b, int c)
{
	(void)a;
	(void)b;
	(void)c;
}

static void noop_str(const char *s)
{
	(void)s;
}

static void (*ints3_fn)(int a, int b, int c) = noop_ints3;
static void (*str_fn)(const char *s) = noop_str;
static void (*tracef3_fn)(int a, int b, int c) = noop_ints3;
static void (*ints3_rej_fn)(int a, int b, int c) = noop_ints3;
static void (*ints3_acc_fn)(int a, int b, int c) = noop_ints3;
static char config[200] = "n/a";
static double stop_seconds = -1;	/* the last `lttng stop` */
static long long trace_bytes = -1;	/* the last trace's files */

/* Back to the no-op emitters. */
static void emitters_off(void)
{
	ints3_fn = noop_ints3;
	str_fn = noop_str;
	tracef3_fn = noop_ints3;
	ints3_rej_fn = noop_ints3;
	ints3_acc_fn = noop_ints3;
}

void lttng_bench_ints3(int a, int b, int c)
{
	ints3_fn(a, b, c);
}

void lttng_bench_str(const char *s)
{
	str_fn(s);
}

void lttng_bench_tracef3(int a, int b, int c)
{
	tracef3_fn(a, b, c);
}

void lttng_bench_ints3_rej(int a, int b, int c)
{
	ints3_rej_fn(a, b, c);
}

void lttng_bench_ints3_acc(int a, int b, int c)
{
	ints3_acc_fn(a, b, c);
}

const char *lttng_bench_config(void)
{
	return config;
}

double lttng_bench_stop_seconds(void)
{
	return stop_seconds;
}

long long lttng_bench_trace_bytes(void)
{
	return trace_bytes;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

#ifndef TREV_BENCH_LTTNG_SO

int lttng_bench_start(char *err, size_t errlen)
{
	return fail(err, errlen, "built without lttng-ust (pkg-config lttng-ust not found)");
}

int lttng_bench_stop(unsigned long long *recorded, unsigned long long *discarded)
{
	*recorded = LTTNG_BENCH_UNKNOWN;
	*discarded = LTTNG_BENCH_UNKNOWN;
	return -1;
}

#else /* TREV_BENCH_LTTNG_SO */

#ifndef TREV_BENCH_LTTNG_VERSION
#define TREV_BENCH_LTTNG_VERSION	"2.x"
#endif

#define SESSION			"trev_bench"
#define CHANNEL			"trev_bench"
#define READY_TIMEOUT_MS	30000	/* lttng-sessiond up */
#define CMD_TIMEOUT_MS		120000	/* one command (stop waits for the consumer) */
#define REGISTER_TIMEOUT_MS	"30000"	/* liblttng-ust's constructor */
#define ENABLE_TIMEOUT_MS	5000	/* tracepoints on after dlopen() */
#define QUIT_TIMEOUT_MS		15000	/* lttng-sessiond gone after SIGTERM */
#define OUT_MAX			8192	/* a command's output kept */
#define DIR_MAX			2048	/* the temp dir's path */
#define SUB_MAX			(DIR_MAX + 64)	/* a path in it */

/* The keeper's report, keeper to this process. */
struct keeper_msg {
	char code;		/* KEEPER_* */
	int err;		/* errno, or the daemon's wait status */
};

enum {
	KEEPER_READY = 'R',
	KEEPER_NS = 'N',	/* the mount namespace failed */
	KEEPER_FORK = 'F',
	KEEPER_EXITED = 'E',	/* lttng-sessiond exited before it was ready */
	KEEPER_TIMEOUT = 'T',
	KEEPER_QUIT = 'Q',	/* this process to the keeper: stop, I clean up */
};

extern char **environ;

static struct {
	bool used;		/* the .so was loaded once: liblttng-ust stays */
	bool running;		/* keeper (and daemon) running */
	bool at_exit;		/* atexit() handler registered */
	bool ns;		/* root: daemon and commands in a mount namespace */
	bool snapshot;
	bool keep;		/* BENCH_LTTNG_KEEP */
	char dir[DIR_MAX];	/* the mkdtemp() directory */
	char home[SUB_MAX];	/* LTTNG_HOME */
	char run[SUB_MAX];	/* root: bind-mounted over run_target */
	char run_target[PATH_MAX];
	char trace[SUB_MAX];
	char log[SUB_MAX];	/* lttng-sessiond's stdout and stderr */
	char apps_sock[SUB_MAX + 64];	/* --apps-sock=... */
	char lttng[PATH_MAX];
	char sessiond[PATH_MAX];
	char babeltrace[PATH_MAX];	/* empty: none */
	char subbuf[32];
	char nsubbuf[32];
	char **envp;		/* for the commands: LTTNG_HOME=home/ */
	pid_t keeper;
	int life_fd;		/* to the keeper; EOF: stop everything */
	void *so;
	const struct trev_bench_lttng_ops *ops;
} lb = { .life_fd = -1 };

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static bool find_prog(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	const char *p, *end;
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
		 path ? path : "");
	for (p = dirs; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end == p || *p != '/')
			continue;
		if (snprintf(out, outlen, "%.*s/%s", (int)(end - p), p, name) >= (int)outlen)
			continue;
		if (access(out, X_OK) == 0)
			return true;
	}
	out[0] = '\0';
	return false;
}

/* The environment of the commands: ours, with LTTNG_HOME=home/. */
static int make_envp(void)
{
	size_t n = 0, i = 0;
	char **e;

	for (e = environ; *e; e++)
		n++;
	lb.envp = calloc(n + 2, sizeof(*lb.envp));
	if (!lb.envp)
		return -1;
	for (e = environ; *e; e++)
		if (strncmp(*e, "LTTNG_HOME=", 11))
			lb.envp[i++] = *e;
	if (asprintf(&lb.envp[i], "LTTNG_HOME=%s", lb.home) < 0) {
		free(lb.envp);
		lb.envp = NULL;
		return -1;
	}
	return 0;
}

static void free_envp(void)
{
	size_t i;

	if (!lb.envp)
		return;
	for (i = 0; lb.envp[i]; i++)
		if (!strncmp(lb.envp[i], "LTTNG_HOME=", 11))
			free(lb.envp[i]);
	free(lb.envp);
	lb.envp = NULL;
}

/*
 * Root, in a child: a private mount namespace in which run/ is /run. Only
 * system calls: this runs between fork() and exec() (or _exit()).
 */
static int enter_ns(void)
{
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	if (mount(lb.run, lb.run_target, NULL, MS_BIND, NULL) < 0)
		return -errno;
	return 0;
}

/* In a child: stdin /dev/null, stdout and stderr @out_fd, then exec. */
__attribute__((noreturn))
static void child_exec(char *const argv[], int out_fd)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int fd;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	if (close_range(3, ~0u, 0) < 0)
		for (fd = 3; fd < 1024; fd++)
			close(fd);
	execve(argv[0], argv, lb.envp);
	_exit(127);
}

/*
 * Run @argv (in the namespace if @ns), its output in @out; returns its
 * exit status, 128 + signal, or -1.
 */
static int run_cmd(bool ns, char *const argv[], char *out, size_t outlen)
{
	uint64_t deadline = now_ms() + CMD_TIMEOUT_MS;
	size_t len = 0;
	int p[2], st = 0, ret;
	char buf[1024];
	pid_t pid;

	out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		if (ns && (ret = enter_ns()) < 0) {
			static const char msg[] = "cannot enter a private mount namespace\n";

			ret = (int)write(p[1], msg, sizeof(msg) - 1);
			_exit(126);
		}
		child_exec(argv, p[1]);
	}
	close(p[1]);
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t n;

		if (now >= deadline) {
			kill(pid, SIGKILL);
			snprintf(out, outlen, "timed out after %d s", CMD_TIMEOUT_MS / 1000);
			len = outlen;
			break;
		}
		ret = poll(&pfd, 1, (int)(deadline - now));
		if (ret < 0 && errno != EINTR)
			break;
		if (ret <= 0)
			continue;
		n = read(p[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len + 1 < outlen) {
			size_t k = (size_t)n < outlen - 1 - len ? (size_t)n : outlen - 1 - len;

			memcpy(out + len, buf, k);
			len += k;
			out[len] = '\0';
		}
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/* lttng -n ARGS...: 0, or -1 with its complaint in @err. */
static int lttng_cmd(char *err, size_t errlen, char *out, size_t outlen, ...)
{
	char *argv[16];
	va_list ap;
	int argc = 0, ret;
	char *nl;

	argv[argc++] = lb.lttng;
	argv[argc++] = "--no-sessiond";
	va_start(ap, outlen);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	ret = run_cmd(lb.ns, argv, out, outlen);
	if (ret == 0)
		return 0;
	/* its first error line is enough */
	nl = strstr(out, "Error: ");
	nl = nl ? nl : out;
	nl[strcspn(nl, "\n")] = '\0';
	return fail(err, errlen, "lttng %s: %s (status %d)", argv[2], nl, ret);
}

/* ---- the keeper process ----------------------------------------------- */

static void keeper_report(int fd, char code, int err)
{
	struct keeper_msg msg = { .code = code, .err = err };

	if (write(fd, &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return;
}

/* SIGTERM, then SIGKILL to its process group (consumer daemons included). */
static void keeper_stop_daemon(pid_t pid)
{
	uint64_t deadline = now_ms() + QUIT_TIMEOUT_MS;
	struct timespec tick = { .tv_nsec = 50 * 1000000 };
	sigset_t chld;
	siginfo_t si;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	kill(pid, SIGTERM);
	for (;;) {
		/* exited? (WNOWAIT: its pid, hence its group, stays ours) */
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR)
			break;
		if (si.si_pid == pid || now_ms() >= deadline)
			break;
		sigtimedwait(&chld, NULL, &tick);
	}
	kill(-pid, SIGKILL);	/* whatever is left of the group */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* close_range(@first, @last), if there is anything in it */
static void close_fds(unsigned int first, unsigned int last)
{
	if (first <= last && close_range(first, last, 0) < 0)
		for (unsigned int fd = first; fd <= last && fd < 1024; fd++)
			close((int)fd);
}

/*
 * The keeper keeps only its two pipes and /dev/null as stdio: it must not
 * hold this process's stdout (a pipe to tee, say) or other files open
 * after this process is gone.
 */
static void keeper_fds(int a, int b)
{
	unsigned int lo = (unsigned int)(a < b ? a : b), hi = (unsigned int)(a < b ? b : a);
	int fd = open("/dev/null", O_RDWR);

	for (int i = 0; i < 3 && fd >= 0; i++)
		if (fd != i && i != a && i != b)
			dup2(fd, i);
	close_fds(3, lo - 1);
	close_fds(lo + 1, hi - 1);
	close_fds(hi + 1, ~0u);
	if (fd > 2 && fd != a && fd != b)
		close(fd);
}

/*
 * The keeper: starts lttng-sessiond, says when it is ready, stops it on
 * KEEPER_QUIT or EOF from @life_rd. A forked copy of this process: it
 * never returns and leaves with _exit() (no atexit handlers).
 */
__attribute__((noreturn))
static void keeper_main(char *const argv[], int life_rd, int status_wr)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	uint64_t deadline = now_ms() + READY_TIMEOUT_MS;
	pid_t self = getpid(), pid;
	sigset_t set;
	ssize_t n;
	int ret;
	char c;

	keeper_fds(life_rd, status_wr);
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/*
	 * Signals to the whole process group (^C, kill -TERM -PGID, hang-up)
	 * kill this process; EOF then tells the keeper, which cleans up.
	 */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);

	if (lb.ns && (ret = enter_ns()) < 0) {
		keeper_report(status_wr, KEEPER_NS, -ret);
		_exit(1);
	}
	pid = fork();
	if (pid < 0) {
		keeper_report(status_wr, KEEPER_FORK, errno);
		_exit(1);
	}
	if (pid == 0) {
		int fd;

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != self)
			_exit(1);
		fd = open(lb.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			_exit(126);
		child_exec(argv, fd);
	}
	setpgid(pid, pid);

	for (;;) {
		uint64_t now = now_ms(), left = deadline > now ? deadline - now : 0;
		struct timespec ts = {
			.tv_sec = (time_t)(left / 1000),
			.tv_nsec = (long)(left % 1000) * 1000000,
		};
		siginfo_t si;
		int sig, st;

		if (!left) {
			keeper_stop_daemon(pid);
			keeper_report(status_wr, KEEPER_TIMEOUT, 0);
			_exit(1);
		}
		sig = sigtimedwait(&set, &si, &ts);
		if (sig == SIGUSR1 && si.si_pid == pid)
			break;
		if (sig == SIGCHLD && waitpid(pid, &st, WNOHANG) == pid) {
			kill(-pid, SIGKILL);
			keeper_report(status_wr, KEEPER_EXITED, st);
			_exit(1);
		}
	}
	keeper_report(status_wr, KEEPER_READY, 0);
	close(status_wr);

	do
		n = read(life_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	keeper_stop_daemon(pid);
	/* EOF without KEEPER_QUIT: this process is gone, clean up for it */
	if (!(n == 1 && c == KEEPER_QUIT) && !lb.keep)
		rm_tree(lb.dir);
	_exit(0);
}

static int start_keeper(char *err, size_t errlen)
{
	char *argv[] = { lb.sessiond, "--sig-parent", "--no-kernel", lb.apps_sock, NULL };
	struct keeper_msg msg = { 0 };
	int life[2], status[2];
	struct pollfd pfd;
	ssize_t n;
	pid_t pid;

	if (pipe2(life, O_CLOEXEC) < 0)
		return fail(err, errlen, "pipe: %s", strerror(errno));
	if (pipe2(status, O_CLOEXEC) < 0) {
		close(life[0]);
		close(life[1]);
		return fail(err, errlen, "pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(life[0]);
		close(life[1]);
		close(status[0]);
		close(status[1]);
		return fail(err, errlen, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(life[1]);
		close(status[0]);
		keeper_main(argv, life[0], status[1]);
	}
	close(life[0]);
	close(status[1]);
	lb.keeper = pid;
	lb.life_fd = life[1];
	lb.running = true;

	pfd = (struct pollfd){ .fd = status[0], .events = POLLIN };
	while (poll(&pfd, 1, READY_TIMEOUT_MS + 5000) < 0 && errno == EINTR)
		;
	do
		n = read(status[0], &msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	close(status[0]);
	if (n == (ssize_t)sizeof(msg) && msg.code == KEEPER_READY)
		return 0;

	switch (n == (ssize_t)sizeof(msg) ? msg.code : 0) {
	case KEEPER_NS:
		return fail(err, errlen, "root needs a private mount namespace for its own "
			    "lttng-sessiond: %s", strerror(msg.err));
	case KEEPER_FORK:
		return fail(err, errlen, "fork: %s", strerror(msg.err));
	case KEEPER_EXITED:
		return fail(err, errlen, "lttng-sessiond exited (status 0x%x); see %s",
			    msg.err, lb.log);
	case KEEPER_TIMEOUT:
		return fail(err, errlen, "lttng-sessiond not ready after %d s",
			    READY_TIMEOUT_MS / 1000);
	default:
		return fail(err, errlen, "lost the lttng-sessiond keeper");
	}
}

/* Stop the keeper, hence the daemons; @quit: we remove the temp dir. */
static void stop_keeper(bool quit)
{
	char c = KEEPER_QUIT;

	if (!lb.running)
		return;
	if (quit && write(lb.life_fd, &c, 1) != 1)
		quit = false;
	close(lb.life_fd);
	lb.life_fd = -1;
	while (waitpid(lb.keeper, NULL, 0) < 0 && errno == EINTR)
		;
	lb.running = false;
}

static void cleanup(void)
{
	emitters_off();
	stop_keeper(true);
	if (lb.dir[0]) {
		if (lb.keep)
			fprintf(stderr, "lttng_bench: kept %s\n", lb.dir);
		else
			rm_tree(lb.dir);
	}
	lb.dir[0] = '\0';
	free_envp();
}

/* Exit without lttng_bench_stop(): EOF to the keeper, which cleans up. */
static void at_exit(void)
{
	emitters_off();
	stop_keeper(false);
}

/* Paths, programs, the temp dir. */
static int prepare(char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR"), *mode = getenv("BENCH_LTTNG_MODE");
	const char *subbuf = getenv("BENCH_LTTNG_SUBBUF");
	const char *nsubbuf = getenv("BENCH_LTTNG_NUM_SUBBUF");
	char dotlttng[SUB_MAX + 16];

	if (getuid() != geteuid())
		return fail(err, errlen, "setuid: liblttng-ust refuses per-user tracing");
	if (access(TREV_BENCH_LTTNG_SO, R_OK) < 0)
		return fail(err, errlen, "%s: %s", TREV_BENCH_LTTNG_SO, strerror(errno));
	if (!find_prog("lttng", lb.lttng, sizeof(lb.lttng)) ||
	    !find_prog("lttng-sessiond", lb.sessiond, sizeof(lb.sessiond)))
		return fail(err, errlen, "lttng or lttng-sessiond not found (lttng-tools)");
	find_prog("babeltrace2", lb.babeltrace, sizeof(lb.babeltrace));

	if (mode && *mode && strcmp(mode, "snapshot") && strcmp(mode, "discard"))
		return fail(err, errlen, "BENCH_LTTNG_MODE: \"snapshot\" or \"discard\", not \"%s\"",
			    mode);
	lb.snapshot = !mode || !*mode || !strcmp(mode, "snapshot");
	snprintf(lb.subbuf, sizeof(lb.subbuf), "%s", subbuf && *subbuf ? subbuf : "256K");
	snprintf(lb.nsubbuf, sizeof(lb.nsubbuf), "%s", nsubbuf && *nsubbuf ? nsubbuf : "4");
	lb.keep = getenv("BENCH_LTTNG_KEEP") != NULL;
	lb.ns = getuid() == 0;

	if (snprintf(lb.dir, sizeof(lb.dir), "%s/trev-lttng-XXXXXX",
		     tmp && *tmp ? tmp : "/tmp") >= (int)sizeof(lb.dir)) {
		lb.dir[0] = '\0';
		return fail(err, errlen, "TMPDIR too long");
	}
	if (!mkdtemp(lb.dir)) {
		int e = errno;

		lb.dir[0] = '\0';
		return fail(err, errlen, "mkdtemp in %s: %s", tmp && *tmp ? tmp : "/tmp",
			    strerror(e));
	}
	snprintf(lb.home, sizeof(lb.home), "%s/home", lb.dir);
	snprintf(lb.run, sizeof(lb.run), "%s/run", lb.dir);
	snprintf(lb.trace, sizeof(lb.trace), "%s/trace", lb.dir);
	snprintf(lb.log, sizeof(lb.log), "%s/sessiond.log", lb.dir);
	snprintf(dotlttng, sizeof(dotlttng), "%s/.lttng", lb.home);
	snprintf(lb.apps_sock, sizeof(lb.apps_sock), "--apps-sock=%s/lttng-ust-sock-8", dotlttng);
	if (mkdir(lb.home, 0700) < 0 || mkdir(dotlttng, 0700) < 0)
		return fail(err, errlen, "mkdir %s: %s", dotlttng, strerror(errno));
	if (lb.ns) {
		size_t n;

		if (mkdir(lb.run, 0755) < 0)
			return fail(err, errlen, "mkdir %s: %s", lb.run, strerror(errno));
		if (!realpath("/var/run", lb.run_target))
			return fail(err, errlen, "/var/run: %s", strerror(errno));
		n = strlen(lb.run_target);
		if (!strncmp(lb.dir, lb.run_target, n) && lb.dir[n] == '/')
			return fail(err, errlen, "as root, TMPDIR must not be under %s",
				    lb.run_target);
	}
	if (make_envp() < 0)
		return fail(err, errlen, "out of memory");
	snprintf(config, sizeof(config),
		 "%s session, %s mode, per-UID buffers, %s x %s per CPU, lttng-ust %s",
		 lb.snapshot ? "snapshot" : "streaming", lb.snapshot ? "overwrite" : "discard",
		 lb.nsubbuf, lb.subbuf, TREV_BENCH_LTTNG_VERSION);
	return 0;
}

static int create_session(char *err, size_t errlen)
{
	char out[OUT_MAX], output[SUB_MAX + 16], subbuf[64], nsubbuf[64];

	snprintf(output, sizeof(output), "--output=%s", lb.trace);
	snprintf(subbuf, sizeof(subbuf), "--subbuf-size=%s", lb.subbuf);
	snprintf(nsubbuf, sizeof(nsubbuf), "--num-subbuf=%s", lb.nsubbuf);
	if (lb.snapshot) {
		if (lttng_cmd(err, errlen, out, sizeof(out), "create", SESSION, "--snapshot",
			      output, NULL))
			return -1;
	} else if (lttng_cmd(err, errlen, out, sizeof(out), "create", SESSION, output, NULL)) {
		return -1;
	}
	if (lttng_cmd(err, errlen, out, sizeof(out), "enable-channel", "--userspace",
		      "--session=" SESSION, "--buffers-uid",
		      lb.snapshot ? "--overwrite" : "--discard", subbuf, nsubbuf, CHANNEL, NULL) ||
	    lttng_cmd(err, errlen, out, sizeof(out), "enable-event", "--userspace",
		      "--session=" SESSION, "--channel=" CHANNEL, "trev_bench:ints3,trev_bench:str",
		      NULL) ||
	    /* The filtered cases: LTTng evaluates the filter before reserving, as trev does. */
	    lttng_cmd(err, errlen, out, sizeof(out), "enable-event", "--userspace",
		      "--session=" SESSION, "--channel=" CHANNEL, "--filter=a < 0",
		      "trev_bench:ints3_rej", NULL) ||
	    lttng_cmd(err, errlen, out, sizeof(out), "enable-event", "--userspace",
		      "--session=" SESSION, "--channel=" CHANNEL,
		      "--filter=a >= 0 && b >= 0 && c != 1", "trev_bench:ints3_acc", NULL) ||
	    lttng_cmd(err, errlen, out, sizeof(out), "enable-event", "--userspace",
		      "--session=" SESSION, "--channel=" CHANNEL, "lttng_ust_tracef:*", NULL) ||
	    lttng_cmd(err, errlen, out, sizeof(out), "start", SESSION, NULL))
		return -1;
	return 0;
}

/* Save @name's value (or NULL) in @old, and set it to @val. */
static void env_push(const char *name, const char *val, char **old)
{
	const char *v = getenv(name);

	*old = v ? strdup(v) : NULL;
	setenv(name, val, 1);
}

static void env_pop(const char *name, char *old)
{
	if (old)
		setenv(name, old, 1);
	else
		unsetenv(name);
	free(old);
}

/* Load the .so: liblttng-ust registers with our daemon from its constructor. */
static int load_so(char *err, size_t errlen)
{
	char *old_home, *old_timeout, *old_baddr;
	trev_bench_lttng_ops_fn get;
	uint64_t deadline;
	int on = 0;

	/* Its constructor has run already: it would not register now. */
	if (dlopen("liblttng-ust.so.1", RTLD_LAZY | RTLD_NOLOAD))
		return fail(err, errlen, "liblttng-ust was already loaded in this process");
	env_push("LTTNG_HOME", lb.home, &old_home);
	env_push("LTTNG_UST_REGISTER_TIMEOUT", REGISTER_TIMEOUT_MS, &old_timeout);
	env_push("LTTNG_UST_WITHOUT_BADDR_STATEDUMP", "1", &old_baddr);
	lb.used = true;
	lb.so = dlopen(TREV_BENCH_LTTNG_SO, RTLD_NOW | RTLD_LOCAL);
	/* liblttng-ust has read (and keeps) its environment by now */
	env_pop("LTTNG_UST_WITHOUT_BADDR_STATEDUMP", old_baddr);
	env_pop("LTTNG_UST_REGISTER_TIMEOUT", old_timeout);
	env_pop("LTTNG_HOME", old_home);
	if (!lb.so)
		return fail(err, errlen, "dlopen: %s", dlerror());
	get = (trev_bench_lttng_ops_fn)dlsym(lb.so, TREV_BENCH_LTTNG_OPS_SYM);
	if (!get)
		return fail(err, errlen, "dlsym %s: %s", TREV_BENCH_LTTNG_OPS_SYM, dlerror());
	lb.ops = get();
	if (!lb.ops || lb.ops->version != TREV_BENCH_LTTNG_OPS_VERSION)
		return fail(err, errlen, "%s: wrong version", TREV_BENCH_LTTNG_SO);

	/* Registered and enabled: the tracepoints say so. */
	deadline = now_ms() + ENABLE_TIMEOUT_MS;
	while ((on = lb.ops->enabled()) != TREV_BENCH_LTTNG_ALL && now_ms() < deadline)
		usleep(1000);
	if (on != TREV_BENCH_LTTNG_ALL)
		return fail(err, errlen, "tracepoints not enabled after registration "
			    "(ints3 %s, str %s, tracef %s, ints3_rej %s, ints3_acc %s); see %s",
			    on & TREV_BENCH_LTTNG_INTS3 ? "on" : "off",
			    on & TREV_BENCH_LTTNG_STR ? "on" : "off",
			    on & TREV_BENCH_LTTNG_TRACEF ? "on" : "off",
			    on & TREV_BENCH_LTTNG_INTS3_REJ ? "on" : "off",
			    on & TREV_BENCH_LTTNG_INTS3_ACC ? "on" : "off", lb.log);
	return 0;
}

int lttng_bench_start(char *err, size_t errlen)
{
#ifdef TREV_TSAN
	/* liblttng-ust is not instrumented: its RCU would be reported as races */
	if (true)
		return fail(err, errlen, "not under ThreadSanitizer");
#endif
	if (lb.used || lb.running)
		return fail(err, errlen, "LTTng can be started once per process");
	if (prepare(err, errlen) < 0)
		goto fail;
	if (!lb.at_exit) {
		if (atexit(at_exit)) {
			fail(err, errlen, "atexit failed");
			goto fail;
		}
		lb.at_exit = true;
	}
	if (start_keeper(err, errlen) < 0 || create_session(err, errlen) < 0 ||
	    load_so(err, errlen) < 0)
		goto fail;
	ints3_fn = lb.ops->ints3;
	str_fn = lb.ops->str;
	tracef3_fn = lb.ops->tracef3;
	ints3_rej_fn = lb.ops->ints3_rej;
	ints3_acc_fn = lb.ops->ints3_acc;
	return 0;
fail:
	cleanup();
	snprintf(config, sizeof(config), "n/a");
	return -1;
}

/* Sum of the numbers after every @label in @text, or LTTNG_BENCH_UNKNOWN. */
static unsigned long long sum_after(const char *text, const char *label)
{
	unsigned long long sum = 0;
	const char *p = text;
	bool found = false;
	char *end;

	while ((p = strstr(p, label))) {
		p += strlen(label);
		sum += strtoull(p, &end, 10);
		found = end != p;
		p = end;
	}
	return found ? sum : LTTNG_BENCH_UNKNOWN;
}

static long long du_sum;

static int du_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		du_sum += (long long)st->st_size;
	return 0;
}

/* The size of the files under trace/ (streams and metadata), or -1. */
static long long sum_trace_bytes(void)
{
	du_sum = 0;
	if (nftw(lb.trace, du_one, 16, FTW_PHYS) < 0)
		return -1;
	return du_sum;
}

/* Events in the trace under trace/: babeltrace2's counter sink. */
static unsigned long long count_events(void)
{
	char *argv[] = { lb.babeltrace, lb.trace, "--component=sink.utils.counter",
			 "--params=step=+0", NULL };	/* totals only */
	char out[OUT_MAX];
	unsigned long long n;
	struct stat st;

	if (!lb.babeltrace[0] || stat(lb.trace, &st) < 0)
		return LTTNG_BENCH_UNKNOWN;
	if (run_cmd(false, argv, out, sizeof(out)) != 0)
		return LTTNG_BENCH_UNKNOWN;
	/* "   1234567  Event messages" */
	n = LTTNG_BENCH_UNKNOWN;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *end;
		unsigned long long v = strtoull(line, &end, 10);

		if (end != line && strstr(end, "Event messages"))
			n = v;
	}
	return n;
}

int lttng_bench_stop(unsigned long long *recorded, unsigned long long *discarded)
{
	char out[OUT_MAX], err[512];
	uint64_t t0;
	int ret = 0;

	*recorded = LTTNG_BENCH_UNKNOWN;
	*discarded = LTTNG_BENCH_UNKNOWN;
	if (!lb.running)
		return -1;
	emitters_off();

	t0 = now_ms();
	if (lttng_cmd(err, sizeof(err), out, sizeof(out), "stop", SESSION, NULL) < 0) {
		fprintf(stderr, "lttng_bench: %s\n", err);
		ret = -1;
	}
	stop_seconds = (double)(now_ms() - t0) / 1000.0;
	if (lb.snapshot && lttng_cmd(err, sizeof(err), out, sizeof(out), "snapshot", "record",
				     "--session=" SESSION, NULL) < 0) {
		fprintf(stderr, "lttng_bench: %s\n", err);
		ret = -1;
	}
	if (lttng_cmd(err, sizeof(err), out, sizeof(out), "list", SESSION, NULL) < 0) {
		fprintf(stderr, "lttng_bench: %s\n", err);
		ret = -1;
	} else {
		*discarded = sum_after(out, "Discarded events:");
		/* none in overwrite mode, by design */
		if (*discarded == LTTNG_BENCH_UNKNOWN && lb.snapshot)
			*discarded = 0;
	}
	if (lttng_cmd(err, sizeof(err), out, sizeof(out), "destroy", SESSION, NULL) < 0) {
		fprintf(stderr, "lttng_bench: %s\n", err);
		ret = -1;
	}
	stop_keeper(true);
	trace_bytes = sum_trace_bytes();
	*recorded = count_events();
	cleanup();
	return ret;
}

#endif /* TREV_BENCH_LTTNG_SO */
