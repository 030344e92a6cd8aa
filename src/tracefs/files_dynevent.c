/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dynamic_events (the kernel's trace_dynevent.c): one file for every kind of
 * event defined at run time, each line's first letters naming its kind:
 * synthetic events ("s:", src/trigger/synth.c) and probes ("p", "r",
 * src/probe/: a PATH target a uprobe, else a kprobe, as the kernel tells
 * them); the kernel's other kinds (e:, f:, t:) are refused by name. Also
 * uprobe_events and kprobe_events, the probes' own files (docs/probes.md; the rows
 * of docs/tracefs.md).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "events/events_internal.h"
#include "probe/probe.h"
#include "tracefs/tracefs_internal.h"
#include "trigger/synth.h"

/*
 * A kind of dynamic event: its create() takes a line that starts with its
 * prefix (-ECANCELED: not its), remove() an event by system (NULL: any)
 * and name (-ENOENT: none of its), show() lists its events as they are
 * written, release_all() removes them all or none (-EBUSY).
 */
struct dyn_kind {
	int (*create)(const char *line, struct trev_synth_error *err);
	int (*remove)(const char *system, const char *name);
	int (*show)(struct trev_buf *out);
	int (*release_all)(void);
};

/* The probes' row: their create() is called apart (dyn_command()), for its error's subsystem. */
static int dyn_probe_create(const char *line, struct trev_synth_error *err)
{
	(void)line;
	(void)err;
	return -ECANCELED;
}

static int dyn_probe_remove(const char *system, const char *name)
{
	return trev__probe_remove(system, name, TREV_PROBE_DYNAMIC);
}

static int dyn_probe_show(struct trev_buf *out)
{
	return trev__probe_show(out, TREV_PROBE_DYNAMIC);
}

static int dyn_probe_release_all(void)
{
	return trev__probe_release_all(TREV_PROBE_DYNAMIC);
}

static const struct dyn_kind dyn_kinds[] = {
	{ trev__synth_dyn_create, trev__synth_dyn_remove, trev__synth_dyn_show,
	  trev__synth_release_all },
	{ dyn_probe_create, dyn_probe_remove, dyn_probe_show, dyn_probe_release_all },
};

#define DYN_NR_KINDS	(sizeof(dyn_kinds) / sizeof(dyn_kinds[0]))

/* The kernel's kinds trev does not have: what the line's first letter names. */
static const char *dyn_unsupported(char c)
{
	switch (c) {
	case 'e':
		return "eprobe events (e:) are not supported";
	case 'f':
	case 't':
		return "fprobe events (f:, t:) are the kernel's: not supported in a process";
	default:
		return "Unknown dynamic event type: only s:, p: and r: are supported";
	}
}

/* `echo > dynamic_events`: every event of every kind goes, or none when one is busy. */
static int dyn_open(struct trev_file *f)
{
	int ret = 0;

	if (!tfs_writable(f) || !(f->flags & O_TRUNC) || (f->flags & O_APPEND))
		return 0;
	for (size_t k = 0; k < DYN_NR_KINDS && !ret; k++)
		ret = dyn_kinds[k].release_all();
	return ret;
}

static int dyn_show(struct trev_file *f, struct trev_buf *out)
{
	int ret = 0;

	(void)f;
	for (size_t k = 0; k < DYN_NR_KINDS && !ret; k++)
		ret = dyn_kinds[k].show(out);
	return ret;
}

/*
 * The kernel's dyn_event_release(): "-:[SYSTEM/]EVENT" or "!KIND:[SYSTEM/]EVENT"
 * (what follows the first word is ignored). Return: 0, -ENOENT, -EBUSY or -EINVAL.
 */
static int dyn_remove(const char *line)
{
	char word[2 * TFS_NAME_MAX + 8], *event, *slash;
	const char *system = NULL;
	size_t len = strcspn(line, " \t");
	int ret = -ENOENT;

	if (len >= sizeof(word))
		return -ENOENT;	/* no event has so long a name */
	memcpy(word, line, len);
	word[len] = '\0';
	if (word[0] == '-') {
		if (word[1] != ':')
			return -EINVAL;
		event = word + 2;
	} else {
		event = strchr(word, ':');
		if (!event)
			return -EINVAL;
		event++;
	}
	slash = strchr(event, '/');
	if (slash) {
		*slash = '\0';
		system = event;
		event = slash + 1;
	}
	if (!system && !*event)
		return -EINVAL;
	for (size_t k = 0; k < DYN_NR_KINDS && ret == -ENOENT; k++)
		ret = dyn_kinds[k].remove(system, event);
	return ret;
}

/*
 * A probe's line (src/probe/) of @file: its errors logged as the kernel's
 * trace_kprobe or trace_uprobe. Return: -ECANCELED when it is not one.
 */
static int dyn_probe_command(struct trev_file *f, const char *line, enum trev_probe_file file)
{
	struct trev_probe_error *perr = calloc(1, sizeof(*perr));
	const char *subsystem = NULL;
	int ret;

	if (!perr)
		return -ENOMEM;
	ret = trev__probe_command(line, file, perr, &subsystem);
	if (ret && ret != -ECANCELED && perr->msg)
		trev__tracing_log_err(f->loc.tr, subsystem, perr->cmd, perr->pos, "%s", perr->msg);
	free(perr);
	return ret;
}

/* One line (the kernel's create_dyn_event()). */
static int dyn_command(struct trev_file *f, char *line)
{
	struct trev_synth_error err = { NULL, 0, line };
	int ret = -ECANCELED;

	while (isspace((unsigned char)*line))
		line++;
	if (!*line)
		return 0;
	if (line[0] == '-' || line[0] == '!') {
		ret = dyn_remove(line);
		if (ret == -EINVAL)
			trev__tracing_log_err(f->loc.tr, "dynamic_events", line, 0, "%s",
					      "Removal must be of the form: -:[<group>/]<event>");
		return ret;
	}
	ret = dyn_probe_command(f, line, TREV_PROBE_DYNAMIC);
	if (ret != -ECANCELED)
		return ret;
	for (size_t k = 0; k < DYN_NR_KINDS && ret == -ECANCELED; k++)
		ret = dyn_kinds[k].create(line, &err);
	if (ret == -ECANCELED) {
		trev__tracing_log_err(f->loc.tr, "dynamic_events", line, 0, "%s",
				      dyn_unsupported(line[0]));
		return -EINVAL;
	}
	/* As the kernel: a synthetic event's errors are logged as synthetic_events'. */
	if (ret && err.msg)
		trev__tracing_log_err(f->loc.tr, "synthetic_events", err.cmd, err.pos, "%s",
				      err.msg);
	return ret;
}

/*
 * Each line is one command, what follows '#' a comment (the kernel's
 * trace_parse_run_command()); the first refused line ends the write with
 * its error, and the lines before it stay done.
 */
static ssize_t dyn_write(struct trev_file *f, const char *buf, size_t size)
{
	char *copy = strndup(buf, size), *save = copy, *line;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	while (!ret && (line = strsep(&save, "\n"))) {
		line[strcspn(line, "#")] = '\0';
		ret = dyn_command(f, line);
	}
	free(copy);
	return ret ? ret : (ssize_t)size;
}

const struct tfs_fops trev__dynamic_events_fops = {
	.open = dyn_open,
	.show = dyn_show,
	.write = dyn_write,
};

/* ------------------------------------------------------------------ */
/* uprobe_events and kprobe_events: the probes' own files              */

/* "-:[GRP/]EVENT" (the kernel's create_or_delete_trace_uprobe()). */
static int probe_file_remove(const char *line, enum trev_probe_file file)
{
	char word[2 * TFS_NAME_MAX + 8], *event, *slash;
	const char *group = NULL;
	size_t len = strcspn(line, " \t");

	if (line[1] != ':' || len >= sizeof(word))
		return -EINVAL;
	memcpy(word, line, len);
	word[len] = '\0';
	event = word + 2;
	slash = strchr(event, '/');
	if (slash) {
		*slash = '\0';
		group = event;
		event = slash + 1;
	}
	if (!group && !*event)
		return -EINVAL;
	return trev__probe_remove(group, event, file);
}

static ssize_t probe_file_write(struct trev_file *f, const char *buf, size_t size,
				enum trev_probe_file file)
{
	const char *subsystem = file == TREV_PROBE_KPROBE ? "trace_kprobe" : "trace_uprobe";
	char *copy = strndup(buf, size), *save = copy, *line;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	while (!ret && (line = strsep(&save, "\n"))) {
		line[strcspn(line, "#")] = '\0';
		while (isspace((unsigned char)*line))
			line++;
		if (!*line)
			continue;
		if (*line == '-') {
			ret = probe_file_remove(line, file);
			continue;
		}
		ret = dyn_probe_command(f, line, file);
		if (ret == -ECANCELED) {
			trev__tracing_log_err(f->loc.tr, subsystem, line, 0, "%s",
					      "Probe definition must be: p|r[:[GRP/]EVENT] TARGET [FETCHARGS]");
			ret = -EINVAL;
		}
	}
	free(copy);
	return ret ? ret : (ssize_t)size;
}

/* `echo > FILE`: every probe of the file goes, or none while one is enabled (EBUSY). */
#define PROBE_FILE_FOPS(NAME, KIND)						\
static int NAME##_open(struct trev_file *f)					\
{										\
	if (!tfs_writable(f) || !(f->flags & O_TRUNC) || (f->flags & O_APPEND))	\
		return 0;							\
	return trev__probe_release_all(KIND);					\
}										\
static int NAME##_show(struct trev_file *f, struct trev_buf *out)		\
{										\
	(void)f;								\
	return trev__probe_show(out, KIND);					\
}										\
static ssize_t NAME##_write(struct trev_file *f, const char *buf, size_t size)	\
{										\
	return probe_file_write(f, buf, size, KIND);				\
}										\
const struct tfs_fops trev__##NAME##_fops = {					\
	.open = NAME##_open,							\
	.show = NAME##_show,							\
	.write = NAME##_write,							\
}

PROBE_FILE_FOPS(uprobe_events, TREV_PROBE_UPROBE);
PROBE_FILE_FOPS(kprobe_events, TREV_PROBE_KPROBE);

/* kprobe_profile and uprobe_profile: hits per probe (the kernel's). */
static int kprobe_profile_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__probe_profile_show(out, TREV_PROBE_KPROBE);
}

static int uprobe_profile_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__probe_profile_show(out, TREV_PROBE_UPROBE);
}

const struct tfs_fops trev__kprobe_profile_fops = { .show = kprobe_profile_show };
const struct tfs_fops trev__uprobe_profile_fops = { .show = uprobe_profile_show };
