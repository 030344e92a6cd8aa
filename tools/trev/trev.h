/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The trev command: its subcommands and what they share. */
#ifndef TREV_TOOLS_TREV_H
#define TREV_TOOLS_TREV_H

#include <stdio.h>
#include <sys/types.h>

struct trev_remote;

/* One subcommand: `trev <name> ...`; @fn gets argv from the name on. */
struct trev_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;	/* one line for `trev --help` */
};

int cmd_cat(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_mount(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_probe(int argc, char **argv);

/*
 * trev_recover_files() - what trev recover does once its options are read:
 * REGION (and REGION.meta) into trace.dat file @output of @version,
 * errors through trev_err(), the summary on @log (the fuzzer's way in).
 * Return: the exit status, 0 or 1.
 */
int trev_recover_files(const char *region, const char *output, int version, FILE *log);

/* Print "trev: <message>" on stderr. */
void trev_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Our own checks of a trace.dat file before libtracecmd reads it, for clear
 * messages: it opens, starts with the magic, and is version 6 or 7.
 * Return: 0, or -1 after an error message naming @cmd and @file.
 */
int trev_check_dat_file(const char *cmd, const char *file);
/*
 * trev_check_output() - @path may be written: no symlink on its way that
 * another user planted in a sticky directory (base/out_file.h).
 * Return: 0, or -1 after "trev: PATH: why" naming the link.
 */
int trev_check_output(const char *path);
/* Parse a -p argument. Return: the pid, or -1 after an error message. */
pid_t trev_parse_pid(const char *arg);
/* Attach to @pid. Return: the connection, or NULL after an error message. */
struct trev_remote *trev_attach(pid_t pid);
/*
 * trev_error_log_read() - the error_log of the instance @path lies in (the
 * top one outside instances/), read before a write to @path.
 * Return: malloc'd text, or NULL (none, or it cannot be read).
 */
char *trev_error_log_read(struct trev_remote *r, const char *path);
/*
 * trev_show_error_log() - after a refused write to @path: print, on
 * stderr, the entries of that error_log that are not in @before (its text
 * before the write, trev_error_log_read()): those the write made, if any.
 */
void trev_show_error_log(struct trev_remote *r, const char *path, const char *before);
/*
 * trev_error_log_new() - those entries, as text ("" when the write made
 * none). Return: malloc'd text, or NULL (no memory).
 */
char *trev_error_log_new(struct trev_remote *r, const char *path, const char *before);

#endif /* TREV_TOOLS_TREV_H */
