/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev ps: the processes that serve trev (of this user; root: of every
 * user), with their trev version, enabled events and whether a recorder
 * consumes their buffer, as `lttng list -u` lists applications. Read-only:
 * every process is asked over its control socket, and its buffer mapped
 * without consuming, as trev stat does.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trev/ring_buffer.h>

#include "control/proto.h"
#include "remote.h"
#include "ring_buffer/rb_shm.h"
#include "trev.h"

static const char ps_help[] =
	"usage: trev ps [-e]\n"
	"\n"
	"List the processes that serve trev: those of this user, every user's for\n"
	"root. For each: PID, its user, the trev version it runs, whether a recorder\n"
	"consumes its buffer (trev record), how many events it has enabled, and its\n"
	"command line.\n"
	"\n"
	"  -e, --events   also list each process's enabled events (set_event)\n";

/* The effective uid of process @pid (Uid: line), or -1. */
static long ps_uid(const char *pid)
{
	char path[64], line[256];
	long uid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %*u %ld", &uid) == 1)
			break;
	fclose(f);
	return uid;
}

/* The command line of @pid, its arguments separated by blanks, in @buf. */
static void ps_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	if (n <= 0)
		n = 0;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0' || !isprint((unsigned char)buf[i]))
			buf[i] = buf[i] ? '?' : ' ';
}

/* "yes" when a recorder consumes the top buffer, "no", or "?" when it cannot be seen. */
static const char *ps_recorded(struct trev_remote *r)
{
	struct trev_rb *rb;
	int fd, busyfd, ret;
	bool lent;

	if (trev_remote_version(r) < TREV_PROTO_RESTAGE)
		return "?";
	if (trev_remote_map(r, 0, &fd, &busyfd) < 0)
		return "?";
	if (busyfd >= 0)
		close(busyfd);
	ret = trev_rb_attach(&rb, fd);
	close(fd);
	if (ret < 0)
		return "?";
	lent = trev_rb_consumer_lent(rb);
	trev_rb_destroy(rb);
	return lent ? "yes" : "no";
}

static int ps_one(pid_t pid, uid_t uid, bool events)
{
	struct trev_remote *r = NULL;
	char why[512], cmd[256], version[32] = "?", *set = NULL;
	const char *banner;
	int n = 0;

	if (trev_remote_connect(pid, &r, why, sizeof(why)) < 0)
		return 0;	/* does not serve trev (or not to us): not listed */
	banner = trev_remote_banner(r);
	if (banner)
		sscanf(banner, "trev %31s", version);
	if (trev_remote_read_file(r, "set_event", &set) >= 0)
		for (const char *p = set; *p; p++)
			n += *p == '\n';
	ps_cmdline(pid, cmd, sizeof(cmd));
	printf("%7d %6u %-10s %-8s %6d  %s\n", (int)pid, (unsigned int)uid, version,
	       ps_recorded(r), n, cmd);
	if (events && set && *set) {
		for (char *line = strtok(set, "\n"); line; line = strtok(NULL, "\n"))
			printf("%40s%s\n", "", line);
	}
	free(set);
	trev_remote_close(r);
	return 1;
}

int cmd_ps(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool events = false, root = geteuid() == 0;
	struct dirent *de;
	DIR *proc;
	int c;

	while ((c = getopt_long(argc, argv, "+eh", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(ps_help, stdout);
			return 0;
		}
		if (c != 'e') {
			fputs(ps_help, stderr);
			return 2;
		}
		events = true;
	}
	if (optind < argc) {
		fputs(ps_help, stderr);
		return 2;
	}
	proc = opendir("/proc");
	if (!proc) {
		trev_err("/proc: %s", strerror(errno));
		return 1;
	}
	printf("%7s %6s %-10s %-8s %6s  %s\n", "PID", "UID", "TREV", "RECORDED", "EVENTS",
	       "COMMAND");
	while ((de = readdir(proc))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		long uid;

		if (*end || pid <= 0 || pid == getpid())
			continue;
		uid = ps_uid(de->d_name);
		if (uid < 0 || (!root && (uid_t)uid != geteuid()))
			continue;
		ps_one((pid_t)pid, (uid_t)uid, events);
	}
	closedir(proc);
	return fflush(stdout) ? 1 : 0;
}
