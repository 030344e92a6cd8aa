/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* trev ls -p PID [PATH]: a directory of a running process's tree. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "remote.h"
#include "trev.h"

static const char ls_help[] =
	"usage: trev ls -p PID [PATH]\n"
	"\n"
	"List the directory PATH (default: the top) of process PID's trace tree;\n"
	"directories end with '/'.\n";

static int ls_one(const char *name, int is_dir, unsigned int mode, void *arg)
{
	(void)mode, (void)arg;
	printf("%s%s\n", name, is_dir ? "/" : "");
	return 0;
}

int cmd_ls(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "";
	struct trev_remote *r;
	pid_t pid = 0;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+p:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(ls_help, stdout);
			return 0;
		}
		if (c != 'p' || (pid = trev_parse_pid(optarg)) < 0) {
			fputs(ls_help, stderr);
			return 2;
		}
	}
	if (!pid || optind < argc - 1) {
		fputs(ls_help, stderr);
		return 2;
	}
	if (optind == argc - 1)
		path = argv[optind];
	r = trev_attach(pid);
	if (!r)
		return 1;
	ret = trev_remote_readdir(r, path, ls_one, NULL);
	if (ret < 0)
		trev_err("%s: %s", *path ? path : ".", strerror(-ret));
	trev_remote_close(r);
	return ret < 0;
}
