/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-process control API of <trev/trev.h>: each call is what writing or
 * reading one tracefs file does (set_event, tracing_on, trace, trace_pipe,
 * trace_options, events/.../format, printk_formats).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "events/events_internal.h"

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
	struct trev_trace_array *tr = trev__top_instance();

	if (!tr)
		return -ENOMEM;
	if (on)
		trev_rb_record_on(tr->rb);
	else
		trev_rb_record_off(tr->rb);
	return 0;
}

int trev_trace_print(FILE *out)
{
	struct trev_trace_array *tr = trev__top_instance();

	return tr ? trev__trace_print(tr, out) : -ENOMEM;
}

static struct trev_trace_iter *pipe_iter;
static pthread_mutex_t pipe_lock = PTHREAD_MUTEX_INITIALIZER;

/* comm for trace_pipe: the buffer's recorded name, else "<...>". */
static void pipe_comm(struct trev_rb *rb, const struct trev_rb_event *ev, char comm[17])
{
	struct trev_rb_stats st;

	strcpy(comm, "<...>");
	if (trev_rb_buffer_stats(rb, ev->buffer, &st) == 0 && st.comm[0]) {
		memcpy(comm, st.comm, 16);
		comm[16] = '\0';
	}
}

ssize_t trev_trace_pipe_read(char *buf, size_t len, int timeout_ms)
{
	struct trev_trace_array *tr = trev__top_instance();
	struct trev_rb_event ev;
	size_t used = 0;
	char comm[17];
	int ret;

	if (!tr)
		return -ENOMEM;
	pthread_mutex_lock(&pipe_lock);
	if (!pipe_iter)
		pipe_iter = calloc(1, sizeof(*pipe_iter));
	if (!pipe_iter) {
		pthread_mutex_unlock(&pipe_lock);
		return -ENOMEM;
	}
	/*
	 * A line already formatted but not yet returned (it did not fit the
	 * caller's buffer last time) goes first, as trace_pipe keeps it.
	 */
	for (;;) {
		struct trev_seq *s = &pipe_iter->seq;

		if (s->len) {
			if (s->len > len - used) {
				if (used == 0 && s->len > len) {
					/* Cannot fit at all: hand out what fits. */
					memcpy(buf, s->buffer, len);
					memmove(s->buffer, s->buffer + len, s->len - len + 1);
					s->len -= len;
					used = len;
				}
				break;
			}
			memcpy(buf + used, s->buffer, s->len);
			used += s->len;
			s->len = 0;
		}
		ret = trev_rb_consume(tr->rb, &ev, used ? 0 : timeout_ms);
		if (ret <= 0) {
			if (used == 0 && ret < 0) {
				pthread_mutex_unlock(&pipe_lock);
				return ret;
			}
			break;
		}
		pipe_comm(tr->rb, &ev, comm);
		trev__events_read_lock();
		trev__print_line(tr, pipe_iter, &ev, comm);
		trev__events_read_unlock();
	}
	pthread_mutex_unlock(&pipe_lock);
	return (ssize_t)used;
}

void trev_trace_pipe_wake(void)
{
	struct trev_trace_array *tr = trev__top_instance_if_made();

	if (tr)
		trev_rb_wake_readers(tr->rb);
}

int trev_trace_reset(void)
{
	struct trev_trace_array *tr = trev__top_instance();

	return tr ? trev_rb_reset(tr->rb) : -ENOMEM;
}

static const struct {
	const char *name;
	unsigned long bit;
} options[] = {
	{ "print-parent", TREV_ITER_PRINT_PARENT },
	{ "sym-offset", TREV_ITER_SYM_OFFSET },
	{ "sym-addr", TREV_ITER_SYM_ADDR },
	{ "raw", TREV_ITER_RAW },
	{ "hex", TREV_ITER_HEX },
	{ "bin", TREV_ITER_BIN },
	{ "context-info", TREV_ITER_CONTEXT_INFO },
	{ "latency-format", TREV_ITER_LATENCY_FMT },
	{ "irq-info", TREV_ITER_IRQ_INFO },
	{ "record-tgid", TREV_ITER_RECORD_TGID },
};

int trev_trace_option(const char *name)
{
	struct trev_trace_array *tr = trev__top_instance();
	bool clear;

	if (!name)
		return -EINVAL;
	clear = strncmp(name, "no", 2) == 0;
	if (!tr)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		if (strcmp(clear ? name + 2 : name, options[i].name) != 0)
			continue;
		if (clear)
			tr->trace_flags &= ~options[i].bit;
		else
			tr->trace_flags |= options[i].bit;
		return 0;
	}
	return -EINVAL;
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
