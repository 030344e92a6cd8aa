/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the synthetic_events parser and dynamic_events'
 * (bit 0x40 of the first byte; its p/r lines go to the probe parser,
 * src/probe/, whose errors are trace_kprobe's and trace_uprobe's): raw
 * text, or (first byte's bit 0x80) a string of the language's tokens. Every line is taken or refused with a
 * kernel message and a column inside the command; a taken definition reads
 * back, parses again from what it reads back to the same text, has a
 * format file, is enabled, fired with values from the input (its strings
 * and stacks too), printed by `trace`, and removed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#include "trigger/synth.h"

static const char *const tokens[] = {
	"ev", "lat", "pid", "comm", "name", "x", "_a1", "!", ";", " ", "\t", "\n", "#",
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "int", "long", "char", "bool",
	"pid_t", "gfp_t", "unsigned", "unsigned int", "unsigned long", "[", "]", "[]", "[16]",
	"[256]", "[257]", "[0x10]", "[kdj]", "-", "s:", "synthetic/", "0", "9",
	"long[]", "unsigned long[] stack", "long[4]", "-:", "!s:", "p:", "e:", "u:", "/",
};

static char *fuzz_tokens(const uint8_t *data, size_t size)
{
	size_t cap = 1, len = 0, n = sizeof(tokens) / sizeof(tokens[0]);
	char *out;

	for (size_t i = 1; i < size; i++)
		cap += strlen(tokens[data[i] % n]);
	out = malloc(cap);
	if (!out)
		return NULL;
	for (size_t i = 1; i < size; i++) {
		memcpy(out + len, tokens[data[i] % n], strlen(tokens[data[i] % n]));
		len += strlen(tokens[data[i] % n]);
	}
	out[len] = '\0';
	return out;
}

static char text[1 << 16], again[1 << 16], path[512];

/* Fire every defined event with values made of the input, then read `trace`. */
static void fire_all(const uint8_t *data, size_t size)
{
	char *save = NULL, *copy = strdup(text);
	uint64_t vals[TREV_SYNTH_FIELDS_MAX];
	unsigned long stack[TREV_SYNTH_STACK_MAX];
	char str[64];

	if (!copy)
		return;
	memset(str, 'x', sizeof(str) - 1);
	str[sizeof(str) - 1] = '\0';
	memcpy(str, data, size < sizeof(str) - 1 ? size : sizeof(str) - 1);
	str[strnlen(str, sizeof(str) - 1)] = '\0';
	/* Addresses made of the input; a 0 among them or not (then TREV_SYNTH_STACK_MAX). */
	memset(stack, 0, sizeof(stack));
	memcpy(stack, data, size < sizeof(stack) ? size : sizeof(stack));
	if (data[0] & 1)
		stack[data[0] % TREV_SYNTH_STACK_MAX] = 0;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct trev_synth_event *se;

		l[strcspn(l, "\t")] = '\0';
		snprintf(path, sizeof(path), "events/synthetic/%s/format", l);
		if (trev_read(path, again, sizeof(again)) <= 0)
			abort();
		snprintf(path, sizeof(path), "events/synthetic/%s/enable", l);
		if (trev_write(path, "1"))
			abort();
		se = trev__synth_get(l);
		if (!se)
			abort();
		for (unsigned int i = 0; i < trev__synth_nr_fields(se); i++) {
			uint64_t v = 0;

			memcpy(&v, data + (i * 8) % size, size - (i * 8) % size < 8 ?
			       size - (i * 8) % size : 8);
			vals[i] = trev__synth_field_is_string(se, i) ? (uintptr_t)str :
				  trev__synth_field_is_stack(se, i) ? (uintptr_t)stack : v;
		}
		trev__synth_trace(se, vals);
		trev__synth_put(se);
		if (trev_write(path, "0"))
			abort();
	}
	free(copy);
	if (trev_read("trace", again, sizeof(again)) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file;
	char *cmd;
	int ret;

	if (size < 1)
		return 0;
	if (data[0] & 0x80) {
		cmd = fuzz_tokens(data, size);
	} else {
		cmd = malloc(size);
		if (cmd) {
			memcpy(cmd, data + 1, size - 1);
			cmd[size - 1] = '\0';
		}
	}
	if (!cmd)
		return 0;
	file = (data[0] & 0x40) ? "dynamic_events" : "synthetic_events";
	trev_set_log(NULL, NULL, 0);
	if (trev_write("synthetic_events", "") || trev_write("error_log", "") ||
	    trev_write("trace", ""))
		abort();
	ret = trev_append(file, cmd);
	if (ret == -EINVAL) {
		/*
		 * A kernel message (dynamic_events: its own for other kinds; a probe's
		 * line, src/probe/: trace_kprobe's or trace_uprobe's), in error_log.
		 */
		if (trev_read("error_log", again, sizeof(again)) <= 0 ||
		    (!strstr(again, "synthetic_events: error: ") &&
		     !strstr(again, "dynamic_events: error: ") &&
		     !strstr(again, "trace_kprobe: error: ") &&
		     !strstr(again, "trace_uprobe: error: ")))
			abort();
	} else if (ret && ret != -EEXIST && ret != -ENOENT && ret != -ENOMEM && ret != -ENOSPC) {
		abort();
	}
	/* dynamic_events lists the same events in its form, which parses back to itself. */
	if (trev_read("dynamic_events", text, sizeof(text)) < 0)
		abort();
	if (text[0]) {
		if (trev_write("dynamic_events", text) ||
		    trev_read("dynamic_events", again, sizeof(again)) < 0 || strcmp(text, again))
			abort();
	}
	/* What was defined (the lines before a refused one too) reads back and parses again. */
	if (trev_read("synthetic_events", text, sizeof(text)) < 0)
		abort();
	if (text[0]) {
		if (trev_write("synthetic_events", text) ||
		    trev_read("synthetic_events", again, sizeof(again)) < 0 || strcmp(text, again))
			abort();
		fire_all(data, size);
	}
	if (trev_write("synthetic_events", ""))
		abort();
	free(cmd);
	return 0;
}
