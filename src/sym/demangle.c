/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * C++ names as trev shows them (demangle.h): the process's C++ runtime
 * demangles, this file reduces the result to one word.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sym/demangle.h"

static _Atomic(trev_cxa_demangle_fn) dm_fn;

void trev__demangle_set(trev_cxa_demangle_fn fn)
{
	atomic_store_explicit(&dm_fn, fn, memory_order_release);
}

void trev__demangle_resolve(void)
{
	static const char *const runtimes[] = { "libstdc++.so.6", "libc++abi.so.1", "libc++.so.1" };
	void *fn;

	if (atomic_load_explicit(&dm_fn, memory_order_acquire))
		return;
	fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	/* A runtime loaded with RTLD_LOCAL (by a dlopen()ed C++ object) is not global. */
	for (size_t i = 0; !fn && i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		void *h = dlopen(runtimes[i], RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);

		if (!h)
			continue;
		fn = dlsym(h, "__cxa_demangle");
		/* The runtime stays: the object that loaded it holds it too. */
		if (!fn)
			dlclose(h);
	}
	if (fn)
		trev__demangle_set((trev_cxa_demangle_fn)fn);
}

/*
 * Special names that are not code, kept mangled: vtables, VTTs, typeinfo,
 * typeinfo names, construction vtables, TLS init and wrapper functions
 * (_ZT[VTISCHW]), guard variables and reference temporaries (_ZG). Thunks
 * (_ZTh, _ZTv, _ZTc) are shown as the function they lead to.
 */
static bool dm_wanted(const char *name)
{
	if (strncmp(name, "_Z", 2) != 0 || name[2] == 'G')
		return false;
	return !(name[2] == 'T' && name[3] && strchr("VTISCHW", name[3]));
}

char *trev__demangle(const char *name)
{
	trev_cxa_demangle_fn fn = atomic_load_explicit(&dm_fn, memory_order_acquire);
	char *full, *out;
	int status = -1;

	if (!fn || !dm_wanted(name))
		return NULL;
	full = fn(name, NULL, NULL, &status);
	if (status != 0 || !full) {
		free(full);
		return NULL;
	}
	out = malloc(strlen(full) + 1);
	if (out && !trev__demangle_simplify(full, out)) {
		free(out);
		out = NULL;
	}
	free(full);
	return out;
}

/* ------------------------------------------------------------------ */
/* Reducing a demangled name                                            */

#define DM_MAX_CLONES	8

static bool dm_starts(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - s) >= n && memcmp(s, word, n) == 0;
}

static bool dm_is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* The operator's symbol after "operator" ("()", "[]", "<<=", "->*", ...): its length. */
static size_t dm_operator_len(const char *s, const char *end)
{
	static const char punct[] = "+-*/%^&|~!=<>,";
	size_t n = 0;

	if (dm_starts(s, end, "()") || dm_starts(s, end, "[]"))
		return 2;
	while (n < 3 && s + n < end && s[n] && strchr(punct, s[n]))
		n++;
	return n;
}

static bool dm_qualifier(const char *tok, size_t n)
{
	static const char *const quals[] = { "const", "volatile", "&", "&&", "noexcept",
					     "transaction_safe" };

	for (size_t i = 0; i < sizeof(quals) / sizeof(quals[0]); i++)
		if (strlen(quals[i]) == n && memcmp(tok, quals[i], n) == 0)
			return true;
	return false;
}

/*
 * Words of @s[0, @end) with template arguments and parameter lists
 * dropped, one space between words, into @out. Return: its length.
 */
static size_t dm_words(const char *s, const char *end, char *out)
{
	static const char anon[] = "(anonymous namespace)";
	size_t o = 0;
	int skip = 0, braces = 0;

	while (s < end) {
		char c = *s;

		if (skip) {
			skip += (c == '(' || c == '<') - (c == ')' || c == '>');
			s++;
			continue;
		}
		if (dm_starts(s, end, anon)) {
			memcpy(out + o, "{anonymous}", 11);
			o += 11;
			s += sizeof(anon) - 1;
			continue;
		}
		if (dm_starts(s, end, "operator") && (o == 0 || !dm_is_ident(out[o - 1])) &&
		    !(s + 8 < end && dm_is_ident(s[8]))) {
			size_t n;

			memcpy(out + o, "operator", 8);
			o += 8;
			s += 8;
			n = dm_operator_len(s, end);
			if (n) {
				memcpy(out + o, s, n);
				o += n;
				s += n;
				continue;
			}
			/* operator new, delete, a conversion, co_await, "" _x: up to its '(' */
			while (s < end && *s != '(') {
				if (*s == '<') {
					skip = 1;
					s++;
					break;
				}
				out[o++] = *s == ' ' ? '_' : *s;
				s++;
			}
			continue;
		}
		if (c == '(' || c == '<') {
			skip = 1;
		} else if (c == ' ') {
			/* "{unnamed type#1}": one word; between words, one separator. */
			if (braces)
				out[o++] = '_';
			else if (o && out[o - 1] != ' ')
				out[o++] = ' ';
		} else {
			braces += (c == '{') - (c == '}' && braces > 0);
			out[o++] = c;
		}
		s++;
	}
	return o;
}

size_t trev__demangle_simplify(const char *full, char *out)
{
	const char *end = full + strlen(full), *clone[DM_MAX_CLONES], *clone_end[DM_MAX_CLONES];
	const char *tok = NULL;
	size_t nclones = 0, n, len = 0;

	/* GCC's clones: "f(int) [clone .constprop.0] [clone .cold]", from the end. */
	while (nclones < DM_MAX_CLONES && end > full && end[-1] == ']') {
		const char *p = end - 1;

		while (p > full && !dm_starts(p, end, " [clone "))
			p--;
		if (!dm_starts(p, end, " [clone ") || p + 8 >= end - 1)
			break;
		clone[nclones] = p + 8;
		clone_end[nclones++] = end - 1;
		end = p;
	}
	n = dm_words(full, end, out);
	/* The name is the last word that is not a qualifier; before it, a return type. */
	for (size_t i = 0, start = 0; i <= n; i++) {
		if (i < n && out[i] != ' ')
			continue;
		if (i > start && !dm_qualifier(out + start, i - start)) {
			tok = out + start;
			len = i - start;
		}
		start = i + 1;
	}
	if (tok)
		memmove(out, tok, len);
	while (nclones--) {
		size_t k = (size_t)(clone_end[nclones] - clone[nclones]);

		memcpy(out + len, clone[nclones], k);
		len += k;
	}
	for (size_t i = 0; i < len; i++)
		if (out[i] == ' ' || out[i] == '\t' || out[i] == '\n')
			out[i] = '_';
	out[len] = '\0';
	return len;
}
