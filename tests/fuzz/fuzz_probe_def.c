/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the probe definition parser (src/probe/probe_arg.c,
 * docs/probes.md): raw text, or (first byte's bit 0x80) a string of the
 * syntax's tokens, parsed as a line of uprobe_events, kprobe_events and
 * dynamic_events. Each is taken or refused: refused with one of the kernel's
 * messages and a caret inside (or one past) the command as the error log
 * shows it; taken with a group and event that are C identifiers, arguments
 * whose names are and whose slots lie inside the argument area ($arg*'s
 * place holder has none).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"

static const char *const tokens[] = {
	"p", "r", ":", "/", " ", "\t", "grp", "ev", "pr_args", "%return", "+", "-", "0", "8",
	"0x10", "(", ")", "%di", "%ax", "%sp", "%ip", "%xx", "$stack", "$stack3", "$arg1", "$arg9",
	"$retval", "$comm", "$foo", "@", "@0x1000", "@sym", "@+4", "\\", "\\12", "\\\"s\"", "\"",
	"=", "a", "_b", ":u8", ":s16", ":x32", ":u64", ":string", ":ustring", ":symbol", ":symstr",
	":char", ":b3@2/8", ":b9@0/8", "[", "]", "[4]", "[0]", "[65]", "u", "+0(", "/tmp/x:0x10",
	"/bin/sh:main", "r3", "r9999", "common_pid", "__probe_ip", ".",
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum trev_probe_file files[] = {
		TREV_PROBE_UPROBE, TREV_PROBE_KPROBE, TREV_PROBE_DYNAMIC,
	};
	struct trev_probe_error err;
	struct trev_probe_def def;
	char *line;

	if (!size)
		return 0;
	if (data[0] & 0x80) {
		line = fuzz_tokens(data, size);
	} else {
		line = malloc(size);
		if (line) {
			memcpy(line, data + 1, size - 1);
			line[size - 1] = '\0';
		}
	}
	if (!line)
		return 0;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		bool uprobe;
		int ret = trev__probe_parse(line, files[f], &def, &err, &uprobe);

		if (ret == -EINVAL) {
			if (!err.msg || err.pos < 0 || (size_t)err.pos > strlen(err.cmd) + 1)
				abort();
			continue;
		}
		if (ret)
			continue;
		if (!def.group || !trev__probe_good_name(def.group))
			abort();
		if (def.event && !trev__probe_good_name(def.event))
			abort();
		for (unsigned int i = 0; i < def.nr_args; i++) {
			const struct trev_probe_arg *a = &def.args[i];
			/* $arg*: a place holder that the probe's creation expands (probe_dwarf.c). */
			bool slot = a->base != TREV_PB_ARGS;

			if (!trev__probe_good_name(a->name) || !a->type || !a->comm ||
			    (slot && a->offset + a->type->size * (a->count ? a->count : 1) > def.size) ||
			    a->count > TREV_PROBE_ARRAY_MAX || a->nderef > TREV_PROBE_DEREF_MAX)
				abort();
		}
		trev__probe_def_free(&def);
	}
	free(line);
	return 0;
}
