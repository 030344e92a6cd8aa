/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* trev write -p PID [-a] PATH TEXT: echo TEXT > PATH (>> with -a) in a running process. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"
#include "trev.h"

static const char write_help[] =
	"usage: trev write -p PID [-a] PATH TEXT\n"
	"\n"
	"Write TEXT to PATH of process PID's trace tree, as `echo TEXT > PATH`\n"
	"does on tracefs (-a, --append: as `>>`). A refused write prints the\n"
	"error and the tree's error_log entry, if it made one.\n";

int cmd_write(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "append", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trev_remote *r;
	char *before;
	int c, ret, append = 0;
	pid_t pid = 0;

	while ((c = getopt_long(argc, argv, "+p:ah", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(write_help, stdout);
			return 0;
		}
		if (c == 'a') {
			append = 1;
			continue;
		}
		if (c != 'p' || (pid = trev_parse_pid(optarg)) < 0) {
			fputs(write_help, stderr);
			return 2;
		}
	}
	if (!pid || optind != argc - 2) {
		fputs(write_help, stderr);
		return 2;
	}
	r = trev_attach(pid);
	if (!r)
		return 1;
	before = trev_error_log_read(r, argv[optind]);
	ret = trev_remote_write_file(r, argv[optind], argv[optind + 1], append);
	if (ret < 0) {
		trev_err("%s: %s", argv[optind], strerror(-ret));
		trev_show_error_log(r, argv[optind], before);
	}
	free(before);
	trev_remote_close(r);
	return ret < 0;
}
