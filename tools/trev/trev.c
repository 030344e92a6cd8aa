/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The trev command: `trev <subcommand> [options]`, one cmd-<name>.c each. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control/proto.h"
#include "remote.h"
#include "trev.h"

#ifndef TREV_VERSION_STRING
#define TREV_VERSION_STRING "unknown"
#endif

static const struct trev_cmd commands[] = {
	{ "cat", cmd_cat, "print a file of a running process's tree" },
	{ "write", cmd_write, "write to a file of a running process's tree" },
	{ "ls", cmd_ls, "list a directory of a running process's tree" },
	{ "mount", cmd_mount, "mount a running process's tree (FUSE) until Ctrl-C" },
	{ "stat", cmd_stat, "buffers, entries and losses per CPU and per thread" },
	{ "record", cmd_record, "record a program's events into a trace.dat file" },
	{ "probe", cmd_probe, "print a program's calls of functions, with their arguments" },
	{ "report", cmd_report, "print a trace.dat file as the trace text" },
	{ "list", cmd_list, "list the events of a process, program or library" },
	{ "recover", cmd_recover, "a dead program's flight recorder file into trace.dat" },
	{ "convert", cmd_convert, "a trace.dat file as a CTF trace (babeltrace2) or JSON" },
	{ "ps", cmd_ps, "the processes that serve trev, and whether they are recorded" },
	{ "merge", cmd_merge, "trace.dat files of several processes as one, a buffer each" },
};

void trev_err(const char *fmt, ...)
{
	va_list ap;

	fputs("trev: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int trev_check_dat_file(const char *cmd, const char *file)
{
	/* A trace.dat file starts with these 10 bytes, then its version as text. */
	static const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char head[sizeof(magic) + 8] = { 0 };
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		trev_err("%s: %s: %s", cmd, file, strerror(errno));
		return -1;
	}
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n < (ssize_t)sizeof(magic) || memcmp(head, magic, sizeof(magic))) {
		trev_err("%s: %s: not a trace.dat file", cmd, file);
		return -1;
	}
	if (strcmp(head + sizeof(magic), "6") && strcmp(head + sizeof(magic), "7")) {
		trev_err("%s: %s: trace.dat version '%.4s' is not supported (6 and 7 are)", cmd,
			 file, head + sizeof(magic));
		return -1;
	}
	return 0;
}

pid_t trev_parse_pid(const char *arg)
{
	char *end;
	long pid;

	errno = 0;
	pid = arg ? strtol(arg, &end, 10) : 0;
	if (!arg || errno || *end || pid <= 0 || pid != (pid_t)pid) {
		trev_err("-p takes a process id, not '%s'", arg ? arg : "");
		return -1;
	}
	return (pid_t)pid;
}

struct trev_remote *trev_attach(pid_t pid)
{
	struct trev_remote *r = NULL;
	char why[512] = "";
	int ret = trev_remote_connect(pid, &r, why, sizeof(why));

	if (ret < 0) {
		trev_err("%s", why[0] ? why : strerror(-ret));
		return NULL;
	}
	return r;
}

/* The error_log of the instance @path lies in (the top one outside instances/), in @log. */
static void trev_error_log_path(const char *path, char *log, size_t size)
{
	const char *inst = strstr(path, "instances/");
	int n = 0;

	if (inst) {
		const char *end = strchr(inst + 10, '/');

		n = end ? (int)(end - path) + 1 : 0;
	}
	snprintf(log, size, "%.*serror_log", n, path);
}

char *trev_error_log_read(struct trev_remote *r, const char *path)
{
	char log_path[4200], *text = NULL;

	trev_error_log_path(path, log_path, sizeof(log_path));
	if (trev_remote_read_file(r, log_path, &text) < 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* Is @entry (@len bytes, from its '[' to the next entry) one of @log's entries? */
static bool trev_error_log_has(const char *log, const char *entry, size_t len)
{
	for (const char *p = log; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (*p == '[' && !strncmp(p, entry, len) && (p[len] == '[' || !p[len]))
			return true;
	return false;
}

char *trev_error_log_new(struct trev_remote *r, const char *path, const char *before)
{
	char *text = trev_error_log_read(r, path), *out;
	const char *p = text;
	size_t used = 0;

	out = calloc(1, text ? strlen(text) + 1 : 1);
	/*
	 * Entries start with '[' at a line's start (the time stamp, unique to
	 * each); only those the write made are kept, not older ones that are
	 * no business of this refusal.
	 */
	while (out && p && *p) {
		const char *next = p;
		size_t len;

		do {
			next = strchr(next, '\n');
			next = next ? next + 1 : p + strlen(p);
		} while (*next && *next != '[');
		len = (size_t)(next - p);
		if (*p == '[' && !(before && trev_error_log_has(before, p, len))) {
			memcpy(out + used, p, len);
			used += len;
		}
		p = next;
	}
	free(text);
	return out;
}

void trev_show_error_log(struct trev_remote *r, const char *path, const char *before)
{
	char *text = trev_error_log_new(r, path, before);

	if (text)
		fputs(text, stderr);
	free(text);
}

/*
 * The reply time-out of --timeout or TREV_TIMEOUT (@what), in seconds:
 * a decimal number >= 0, 0 waiting for ever (docs/control-socket.md).
 * Return: 0, or -1 after a message.
 */
static int trev_set_timeout(const char *what, const char *arg)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	if (errno || end == arg || *end || !(s >= 0 && s <= 86400)) {
		trev_err("%s: '%s' is not a number of seconds from 0 (no time-out) to 86400",
			 what, arg);
		return -1;
	}
	/* A positive time-out under 1 ms would be none at all: round it up. */
	trev_remote_set_timeout(s > 0 && s < 0.001 ? 1 : (int)(s * 1000 + 0.5));
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: trev [--timeout=SECONDS] <command> [options]\n"
		     "       trev help [<command>]\n"
		     "       trev --version\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n`trev help <command>` (or `trev <command> --help`) describes each;\n"
		     "`man trev-<command>` too, where the man pages are installed.\n"
		     "--timeout (or TREV_TIMEOUT): how long a process may take to answer a\n"
		     "request beyond the request's own wait, in seconds (default %d, 0 for ever).\n",
		TREV_REMOTE_TIMEOUT_MS / 1000);
}

/*
 * The command's version, and where a traced process's library version is
 * seen: its control socket's HELLO banner, "trev X.Y.Z pid N" (src/control/).
 */
static int version(void)
{
	printf("trev %s\n"
	       "control protocol versions %u to %u; trace.dat versions 6 and 7\n"
	       "A traced process's library says its version when trev connects, as\n"
	       "\"trev X.Y.Z pid N\": trev ps shows it (TREV), trev stat on its first line.\n",
	       TREV_VERSION_STRING, TREV_PROTO_VERSION_MIN, TREV_PROTO_VERSION);
	return fflush(stdout) ? 1 : 0;
}

static const struct trev_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* `trev help [CMD]`: `trev --help`, or `trev CMD --help`. */
static int help(int argc, char **argv)
{
	const struct trev_cmd *cmd;
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		trev_err("help takes one command, not %d words; see trev --help", argc - 1);
		return 2;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		trev_err("help: '%s' is not a trev command; see trev --help", argv[1]);
		return 2;
	}
	args[0] = argv[1];
	return cmd->fn(2, args);
}

int main(int argc, char **argv)
{
	const char *env = getenv("TREV_TIMEOUT");
	const struct trev_cmd *cmd;

	if (env && *env && trev_set_timeout("TREV_TIMEOUT", env))
		return 2;
	if (argc >= 2 && !strncmp(argv[1], "--timeout", 9)) {
		const char *arg = NULL;
		int used = 1;

		if (argv[1][9] == '=')
			arg = argv[1] + 10;
		else if (!argv[1][9] && argc >= 3)
			arg = argv[2], used = 2;
		if (!arg || (argv[1][9] && argv[1][9] != '=')) {
			usage(stderr);
			return 2;
		}
		if (trev_set_timeout("--timeout", arg))
			return 2;
		argc -= used;
		argv += used;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version"))
		return version();
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	cmd = find_command(argv[1]);
	if (cmd)
		return cmd->fn(argc - 1, argv + 1);
	trev_err("'%s' is not a trev command; see trev --help", argv[1]);
	return 2;
}
