// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The SystemTap SDT note decoder of `trev list --usdt` (usdt_note.h).
 */
#include <errno.h>
#include <string.h>

#include "usdt_note.h"

static uint64_t un_le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The string at *@at, ending before @end; *@at moves past its NUL. */
static const char *un_string(const char *base, size_t *at, size_t end)
{
	const char *s = base + *at;
	const char *nul = memchr(s, '\0', end - *at);

	if (!nul)
		return NULL;
	*at += (size_t)(nul - s) + 1;
	return s;
}

/* One "SIZE@OPERAND" (or a bare operand) of @len bytes at @s. */
static int un_arg(const char *s, size_t len, struct usdt_note *n, const char **why)
{
	const char *at = memchr(s, '@', len);
	int size = 8;

	if (n->nr_args == USDT_MAX_ARGS) {
		*why = "more than 12 arguments";
		return -EINVAL;
	}
	if (at) {
		size_t sl = (size_t)(at - s);
		int neg = sl && s[0] == '-';

		if (sl != (size_t)neg + 1 ||
		    (s[neg] != '1' && s[neg] != '2' && s[neg] != '4' && s[neg] != '8')) {
			*why = "an argument's size is not 1, 2, 4 or 8 (with or without -)";
			return -EINVAL;
		}
		size = (s[neg] - '0') * (neg ? -1 : 1);
		len -= sl + 1;
		s = at + 1;
	}
	if (!len) {
		*why = "an argument has no operand";
		return -EINVAL;
	}
	n->arg[n->nr_args].size = size;
	n->arg[n->nr_args].op = s;
	n->arg[n->nr_args].op_len = len;
	n->nr_args++;
	return 0;
}

int usdt_note_parse(const void *desc, size_t len, struct usdt_note *n, const char **why)
{
	const char *base = desc;
	size_t at = 24;

	memset(n, 0, sizeof(*n));
	if (len < 24) {
		*why = "shorter than its three addresses";
		return -EINVAL;
	}
	n->pc = un_le64(desc);
	n->base = un_le64((const unsigned char *)desc + 8);
	n->semaphore = un_le64((const unsigned char *)desc + 16);
	n->provider = un_string(base, &at, len);
	n->name = n->provider ? un_string(base, &at, len) : NULL;
	n->args = n->name ? un_string(base, &at, len) : NULL;
	if (!n->args) {
		*why = "its provider, name and arguments do not end inside it";
		return -EINVAL;
	}
	if (!*n->provider || !*n->name) {
		*why = "an empty provider or name";
		return -EINVAL;
	}
	for (const char *s = n->args; *s;) {
		const char *sp = strchr(s, ' ');
		size_t l = sp ? (size_t)(sp - s) : strlen(s);
		int ret;

		if (!l) {
			*why = "two spaces, or a space at an end, in the arguments";
			return -EINVAL;
		}
		ret = un_arg(s, l, n, why);
		if (ret)
			return ret;
		s += l;
		if (*s == ' ' && !*++s) {
			*why = "two spaces, or a space at an end, in the arguments";
			return -EINVAL;
		}
	}
	return 0;
}
