// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program for the function tracer's scripts (tests/scripts/ftrace_*.sh,
 * fgraph_record.sh): calls the traced functions of ft_funcs.c in a fixed
 * order and checks their results; the scripts turn the tracer on
 * (TREV_WRITE) and record. With "loop", it prints "ready PID" and calls
 * ft_outer() until SIGTERM, checking each result (trev record -p).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ft_funcs.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int loop(void)
{
	long bad = 0;

	signal(SIGTERM, on_term);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; !stop; i = (i + 1) & 0xffff) {
		if (ft_outer(i) != (i + 1) * 2)
			bad++;
		if (!(i & 0xff))
			usleep(100);
	}
	if (bad)
		fprintf(stderr, "ft_app: %ld wrong results\n", bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	long sum = 0;

	if (argc > 1 && !strcmp(argv[1], "loop"))
		return loop();
	for (int i = 0; i < 3; i++)
		sum += ft_outer(i);			/* 2 + 4 + 6 */
	sum += ft_mix(1, 1, 1, 1, 1, 1);		/* 56 */
	sum += (long)ft_fma(1, 1, 1, 1, 1, 1, 1, 1);	/* 4 */
	sum += ft_spin(0) == 0x5a5a;			/* 1 */
	if (sum != 73) {
		fprintf(stderr, "ft_app: sum %ld, not 73\n", sum);
		return 1;
	}
	return 0;
}
