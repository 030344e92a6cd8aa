/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the hist command's parser: raw text, or (first
 * byte >= 0x80) a string of the language's tokens, variables, expressions,
 * $var references (to a hist of tt_ints that holds t0) and actions (firing
 * the synthetic event fz_lat) included. Any text is taken or
 * refused with a message and a column inside the command; a taken one
 * prints a canonical line that parses again to a matching trigger, counts
 * a record built from the input, and prints its histogram.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#include "events/events_internal.h"
#include "tracefs/tracefs_internal.h"
#include "trigger/hist.h"

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

static struct trev_event_call *fuzz_call(unsigned int pick)
{
	static const char *const names[] = { "tt_ints", "tt_strings", "tt_types", "tt_open" };
	const char *name = names[pick % 4];
	struct trev_event_call *found = NULL;

	for (unsigned int id = TREV_FIRST_EVENT_ID; id < TREV_FIRST_EVENT_ID + 64; id++) {
		struct trev_event_call *call = trev__event_by_id(id);

		if (call && strcmp(call->name, name) == 0)
			found = call;
	}
	return found;
}

/*
 * libFuzzer's mutations alone seldom spell a whole command: with the first
 * byte's top bit set, each further byte picks a token of the hist language
 * instead.
 */
static const char *const tokens[] = {
	"keys=", "key=", "vals=", "values=", "sort=", "size=", "name=", ":", ",", ".", "=",
	"a", "b", "c", "id", "what", "name", "tag", "msg", "p", "uc", "ul", "s", "flag",
	"common_pid", "common_timestamp", "common_type", "stacktrace", "hitcount",
	"hex", "sym", "sym-offset", "execname", "log2", "usecs", "buckets=", "bucket=",
	"syscall", "percent", "graph", "hitcount.percent", "hitcount.graph", "descending",
	"ascending", "pause", "cont", "continue", "clear",
	"128", "2048", "0x10", "7", "0", "131072", "131073", " if ", "a > 1", "&&",
	"what ~ \"x*\"", "nope", "-", "+", "$", " ",
	/* variables, expressions, references and actions */
	"x=", "ts0=", "t0", "$t0", "$x", "*", "/", "-(", ")", "(", "1", "common_timestamp.usecs",
	"trev_test.tt_ints.$t0", "$trev_test.tt_ints.t0", "onmatch(", "onmax(", "onchange(",
	"trev_test.tt_ints", "trev_test.tt_open", ").", "trace(fz_lat,", "fz_lat(", "save(",
	"snapshot()", "$x)", "id)", "what", "nope(",
};

static char *fuzz_tokens(const uint8_t *data, size_t size)
{
	size_t cap = 1, len = 0;
	char *out;

	for (size_t i = 1; i < size; i++)
		cap += strlen(tokens[data[i] % (sizeof(tokens) / sizeof(tokens[0]))]);
	out = malloc(cap);
	if (!out)
		return NULL;
	for (size_t i = 1; i < size; i++) {
		const char *t = tokens[data[i] % (sizeof(tokens) / sizeof(tokens[0]))];

		memcpy(out + len, t, strlen(t));
		len += strlen(t);
	}
	out[len] = '\0';
	return out;
}

/* The canonical line's sort= has a key printed with a modifier besides .descending. */
static bool sort_has_modified_key(const char *line)
{
	const char *p = strstr(line, ":sort="), *end;

	if (!p)
		return false;
	p += 6;
	end = p + strcspn(p, ": ");
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p)), *stop = comma ? comma : end;
		const char *dot = memchr(p, '.', (size_t)(stop - p));

		if (dot && !((size_t)(stop - dot) == 11 && strncmp(dot, ".descending", 11) == 0))
			return true;
		p = comma ? comma + 1 : end;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trev_hist_trigger *ht = NULL, *again = NULL;
	struct trev_buf t = TREV_BUF_INIT, h = TREV_BUF_INIT;
	struct trev_event_call *call;
	struct trev_hist_error err;
	unsigned char rec[512];
	static bool ready;
	char *param;
	int ret;

	if (size < 1)
		return 0;
	if (data[0] & 0x80) {
		param = fuzz_tokens(data, size);
	} else {
		param = malloc(size);
		if (param) {
			memcpy(param, data + 1, size - 1);
			param[size - 1] = '\0';
		}
	}
	if (!param)
		return 0;
	trev_set_log(NULL, NULL, 0);
	if (!ready) {
		/* What references resolve to: a variable of another hist, a synthetic event. */
		if (trev_append("synthetic_events", "fz_lat u64 lat; int id") ||
		    trev_append("events/trev_test/tt_ints/trigger", "hist:keys=a:t0=c"))
			abort();
		ready = true;
	}
	trev__events_read_lock();
	call = fuzz_call(data[0]);
	if (!call)
		abort();
	ret = trev__hist_parse(call, trev__top_instance(), param, &ht, &err);
	if (ret == -EINVAL) {
		/*
		 * A filter error may point just past the end, as the kernel's do;
		 * errors without a place (Timestamp units, No action found, ...)
		 * point at column 0, as the kernel's errpos 0.
		 */
		if (!err.msg || (err.pos && err.pos < 5) || (size_t)err.pos > 5 + strlen(param) + 1)
			abort();
	} else if (ret == 0) {
		size_t n;

		if (trev__hist_print(ht, &t) || !t.data || strncmp(t.data, "hist:", 5))
			abort();
		/* The canonical text parses to the same trigger. */
		n = strlen(t.data);
		if (n > 11 && strcmp(t.data + n - 10, " [active]\n") == 0)
			t.data[n - 10] = '\0';
		else if (n > 11 && strcmp(t.data + n - 10, " [paused]\n") == 0)
			t.data[n - 10] = '\0';
		else
			abort();
		if (sort_has_modified_key(t.data)) {
			/*
			 * The kernel's print of a sort key on a key with a
			 * modifier keeps the modifier, and its parser takes
			 * none but .ascending/.descending (docs/hist.md): the
			 * line does not parse again, as the kernel's does not.
			 */
			if (trev__hist_parse(call, trev__top_instance(), t.data + 5, &again, &err) !=
				    -EINVAL ||
			    !err.msg || strcmp(err.msg, "Invalid sort modifier"))
				abort();
		} else if (trev__hist_parse(call, trev__top_instance(), t.data + 5, &again, &err) ||
			   !trev__hist_match(ht, again)) {
			abort();
		}
		/* A record made of the input, its dynamic-string words included. */
		memset(rec, 0, sizeof(rec));
		memcpy(rec, data, size < sizeof(rec) ? size : sizeof(rec));
		trev__hist_pause(ht, false);
		trev__hist_event(ht, rec, call->klass->entry_size + 64 < sizeof(rec) ?
					      call->klass->entry_size + 64 : sizeof(rec));
		if (trev__hist_show(ht, 0, &h))
			abort();
		trev__hist_free(again);
		trev__hist_free(ht);
	} else if (ret != -ENOMEM) {
		abort();
	}
	trev__events_read_unlock();
	free(t.data);
	free(h.data);
	free(param);
	return 0;
}
