/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev probe: the one-command form of `trev record --stream --probe DEF`:
 * a program's calls of the functions named, with their arguments, printed
 * as they happen (docs/cli/trev-probe.md).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trev.h"

static const char probe_help[] =
	"usage: trev probe [-o FILE] DEF... -- COMMAND ARGS...\n"
	"       trev probe [-o FILE] DEF... -p PID\n"
	"\n"
	"Define the probe events DEF (the kernel's uprobe_events syntax:\n"
	"'p:app/req handle_request path=+0(%di):string', 'r:app/reqr handle_request\n"
	"rv=$retval:s32') in COMMAND and every process of its run, which preload\n"
	"libtrev (they need not link it), and print each hit on stdout as it happens,\n"
	"as trev report prints it. The same as\n"
	"  trev record --stream --probe DEF... [-o FILE] -- COMMAND ARGS...\n"
	"\n"
	"  -o FILE    also write the recording to FILE (a trace.dat file)\n"
	"  -p PID     a running process instead, which must link trev (its control\n"
	"             socket); Ctrl-C to stop; its probes are removed at the end\n"
	"\n"
	"Exit status: COMMAND's; 1 on an error of trev's own (a refused DEF: its\n"
	"error_log entry with the caret), 2 on a usage error.\n";

int cmd_probe(int argc, char **argv)
{
	/* record --stream, a --probe per DEF, -o, -p, --, COMMAND... */
	char **rargv = calloc((size_t)argc * 2 + 4, sizeof(*rargv));
	int n = 0, i, ndefs = 0, ret;
	bool target = false;

	if (!rargv) {
		trev_err("probe: out of memory");
		return 1;
	}
	rargv[n++] = "record";
	rargv[n++] = "--stream";
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(probe_help, stdout);
			free(rargv);
			return 0;
		}
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "-p")) {
			if (i + 1 == argc)
				goto usage;
			target |= argv[i][1] == 'p';
			rargv[n++] = argv[i];
			rargv[n++] = argv[++i];
		} else if (argv[i][0] == '-') {
			trev_err("probe: unknown option '%s' (trev record takes the others)", argv[i]);
			goto usage;
		} else {
			rargv[n++] = "--probe";
			rargv[n++] = argv[i];
			ndefs++;
		}
	}
	if (!ndefs || (i < argc) == target || (i < argc && i + 1 == argc)) {
		trev_err(!ndefs ? "probe: give a probe definition" :
			 target && i < argc ? "probe: -p and a COMMAND: give one" :
			 "probe: give -- COMMAND or -p PID");
		goto usage;
	}
	for (; i < argc; i++)
		rargv[n++] = argv[i];
	rargv[n] = NULL;
	ret = cmd_record(n, rargv);
	free(rargv);
	return ret;
usage:
	fputs(probe_help, stderr);
	free(rargv);
	return 2;
}
