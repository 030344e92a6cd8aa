/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for C++ names (src/sym/demangle.c): any string is
 * reduced to a word no longer than itself, without white space, inside
 * the buffer of strlen() + 1 bytes the function asks for; a string that
 * starts with "_Z" also goes through the C++ runtime's demangler first.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *full)
{
	size_t len = strlen(full), n;
	char *out = malloc(len + 1);

	if (!out)
		return;
	n = trev__demangle_simplify(full, out);
	if (n > len || strlen(out) != n || strpbrk(out, " \t\n"))
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int resolved;
	char *s = malloc(size + 1);
	char *shown;

	if (!s)
		return 0;
	if (!resolved) {
		resolved = 1;
		if (dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL))
			trev__demangle_resolve();
	}
	memcpy(s, data, size);
	s[size] = '\0';
	check(s);
	shown = trev__demangle(s);
	if (shown) {
		if (strpbrk(shown, " \t\n"))
			abort();
		free(shown);
	}
	free(s);
	return 0;
}
