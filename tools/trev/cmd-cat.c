/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* trev cat -p PID PATH: a file of a running process's tree, as cat shows it on tracefs. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "control/proto.h"
#include "remote.h"
#include "trev.h"

static const char cat_help[] =
	"usage: trev cat -p PID PATH\n"
	"\n"
	"Print PATH of process PID's trace tree (e.g. trace, events/enable,\n"
	"instances/foo/trace). Pipe files (trace_pipe) stream until interrupted.\n";

int cmd_cat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char buf[TREV_PROTO_MAX_PAYLOAD];
	struct trev_remote *r;
	pid_t pid = 0;
	ssize_t n;
	int c, h, ret = 0;

	while ((c = getopt_long(argc, argv, "+p:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cat_help, stdout);
			return 0;
		}
		if (c != 'p' || (pid = trev_parse_pid(optarg)) < 0) {
			fputs(cat_help, stderr);
			return 2;
		}
	}
	if (!pid || optind != argc - 1) {
		fputs(cat_help, stderr);
		return 2;
	}
	r = trev_attach(pid);
	if (!r)
		return 1;
	h = trev_remote_open(r, argv[optind], TREV_PO_READ);
	if (h < 0) {
		trev_err("%s: %s", argv[optind], strerror(-h));
		trev_remote_close(r);
		return 1;
	}
	while ((n = trev_remote_read(r, h, buf, sizeof(buf), -1)) > 0) {
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			break;
		fflush(stdout);
	}
	if (n < 0) {
		trev_err("%s: %s", argv[optind], strerror((int)-n));
		ret = 1;
	}
	trev_remote_close(r);
	return ret;
}
