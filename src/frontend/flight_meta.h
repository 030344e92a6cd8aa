/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The flight recorder's metadata file (NAME.meta beside the region file
 * NAME): what a trace.dat needs that the ring buffer region does not hold,
 * written by the traced process (src/frontend/flight.c), read by `trev recover`
 * (tools/trev/flight_meta.c), which trusts none of it.
 *
 *   OFFSET  SIZE  MEANING
 *   0       4     magic "tvfm" (TREV_FLIGHT_META_MAGIC, little endian)
 *   4       4     version (TREV_FLIGHT_META_VERSION)
 *   8       4     number of entries
 *   12      4     0
 *   16      ...   the entries, one after another:
 *                   4  name length (1 .. TREV_FLIGHT_META_MAX_NAME)
 *                   4  data length
 *                   .  the name (no NUL in it, none after it)
 *                   .  the data
 *
 * Names, each once in a file (a reader refuses a file that repeats one):
 * a file of the tree by its path ("events/header_page",
 * "events/sched/foo/format", "printk_formats"); a directory's listing by
 * its path and a '/' ("events/ftrace/": one name per line); and the
 * process's own facts, named with '@': "@pid", "@start" (field 22 of
 * /proc/PID/stat, to tell a reused pid), "@comm", "@nr_cpus", as decimal
 * text. Integers are little endian (the file never leaves the machine).
 */
#ifndef TREV_FLIGHT_META_H
#define TREV_FLIGHT_META_H

#define TREV_FLIGHT_META_MAGIC		0x6d667674u	/* "tvfm" */
#define TREV_FLIGHT_META_VERSION	1u
#define TREV_FLIGHT_META_HDR		16u
#define TREV_FLIGHT_META_MAX		(64u << 20)	/* bytes of a whole file */
#define TREV_FLIGHT_META_MAX_ENTRIES	65536u
#define TREV_FLIGHT_META_MAX_NAME	4096u

#endif /* TREV_FLIGHT_META_H */
