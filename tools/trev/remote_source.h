/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A trace.dat source (<trev/tracedat.h>) on a running process's tree, over its control socket. */
#ifndef TREV_TOOLS_REMOTE_SOURCE_H
#define TREV_TOOLS_REMOTE_SOURCE_H

#include <trev/tracedat.h>

struct trev_remote;

/*
 * The CPUs one connection can read: each keeps its trace_pipe_raw open,
 * and a connection holds at most TREV_PROTO_MAX_HANDLES (64) files; the
 * rest are for control files.
 */
#define TREV_REMOTE_MAX_CPUS	56

struct trev_remote_source {
	struct trev_dat_source src;		/* what trev_dat_open() takes */
	struct trev_remote *r;			/* the connection; not owned */
	int raw[TREV_REMOTE_MAX_CPUS];		/* per_cpu/cpuN/trace_pipe_raw handle, 0: not open */
};

/*
 * trev_remote_source_init() - a source reading @r's top instance: control
 * files with READ, directories with READDIR, pages from each CPU's
 * trace_pipe_raw opened once, non-blocking, and kept open. No symbol
 * callback: trace_printk() call sites show in hex (docs/cli/trev-record.md).
 */
void trev_remote_source_init(struct trev_remote_source *rs, struct trev_remote *r);

/* Close the page handles (the connection stays). */
void trev_remote_source_close(struct trev_remote_source *rs);

#endif /* TREV_TOOLS_REMOTE_SOURCE_H */
