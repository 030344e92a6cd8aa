/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-process control API of <trev/trev.h>: each call is what writing or
 * reading one tracefs file does (set_event, tracing_on, trace, trace_pipe,
 * trace_options, events/.../format, printk_formats).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "events/events_internal.h"
#include "write/write.h"
#include "output/output.h"
#include "tracefs/tracefs_internal.h"

int trev_set_event(const char *spec)
{
	char *copy, *save = NULL;
	int ret = 0;

	trev__library_init();
	if (!spec)
		return -EINVAL;
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ", \t\n", &save); t; t = strtok_r(NULL, ", \t\n", &save)) {
		int r = trev__set_event(t);

		if (r == -EINVAL)
			trev__log(TREV_LOG_WARN, "set_event: '%s' matched no event\n", t);
		if (r && !ret)
			ret = r;
	}
	free(copy);
	return ret;
}

int trev_tracing_on(int on)
{
	return trev_write("tracing_on", on ? "1" : "0");
}

int trev_trace_print(FILE *out)
{
	struct trev_trace_array *tr = trev__top_instance();

	return tr ? trev__trace_print(tr, out) : -ENOMEM;
}

/* trev_trace_pipe_read() reads one trace_pipe file of the tree, opened on first use. */
static struct trev_file *pipe_file;
static pthread_mutex_t pipe_lock = PTHREAD_MUTEX_INITIALIZER;

ssize_t trev_trace_pipe_read(char *buf, size_t len, int timeout_ms)
{
	ssize_t ret;

	pthread_mutex_lock(&pipe_lock);
	if (!pipe_file) {
		ret = trev_file_open("trace_pipe", O_RDONLY | O_NONBLOCK, &pipe_file);
		if (ret) {
			pthread_mutex_unlock(&pipe_lock);
			return ret;
		}
	}
	pthread_mutex_unlock(&pipe_lock);
	ret = trev_file_read(pipe_file, buf, len);
	if (ret == -EAGAIN && timeout_ms != 0) {
		ret = trev_file_poll(pipe_file, timeout_ms);
		if (ret > 0)
			ret = trev_file_read(pipe_file, buf, len);
	}
	return ret == -EAGAIN ? 0 : ret;
}

void trev_trace_pipe_wake(void)
{
	pthread_mutex_lock(&pipe_lock);
	if (pipe_file)
		trev_file_wake(pipe_file);
	pthread_mutex_unlock(&pipe_lock);
}

int trev_trace_reset(void)
{
	return trev_write("trace", "");
}

int trev_trace_option(const char *name)
{
	return name ? trev_write("trace_options", name) : -EINVAL;
}

struct format_find {
	const char *system, *event;
	struct trev_event_call *call;
};

static int format_match(struct trev_event_call *call, void *arg)
{
	struct format_find *f = arg;

	if (strcmp(call->klass->system, f->system) || strcmp(call->name, f->event))
		return 0;
	f->call = call;
	return 1;
}

int trev_event_format(const char *system, const char *event, char **text)
{
	struct format_find f = { system, event, NULL };
	int ret = -ENOENT;

	if (!system || !event || !text)
		return -EINVAL;
	trev__library_init();
	trev__events_read_lock();
	if (trev__events_for_each(format_match, &f))
		ret = trev__event_format_text(f.call, text);
	trev__events_read_unlock();
	return ret;
}

const char *trev_header_page(void)
{
	return trev__header_page_text;
}

const char *trev_header_event(void)
{
	return trev__header_event_text;
}

int trev_printk_formats(char **text)
{
	return trev__printk_formats_text(text);
}

struct trev_rb *trev_trace_buffer(void)
{
	struct trev_trace_array *tr = trev__top_instance();

	return tr ? tr->rb : NULL;
}

/* ------------------------------------------------------------------ */
/* The tree by path: start up, then tracefs/tree.c                      */

int trev_file_open(const char *path, int flags, struct trev_file **out)
{
	trev__library_init();
	return trev__tfs_open(path, flags, out);
}

int trev_path_stat(const char *path, struct trev_stat *st)
{
	trev__library_init();
	return trev__tfs_stat(path, st);
}

int trev_readdir(const char *path, trev_readdir_fn fn, void *arg)
{
	trev__library_init();
	return trev__tfs_readdir(path, fn, arg);
}

int trev_mkdir(const char *path)
{
	trev__library_init();
	return trev__tfs_mkdir(path);
}

int trev_rmdir(const char *path)
{
	trev__library_init();
	return trev__tfs_rmdir(path);
}

int trev_write(const char *path, const char *text)
{
	trev__library_init();
	return trev__tfs_write(path, text);
}

int trev_append(const char *path, const char *text)
{
	trev__library_init();
	return trev__tfs_append(path, text);
}

ssize_t trev_read(const char *path, char *buf, size_t size)
{
	trev__library_init();
	return trev__tfs_read(path, buf, size);
}
