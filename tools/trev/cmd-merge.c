/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev merge: trace.dat files of one machine's processes, recorded on one
 * clock, as the buffers of one version 7 file (dat_merge.c); what trev
 * record does at the end of a session of several processes, and the way to
 * join the per-process files a killed session left (docs/sessions.md).
 */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dat_merge.h"
#include "trev.h"

static const char merge_help[] =
	"usage: trev merge -o OUT FILE[=NAME]...\n"
	"\n"
	"Write OUT, a version 7 trace.dat with one buffer per FILE (trace.dat files\n"
	"trev wrote, on one clock): the first FILE's events are the top buffer, each\n"
	"other's a buffer named NAME (default: the file's name without .dat), as\n"
	"trace-cmd report and KernelShark show instances. Event formats are joined:\n"
	"one event has one id.\n";

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trev_merge_stats st;
	struct trev_merge_in *in;
	const char *out = NULL;
	char err[512], **names;
	int c, n, ret;

	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(merge_help, stdout);
			return 0;
		}
		if (c != 'o') {
			fputs(merge_help, stderr);
			return 2;
		}
		out = optarg;
	}
	n = argc - optind;
	if (!out || n < 1) {
		fputs(merge_help, stderr);
		return 2;
	}
	in = calloc((size_t)n, sizeof(*in));
	names = calloc((size_t)n, sizeof(*names));
	if (!in || !names) {
		trev_err("merge: out of memory");
		free(in);
		free(names);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		char *arg = argv[optind + i], *eq = strrchr(arg, '='), *base, *dot;

		if (eq) {
			*eq = '\0';
			names[i] = strdup(eq + 1);
		} else {
			names[i] = strdup(arg);
			if (names[i]) {
				base = basename(names[i]);
				memmove(names[i], base, strlen(base) + 1);
				dot = strrchr(names[i], '.');
				if (dot && !strcmp(dot, ".dat"))
					*dot = '\0';
			}
		}
		if (!names[i]) {
			trev_err("merge: out of memory");
			ret = 1;
			goto out_free;
		}
		in[i].path = arg;
		in[i].name = i ? names[i] : "";
	}
	ret = trev_dat_merge(out, in, n, &st, err, sizeof(err));
	if (ret) {
		trev_err("merge: %s", err);
		unlink(out);
		ret = 1;
		goto out_free;
	}
	trev_err("wrote %s (version 7, %d buffers, %u events, %llu pages, %llu records renumbered)",
		 out, n, st.events, (unsigned long long)st.pages, (unsigned long long)st.rewritten);
	if (st.unknown)
		trev_err("merge: %llu records of events their file has no format for: kept as "
			 "they were", (unsigned long long)st.unknown);
out_free:
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(in);
	return ret;
}
