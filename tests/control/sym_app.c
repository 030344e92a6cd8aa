/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Named call sites for tests/scripts/cli_record.sh: trev record must name
 * the functions that called trace_printk() and the frames of a stacktrace
 * trigger, of a process held in exit(), of one killed before the file is
 * written, and of one it attached to.
 *
 *	sym_app exit	one round, then exit(0) (the exit hold applies)
 *	sym_app kill	one round, then SIGKILL once its pages are read: the
 *			file is written after the process is gone
 *	sym_app wait	prints "ready PID", a round every 20 ms until SIGTERM
 *
 * A round: sym_app_printk() records ftrace:bprint and ftrace:print (whose
 * text is in the record, so it reads without the trace_printk formats a
 * killed process never gave), sym_app_fire() fires trev_test:tt_ints, and
 * the library dlopen()ed at the start (SYM_MOD) records from
 * sym_mod_printk(). The functions stay out of line and in .symtab.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

/* Kept whole under its own name: GCC could clone it (.constprop); clang knows no noclone. */
#ifdef __clang__
#define KEEP_WHOLE	__attribute__((noinline))
#else
#define KEEP_WHOLE	__attribute__((noinline, noclone))
#endif

/* Not a constant: trace_printk() formats it now, into an ftrace:print record. */
static const char *volatile print_fmt = "sym_app_print %d\n";

static KEEP_WHOLE void sym_app_printk(int i)
{
	trace_printk("sym_app_printk %d\n", i);
	trace_printk(print_fmt, i);
}

static KEEP_WHOLE void sym_app_fire(int i)
{
	trace_tt_ints(i, 0, 0);
	__asm__ volatile("" ::: "memory");	/* a return address inside, not a tail call */
}

/*
 * Until every CPU's buffer is read (trev record drains as pages come); 60 s
 * only guard against a hang (the script then fails on the missing events).
 */
static void wait_read(void)
{
	for (int tries = 0; tries < 6000; tries++) {
		long unread = 0;

		for (int cpu = 0;; cpu++) {
			char path[64], text[512], *p;
			ssize_t n;

			snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
			n = trev_read(path, text, sizeof(text) - 1);
			if (n < 0)
				break;
			text[n] = '\0';
			p = strstr(text, "entries: ");
			unread += p ? atol(p + 9) : 0;
		}
		if (!unread)
			break;
		usleep(10000);
	}
	/*
	 * And sent over the socket: the server consumes a page before it
	 * sends it, and nothing this process can see tells that the send is
	 * done (a product change: a count of replies sent, or named server
	 * threads). Still a pause, not a condition.
	 */
	usleep(100000);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit";
	void (*mod_printk)(int);
	void *mod = dlopen(SYM_MOD, RTLD_NOW);
	sigset_t term;

	if (!mod || !(mod_printk = (void (*)(int))dlsym(mod, "sym_mod_printk"))) {
		fprintf(stderr, "sym_app: %s\n", dlerror());
		return 1;
	}
	if (strcmp(mode, "wait") == 0) {
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &term, NULL);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		for (int i = 0;; i++) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			sym_app_printk(i);
			sym_app_fire(i);
			mod_printk(i);
			if (sigtimedwait(&term, NULL, &ts) == SIGTERM)
				exit(0);
		}
	}
	sym_app_printk(1);
	sym_app_fire(1);
	mod_printk(1);
	if (strcmp(mode, "kill") == 0) {
		wait_read();
		raise(SIGKILL);
	}
	return 0;
}
