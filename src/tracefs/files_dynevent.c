/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dynamic_events (the kernel's trace_dynevent.c): one file for every kind of
 * event defined at run time, each line's first letters naming its kind.
 * trev has one kind, synthetic events ("s:", src/trigger/synth.c); the
 * kernel's probes (p:, r:, e:, f:, t:, u:) are refused by name until a kind
 * of trev's own takes them (a row of dyn_kinds[]). docs/tracefs.md,
 * "dynamic_events".
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "events/events_internal.h"
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

static const struct dyn_kind dyn_kinds[] = {
	{ trev__synth_dyn_create, trev__synth_dyn_remove, trev__synth_dyn_show,
	  trev__synth_release_all },
};

#define DYN_NR_KINDS	(sizeof(dyn_kinds) / sizeof(dyn_kinds[0]))

/* The kernel's kinds trev does not have: what the line's first letter names. */
static const char *dyn_unsupported(char c)
{
	switch (c) {
	case 'p':
	case 'r':
		return "kprobe events (p:, r:) are the kernel's: not supported in a process";
	case 'e':
		return "eprobe events (e:) are not supported";
	case 'f':
	case 't':
		return "fprobe events (f:, t:) are the kernel's: not supported in a process";
	case 'u':
		return "uprobe events (u:) are not supported";
	default:
		return "Unknown dynamic event type: only s:[synthetic/]<event> is supported";
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
