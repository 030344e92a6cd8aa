/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record --probe (docs/probes.md, "Programs that do not link trev"):
 * the libtrev that a run's processes get through LD_PRELOAD, and whether a
 * probe definition's target is in a process at all.
 */
#ifndef TREV_REC_PROBE_H
#define TREV_REC_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * trev_preload_library() - the libtrev to preload: $TREV_LIBRARY when set,
 * else the one beside this trev (the build tree's, or LIBDIR/libtrev.so.N
 * of the prefix trev is installed in)
 * @path: receives it (@size bytes)
 * @why: receives, on failure, what was looked at (a sentence)
 * Return: 0, or -ENOENT with @why set.
 */
int trev_preload_library(char *path, size_t size, char *why, size_t why_size);

/*
 * trev_preload_env() - the LD_PRELOAD value for @lib: the user's
 * LD_PRELOAD (if any) first, then @lib; in a sanitizer build of trev the
 * sanitizer's runtime, which libtrev of that build needs loaded first, is
 * put before it all. Return: a malloc'd string, or NULL (no memory).
 */
char *trev_preload_env(const char *lib);

/*
 * trev_probe_target_absent() - whether none of process @pid's objects
 * holds the target of probe definition @def: no mapped file defines the
 * function SYMBOL (symbol tables .symtab and .dynsym), none is the object
 * MODULE, PATH is not mapped. A target this cannot judge (an address, a
 * malformed one) is taken as present: the refusal is then the process's.
 * Results per file are kept (@pid's maps are read each call).
 */
bool trev_probe_target_absent(pid_t pid, const char *def);

/* Free what trev_probe_target_absent() keeps. */
void trev_probe_targets_free(void);

#endif /* TREV_REC_PROBE_H */
