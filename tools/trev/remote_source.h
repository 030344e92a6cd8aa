/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A trace.dat source (<trev/tracedat.h>) on a running process's tree, over its control socket. */
#ifndef TREV_TOOLS_REMOTE_SOURCE_H
#define TREV_TOOLS_REMOTE_SOURCE_H

#include <trev/tracedat.h>

#include "remote_symbols.h"

struct trev_remote;
struct trev_rb;

/*
 * The CPUs one connection can read: each keeps its trace_pipe_raw open,
 * and a connection holds at most TREV_PROTO_MAX_HANDLES (64) files; the
 * rest are for control files.
 */
#define TREV_REMOTE_MAX_CPUS	56

/* Pages asked for in one READ of a CPU's trace_pipe_raw (the server gathers them). */
#define TREV_REMOTE_BATCH	64

/* The pages of one CPU's last READ, handed out one by one. */
struct trev_remote_batch {
	unsigned char *pages;			/* TREV_REMOTE_BATCH pages, malloc'd on first use */
	unsigned int nr, next;			/* pages in it, the next one to hand out */
};

struct trev_remote_source {
	struct trev_dat_source src;		/* what trev_dat_open() takes */
	struct trev_remote *r;			/* the connection; not owned */
	int raw[TREV_REMOTE_MAX_CPUS];		/* per_cpu/cpuN/trace_pipe_raw handle, 0: not open */
	struct trev_remote_batch batch[TREV_REMOTE_MAX_CPUS];
	struct trev_remote_symbols syms;	/* the process's code addresses to names */
	struct trev_rb *shm;			/* its ring buffer, mapped (MAP), or NULL */
	bool busy_mapped;			/* with shm: its writers' busy words too */
};

/*
 * trev_remote_source_init() - a source reading @r's top instance: control
 * files with READ, directories with READDIR, pages from each CPU's
 * trace_pipe_raw opened once, non-blocking, and kept open, up to
 * TREV_REMOTE_BATCH pages per READ; code addresses named from process
 * @pid's mappings and files (remote_symbols.h), whose maps are read now.
 */
void trev_remote_source_init(struct trev_remote_source *rs, struct trev_remote *r, pid_t pid);

/*
 * trev_remote_source_map() - read pages from the process's ring buffer
 * mapped into this process (MAP with TREV_MAP_CONSUME on the source's
 * connection, then trev_rb_attach()), not over the socket: the process
 * copies nothing, and the pages stay readable after it died.
 * The process's busy words come too where it has them (rs->busy_mapped),
 * so that each CPU's events keep their time order. The events the process
 * had staged per CPU come first (UNSTAGE, protocol 5), and
 * trev_remote_source_close() hands back those staged here and not read
 * (RESTAGE).
 * Return: 0, or a negative errno (the source then reads over the socket).
 */
int trev_remote_source_map(struct trev_remote_source *rs);

/*
 * trev_remote_stage_move() - move staged events between the process and
 * @rb, the buffer this connection consumes, mapped (protocol 5): @take,
 * the process's into @rb (UNSTAGE, right after MAP: they are older than
 * anything left in its buffers); else @rb's back to the process (RESTAGE),
 * before the consuming position is let go.
 * Return: 0 (also with an older process, which keeps its own), or a
 * negative errno: what did not move the process counts lost at the return.
 */
int trev_remote_stage_move(struct trev_remote *r, struct trev_rb *rb, bool take);

/* Close the page handles, free the batches and the symbols (the connection stays). */
void trev_remote_source_close(struct trev_remote_source *rs);

#endif /* TREV_TOOLS_REMOTE_SOURCE_H */
