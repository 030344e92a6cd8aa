/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * integ_check: the integrity checker as a program, for the script tests.
 *
 *	integ_check [-a] [-c] [-l LOST] [-n NAME] [-o] [-p FLOORS] COUNTS [TEXT...]
 *
 * COUNTS is the writer's "stream S written N" file; each TEXT (or stdin) is
 * ftrace-format text (trace, trace_pipe, TREV_OUTPUT, trace-cmd report),
 * one source each for the order check. -a: read + lost <= written instead
 * of ==; -c: check the COMM-PID column; -l: add LOST events reported
 * elsewhere (a non-consuming reader's stats); -p: each stream of the counts
 * file FLOORS must have been read as seq 0 .. k - 1 with k at least its
 * count there (the writers were stopped at a point not known in advance:
 * COUNTS is then an upper bound, with -a); -o: with -p, each thread's oldest
 * events may have been overwritten: read as seq L .. k - 1 instead, L the
 * thread's LOST count (overwrite mode). Prints the one-line summary
 * "NAME: written=W read=R lost=L bad=B reorder=O dup=D other=N"; exit 0
 * when every check holds, 1 when one fails, 2 on bad usage.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "integ_check.h"

static int feed_file(struct integ_check *ic, unsigned int source, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char buf[65536];
	size_t n;

	if (!f) {
		perror(path);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		integ_check_feed(ic, source, buf, n);
	if (f != stdin)
		fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	enum integ_relation rel = INTEG_EXACT;
	const char *name = "integ", *floors = NULL;
	struct integ_check *ic;
	int c, ret;

	ic = integ_check_new();
	while ((c = getopt(argc, argv, "acl:n:op:")) != -1) {
		switch (c) {
		case 'a':
			rel = INTEG_ATMOST;
			break;
		case 'c':
			integ_check_want_comm(ic, 1);
			break;
		case 'l':
			integ_check_lost(ic, strtoull(optarg, NULL, 10));
			break;
		case 'n':
			name = optarg;
			break;
		case 'o':
			integ_check_overwritten(ic, 1);
			break;
		case 'p':
			floors = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: integ_check [-a] [-c] [-l LOST] [-n NAME] [-o] [-p FLOORS] COUNTS "
				"[TEXT...]\n");
		return 2;
	}
	if (integ_check_expect_file(ic, argv[optind]) < 0) {
		fprintf(stderr, "integ_check: %s: no counts\n", argv[optind]);
		return 2;
	}
	if (floors && integ_check_prefix_file(ic, floors) < 0) {
		fprintf(stderr, "integ_check: %s: no counts\n", floors);
		return 2;
	}
	if (optind + 1 == argc) {
		if (feed_file(ic, 0, "-"))
			return 2;
	}
	for (int i = optind + 1; i < argc; i++)
		if (feed_file(ic, (unsigned int)(i - optind - 1), argv[i]))
			return 2;
	ret = integ_check_verdict(ic, name, rel, stdout);
	integ_check_free(ic);
	return ret;
}
