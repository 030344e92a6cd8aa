/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev cat -p PID PATH: a file of a running process's tree, as cat shows it
 * on tracefs. per_cpu/cpuN/trace_pipe_raw of the top instance is read from
 * the process's ring buffer mapped here (MAP), not page by page over the
 * socket; the events of other CPUs this reader staged go back to the
 * process before it lets go (RESTAGE, docs/ring-buffer.md "Shared memory").
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trev/ring_buffer.h>

#include "control/proto.h"
#include "remote.h"
#include "remote_source.h"
#include "ring_buffer/rb_shm.h"
#include "trev.h"

static const char cat_help[] =
	"usage: trev cat -p PID PATH\n"
	"\n"
	"Print PATH of process PID's trace tree (e.g. trace, events/enable,\n"
	"instances/foo/trace). Pipe files (trace_pipe) stream until interrupted.\n";

/* A READ over the socket waits this long at most: its reply has a deadline beyond it. */
#define CAT_SLICE_MS	1000

/* A wait for pages ends this often, to see a signal or the process's end. */
#define CAT_WAIT_MS	100

static volatile sig_atomic_t cat_signal;

static void cat_on_signal(int sig)
{
	cat_signal = sig;
}

/* Is @path a CPU's trace_pipe_raw of the top instance? Then *@cpu is it. */
static bool cat_raw_cpu(const char *path, int *cpu)
{
	static const char dir[] = "per_cpu/cpu";
	const char *p = path + strlen(dir);
	char *end;
	long v;

	/* Only the tree's own spelling: no sign, space or leading zero. */
	if (strncmp(path, dir, strlen(dir)) || !isdigit((unsigned char)p[0]) ||
	    (p[0] == '0' && isdigit((unsigned char)p[1])))
		return false;
	v = strtol(p, &end, 10);
	if (v > 65535 || strcmp(end, "/trace_pipe_raw"))
		return false;
	*cpu = (int)v;
	return true;
}

/*
 * Hand the events of other CPUs staged here back to the process, so that
 * its readers still read them. Return: 0, or a negative errno (reported:
 * what was not handed back is counted lost by the process).
 */
static int cat_restage(struct trev_remote *r, struct trev_rb *rb)
{
	int ret = trev_remote_stage_move(r, rb, false);

	if (ret < 0)
		trev_err("handing other CPUs' events back: %s (the process counts them lost)",
			 strerror(-ret));
	return ret;
}

/*
 * per_cpu/cpu@cpu/trace_pipe_raw from the mapped buffer, until a signal or
 * the process's end. Return: the exit status, or -1 when the process does
 * not lend its buffer (the caller reads over the socket).
 */
static int cat_raw_mapped(struct trev_remote *r, int cpu)
{
	static unsigned char page[TREV_RB_PAGE_SIZE];
	struct sigaction sa = { .sa_handler = cat_on_signal };
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct trev_rb *rb;
	int fd, busyfd, ret;
	bool gone = false;

	if (trev_remote_version(r) < TREV_PROTO_RESTAGE)
		return -1;	/* it could not take staged events back */
	if (trev_remote_map(r, TREV_MAP_CONSUME, &fd, &busyfd) < 0)
		return -1;
	ret = trev_rb_attach(&rb, fd);
	close(fd);
	if (ret == 0 && busyfd >= 0)
		trev_rb_attach_busy(rb, busyfd);
	if (busyfd >= 0)
		close(busyfd);
	if (ret < 0) {
		trev_err("per_cpu/cpu%d/trace_pipe_raw: mapping the buffer: %s", cpu,
			 strerror(-ret));
		return 1;
	}
	if (cpu >= trev_rb_nr_cpus(rb)) {
		trev_rb_destroy(rb);
		trev_err("per_cpu/cpu%d/trace_pipe_raw: %s", cpu, strerror(ENOENT));
		return 1;
	}
	/* The events the process had staged per CPU: every CPU's stream starts with them. */
	ret = trev_remote_stage_move(r, rb, true);
	if (ret < 0) {
		trev_err("taking the process's staged events: %s", strerror(-ret));
		cat_restage(r, rb);
		trev_rb_destroy(rb);
		return 1;
	}
	/* No SA_RESTART: a signal ends the futex wait at once. */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);

	ret = 0;
	while (!cat_signal) {
		int got = trev_rb_read_page_cpu(rb, cpu, page);

		if (got == 1) {
			if (fwrite(page, 1, sizeof(page), stdout) != sizeof(page) || fflush(stdout))
				break;	/* the reader of our output is gone */
			continue;
		}
		if (got < 0 && got != -EAGAIN) {
			trev_err("per_cpu/cpu%d/trace_pipe_raw: %s", cpu, strerror(-got));
			ret = 1;
			break;
		}
		if (got == -EAGAIN)
			continue;
		if (gone)
			break;	/* its last events are out */
		if (trev_remote_hung_up(r)) {
			/* It died: what it committed is still here; nothing of
			 * its readers is left to take staged events back. */
			trev_rb_writers_gone(rb);
			gone = true;
			continue;
		}
		trev_rb_wait_cpu(rb, cpu, CAT_WAIT_MS);
	}
	if (!gone && cat_restage(r, rb) < 0)
		ret = 1;
	trev_rb_destroy(rb);
	return ret;
}

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
	int c, h, cpu, ret = 0;

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
	if (cat_raw_cpu(argv[optind], &cpu) && (ret = cat_raw_mapped(r, cpu)) >= 0) {
		trev_remote_close(r);
		if (cat_signal) {
			/* As the socket's cat would have ended: by the signal. */
			signal(cat_signal, SIG_DFL);
			raise(cat_signal);
		}
		return ret;
	}
	ret = 0;
	h = trev_remote_open(r, argv[optind], TREV_PO_READ);
	if (h < 0) {
		trev_err("%s: %s", argv[optind], strerror(-h));
		trev_remote_close(r);
		return 1;
	}
	/*
	 * A pipe file streams until interrupted: wait in slices, so that
	 * every reply has a deadline (trev_remote_timeout() beyond the
	 * slice) and a process that stopped answering is noticed.
	 */
	while ((n = trev_remote_read(r, h, buf, sizeof(buf), CAT_SLICE_MS)) > 0 ||
	       n == -EAGAIN) {
		if (n < 0)
			continue;
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
