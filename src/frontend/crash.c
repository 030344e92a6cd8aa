/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * When the program dies: with TREV_OUTPUT set, a fatal signal, or a SIGINT
 * or SIGTERM that would end the program, writes the trace text there before
 * the process dies of that signal (docs/tracefs.md, "When the program dies").
 *
 * The handler calls only async-signal-safe functions; the text is made by
 * a child of the dying process, which is a copy with one thread, so the
 * formatter (malloc, locks, stdio) runs there:
 *
 *   the thread the signal came to            the child (_Fork(), one thread)
 *   -----------------------------            -------------------------------
 *   claim: crash_owner = tid, exit_done
 *   block every signal
 *   stop the ring buffers' writers
 *   ring buffers MADV_DOFORK
 *   _Fork() ------------------------------>  dispositions reset, watchdog armed
 *   ring buffers MADV_DONTFORK again         a fresh stack
 *   waitpid(child)                           trev's locks made anew
 *                                            trace text -> TREV_OUTPUT
 *                        <---------------    _exit(0)
 *   the previous handler, if there was one (it may return: the program goes
 *   on, its writers write again)
 *   else the default action: return to a faulting instruction, which faults
 *   again, or raise the signal again
 *
 * The other threads of the process run on meanwhile (only a synchronous
 * fault stops its own thread), but their writes stop first
 * (trev__rb_crash_stop(): refused and counted from then on, as while a
 * control operation runs), so that they cannot overwrite the pages the
 * child reads; they write again if a handler of the program's returns.
 * The text holds every event committed before the stop, or counts it in a
 * lost-events line (overwritten before the signal), and its header
 * counts what it shows. A second signal of the set waits:
 * blocked, in the thread writing the text; in the handler, in another
 * thread, until the text is written and the first signal has ended the
 * process (ten seconds at most after the text is written: a loaded machine
 * may not run the dying thread for a while, and the first signal must win;
 * the bound is for a fault that did not recur when its instruction ran
 * again).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

#include "base/out_file.h"
#include "frontend/frontend.h"
#include "events/events_internal.h"
#include "output/output.h"
#include "ring_buffer/rb_internal.h"

#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
#define CRASH_HAVE_FORK		1	/* _Fork(): a fork that runs no atfork handler */
#endif

#define CRASH_ALT_STACK		(256 * 1024)	/* the starting thread's signal stack */
#define CRASH_CHILD_STACK	(4 * 1024 * 1024) /* the child's stack */
#define CRASH_WATCHDOG_S	5	/* the child dies after this long without writing */

struct crash_sig {
	int sig;
	bool fault;		/* a fault: installed over a handler, and chained */
	volatile sig_atomic_t prev_reset; /* prev had SA_RESETHAND and has run */
	struct sigaction prev;	/* the action before ours */
};

static struct crash_sig crash_sigs[] = {
	{ .sig = SIGSEGV, .fault = true },
	{ .sig = SIGBUS, .fault = true },
	{ .sig = SIGABRT, .fault = true },
	{ .sig = SIGFPE, .fault = true },
	{ .sig = SIGILL, .fault = true },
	{ .sig = SIGINT },
	{ .sig = SIGTERM },
};
#define CRASH_NR_SIGS	(sizeof(crash_sigs) / sizeof(crash_sigs[0]))

/* The thread writing the trace (its tid), 0 when none, CRASH_DYING after it when it dies. */
static _Atomic int crash_owner;
#define CRASH_DYING		(-1)
static int crash_out_fd = -1;		/* the child's output */
static pid_t crash_parent;

/* @size bytes of stack, reserved, not committed, above a guard page; NULL if none. */
static void *crash_stack(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p, page, PROT_NONE);
	return p + page;
}

static struct crash_sig *crash_find(int sig)
{
	for (size_t i = 0; i < CRASH_NR_SIGS; i++)
		if (crash_sigs[i].sig == sig)
			return &crash_sigs[i];
	return NULL;
}

/* A message on stderr without stdio. Context: async-signal-safe. */
static void crash_say(const char *what, int n)
{
	char buf[160], num[16];
	size_t len = 0, k = 0;
	unsigned int u = n < 0 ? 0u : (unsigned int)n;

	do {
		num[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u && k < sizeof(num));
	for (const char *s = "trev: TREV_OUTPUT: "; *s; s++)
		buf[len++] = *s;
	for (const char *s = what; *s && len < sizeof(buf) - sizeof(num) - 2; s++)
		buf[len++] = *s;
	while (n >= 0 && k)
		buf[len++] = num[--k];
	buf[len++] = '\n';
	if (write(STDERR_FILENO, buf, len) < 0)
		return;
}

/* ------------------------------------------------------------------ */
/* The child                                                           */

static ssize_t crash_cookie_write(void *cookie, const char *buf, size_t size)
{
	size_t done = 0;

	(void)cookie;
	while (done < size) {
		ssize_t n = write(crash_out_fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)n;
		alarm(CRASH_WATCHDOG_S);	/* progress: the watchdog starts again */
	}
	return (ssize_t)done;
}

/* The trace text to TREV_OUTPUT, as at exit; its own descriptor for stdout and stderr. */
static void crash_write_trace(void)
{
	static const cookie_io_functions_t io = { .write = crash_cookie_write };
	const char *path = trev__env_output();
	struct trev_trace_array *tr;
	char why[256] = "";
	FILE *out;

	if (strcmp(path, "stderr") == 0)
		crash_out_fd = dup(STDERR_FILENO);
	else if (strcmp(path, "stdout") == 0)
		crash_out_fd = dup(STDOUT_FILENO);
	else
		crash_out_fd = trev__out_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666, why,
					      sizeof(why));
	if (crash_out_fd < 0) {
		trev__log(TREV_LOG_ERR, "TREV_OUTPUT: cannot open %s: %s\n", path,
			  why[0] ? why : strerror(crash_out_fd == -1 ? errno : -crash_out_fd));
		return;
	}
	out = fopencookie(NULL, "w", io);
	tr = trev__top_instance();
	if (out && tr)
		trev__trace_print(tr, out);
	if (out)
		fclose(out);
	close(crash_out_fd);
}

static void crash_child_main(void)
{
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
	/* No thread but this one: whoever held trev's locks at the fork is gone. */
	trev__rb_crash_child();
	trev__events_crash_child();
	trev__instances_crash_child();
	trev__output_crash_child(crash_parent);
	trev__log_crash_child();
	crash_write_trace();
	_exit(0);
}

/* Runs in the child, on the stack the handler had; never returns. */
static void crash_child(void)
{
	static ucontext_t uc;
	struct sigaction sa;
	sigset_t set;
	void *stack;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < CRASH_NR_SIGS; i++)
		sigaction(crash_sigs[i].sig, &sa, NULL);
	/*
	 * The watchdog: SIGALRM's default action ends the child once it has
	 * written nothing for CRASH_WATCHDOG_S (each write starts it again),
	 * stuck on a lock a thread of the parent held at the fork.
	 */
	sigaction(SIGALRM, &sa, NULL);
	/* Ctrl-C goes to the whole process group: the child finishes the text. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigfillset(&set);
	sigdelset(&set, SIGINT);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	alarm(CRASH_WATCHDOG_S);

	/*
	 * The handler may run on a small signal stack (the program's, a
	 * sanitizer's, a thread's near its end): the formatter gets one of
	 * its own.
	 */
	stack = crash_stack(CRASH_CHILD_STACK);
	if (!stack || getcontext(&uc) < 0)
		crash_child_main();
	uc.uc_stack.ss_sp = stack;
	uc.uc_stack.ss_size = CRASH_CHILD_STACK;
	uc.uc_link = NULL;
	makecontext(&uc, crash_child_main, 0);
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_start_switch_fiber(NULL, stack, CRASH_CHILD_STACK);
#endif
	setcontext(&uc);
	crash_child_main();	/* setcontext() failed */
}

/* ------------------------------------------------------------------ */
/* The handler                                                          */

/*
 * Write the trace through a child and wait for it. Context: the handler,
 * crash_owner is this thread and exit_done was claimed.
 */
static void crash_dump(int sig)
{
#ifdef CRASH_HAVE_FORK
	sigset_t all, old;
	int status = 0;
	pid_t pid;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	crash_parent = getpid();
	/* The other threads' events stop here; they would overwrite what the child reads. */
	trev__rb_crash_stop();
	trev__rb_fork_share(true);
	pid = _Fork();
	if (pid == 0)
		crash_child();
	trev__rb_fork_share(false);
	if (pid < 0) {
		crash_say("cannot fork to write the trace at signal ", sig);
	} else {
		pid_t got;

		while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (got == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			crash_say("no progress writing the trace (a lock held when the program died?); "
				  "stopped", -1);
		else if (got == pid && WIFSIGNALED(status))
			crash_say("the trace writer died of signal ", WTERMSIG(status));
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
#else
	(void)sig;
#endif
}

/* The default action of @sig, now. */
static void crash_default(int sig, const siginfo_t *info)
{
	struct sigaction dfl;
	sigset_t set;

	memset(&dfl, 0, sizeof(dfl));
	sigemptyset(&dfl.sa_mask);
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	/*
	 * A fault the kernel raised comes again when the instruction runs
	 * again: the process dies of it there, its core shows that place.
	 */
	if (info && info->si_code > 0 && sig != SIGABRT && crash_find(sig)->fault)
		return;
	raise(sig);	/* blocked in the handler: pending until unblocked */
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* Run the handler the program had before ours, as the kernel would have. */
static void crash_chain(struct crash_sig *cs, int sig, siginfo_t *info, void *ucv)
{
	const ucontext_t *uc = ucv;
	struct sigaction prev = cs->prev;
	sigset_t mask;

	if (prev.sa_flags & SA_RESETHAND)
		cs->prev_reset = 1;
	if (uc)
		mask = uc->uc_sigmask;
	else
		pthread_sigmask(SIG_SETMASK, NULL, &mask);
	sigorset(&mask, &mask, &prev.sa_mask);
	if (!(prev.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (prev.sa_flags & SA_SIGINFO)
		prev.sa_sigaction(sig, info, ucv);
	else
		prev.sa_handler(sig);
}

static void crash_handler(int sig, siginfo_t *info, void *ucv)
{
	struct crash_sig *cs = crash_find(sig);
	int saved_errno = errno, self = gettid(), owner;
	bool dumped = false, chain;

	if (!cs)
		return;
	chain = !cs->prev_reset && cs->prev.sa_handler != SIG_DFL && cs->prev.sa_handler != SIG_IGN;
	/*
	 * One thread writes the text. One that comes meanwhile waits, and
	 * then finds it written (exit_done); it lets the writer's signal end
	 * the process first, waiting ten seconds at most.
	 */
	for (int waited = 0;; waited++) {
		struct timespec ms = { 0, 1000000 };

		owner = 0;
		if (atomic_compare_exchange_strong(&crash_owner, &owner, self)) {
			if (trev__env_exit_claim()) {
				crash_dump(sig);
				dumped = true;
			}
			atomic_store(&crash_owner, chain ? 0 : CRASH_DYING);
			break;
		}
		if (owner == self || (owner == CRASH_DYING && waited >= 10000))
			break;	/* owner == self cannot be: every signal is blocked while it writes */
		nanosleep(&ms, NULL);
	}
	if (chain) {
		crash_chain(cs, sig, info, ucv);
		/* It returned: the program goes on, and its exit or death writes the text again. */
		if (dumped) {
			trev__rb_crash_resume();
			trev__env_exit_release();
		}
	} else {
		crash_default(sig, info);
	}
	errno = saved_errno;
}

/* ------------------------------------------------------------------ */
/* Installation                                                         */

/*
 * A signal stack for the calling thread (the one that starts the library,
 * normally the main thread) if it has none: a stack overflow's SIGSEGV
 * needs one. Other threads keep what they have.
 */
static void crash_alt_stack(void)
{
	stack_t ss, old;

	if (sigaltstack(NULL, &old) < 0 || !(old.ss_flags & SS_DISABLE))
		return;
	ss.ss_sp = crash_stack(CRASH_ALT_STACK);
	ss.ss_size = CRASH_ALT_STACK;
	ss.ss_flags = 0;
	if (ss.ss_sp)
		sigaltstack(&ss, NULL);
}

void trev__crash_init(void)
{
#ifdef CRASH_HAVE_FORK
	bool any = false;

	for (size_t i = 0; i < CRASH_NR_SIGS; i++) {
		struct crash_sig *cs = &crash_sigs[i];
		struct sigaction act;

		if (sigaction(cs->sig, NULL, &cs->prev) < 0 || cs->prev.sa_handler == SIG_IGN)
			continue;	/* ignored: the program's choice (a fault still kills) */
		if (!cs->fault && cs->prev.sa_handler != SIG_DFL)
			continue;	/* the program handles it: not our business */
		memset(&act, 0, sizeof(act));
		act.sa_sigaction = crash_handler;
		act.sa_mask = cs->prev.sa_mask;
		for (size_t k = 0; k < CRASH_NR_SIGS; k++)
			sigaddset(&act.sa_mask, crash_sigs[k].sig);
		act.sa_flags = SA_SIGINFO | SA_ONSTACK | (cs->prev.sa_flags & SA_RESTART);
		any |= sigaction(cs->sig, &act, NULL) == 0;
	}
	if (any)
		crash_alt_stack();
#endif
}

bool trev__crash_handler_is(const struct sigaction *act)
{
	return (act->sa_flags & SA_SIGINFO) && act->sa_sigaction == crash_handler;
}
