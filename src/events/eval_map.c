/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * TRACE_DEFINE_ENUM() and TRACE_DEFINE_SIZEOF(): the names of an object's
 * eval maps replaced by their values in the print fmt of its events of the
 * same system, so that libtraceevent and trace-cmd, which cannot know an
 * enum, evaluate numbers (the kernel's update_event_printk()).
 *
 * Which names are replaced follows the kernel's scan exactly, quirks
 * included, because a format file is compared byte for byte with the
 * kernel's. Outside double quotes (a backslash hides the next character,
 * quoted or not):
 *
 *  - a number is skipped up to its first character that is not a letter or
 *    digit ("0x1fULL"), and that character too;
 *  - an identifier ([A-Za-z_][A-Za-z0-9_]*) that equals the name, the
 *    character after it not a letter, digit or '_', is replaced by the
 *    value in decimal ("%ld"); the character after the value is skipped;
 *  - any other identifier is skipped, together with what follows it through
 *    '.' and "->" (the first character after '.' or "->" whatever it is:
 *    "REC->NAME", "a.b.c"), and the character after it;
 *  - a value whose text is longer than its name is not written: the scan
 *    of that map stops there (the kernel warns once).
 *
 * The skipped character after a number or an identifier may be a '"' or a
 * '\\', which then does not count, as in the kernel. A name that is a
 * prefix of an identifier is not replaced ("FOO" in "FOO_BAR"), nor one
 * inside a quoted format. "sizeof(struct foo)" is matched as one name: it
 * must be spelt as the preprocessor spells TRACE_DEFINE_SIZEOF's argument,
 * which is how TP_printk's stringified arguments spell it too.
 *
 * Letters are the kernel's <linux/ctype.h> ones: ASCII, plus the Latin-1
 * letters 0xc0-0xff except 0xd7 and 0xf7 (bytes of UTF-8 identifiers).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "events/events_internal.h"

static inline bool ev_isdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline bool ev_isalpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= 0xc0 && c != 0xd7 && c != 0xf7);
}

static inline bool ev_isalnum(unsigned char c)
{
	return ev_isalpha(c) || ev_isdigit(c);
}

/* Past an identifier at @p and what follows it through '.' and "->". */
static char *ev_skip_identifier(char *p)
{
	for (;;) {
		do
			p++;
		while (ev_isalnum((unsigned char)*p) || *p == '_');
		if (*p == '.')
			p++;
		else if (p[0] == '-' && p[1] == '>')
			p += 2;
		else
			return p;
		if (!*p)
			return p;
	}
}

/**
 * trev__eval_update_printk() - replace one eval map's name in a print fmt
 * @fmt: the print fmt, rewritten in place (it only gets shorter)
 * @name: the map's eval string
 * @value: its value
 *
 * Context: any; touches only @fmt.
 * Return: 0, or -ENOSPC when the value's text is longer than @name: the
 * occurrences before that one are replaced, the rest left.
 */
int trev__eval_update_printk(char *fmt, const char *name, unsigned long value)
{
	size_t len = strlen(name);
	char num[24];
	size_t nlen = (size_t)snprintf(num, sizeof(num), "%ld", (long)value);
	bool quoted = false;
	char *p = fmt;

	if (!len)
		return 0;
	while (*p) {
		unsigned char c = (unsigned char)*p;

		if (c == '\\') {
			if (!p[1])
				break;
			p += 2;
			continue;
		}
		if (c == '"') {
			quoted = !quoted;
			p++;
			continue;
		}
		if (quoted) {
			p++;
			continue;
		}
		if (ev_isdigit(c)) {
			do
				p++;
			while (ev_isalnum((unsigned char)*p));
		} else if (ev_isalpha(c) || c == '_') {
			if (strncmp(p, name, len) == 0 && !ev_isalnum((unsigned char)p[len]) &&
			    p[len] != '_') {
				if (nlen > len)
					return -ENOSPC;
				memcpy(p, num, nlen);
				memmove(p + nlen, p + len, strlen(p + len) + 1);
				p += nlen;
			} else {
				p = ev_skip_identifier(p);
			}
		}
		/* What ends a number, a name or a value is skipped too. */
		if (!*p)
			break;
		p++;
	}
	return 0;
}

/**
 * trev__eval_print_fmt() - the print fmt of an event with an object's eval maps applied
 * @call: the event
 * @start, @stop: the object's eval maps (may be NULL)
 * @out: set to the new text (malloc'd), or NULL when no map changes it
 *
 * Maps apply in section order, those of @call's system only (the kernel
 * applies a header's maps to the events whose system string is the same
 * object, i.e. the same header; here the same name in the same object).
 * A map whose value does not fit is logged and left out, as the kernel
 * warns and goes on.
 *
 * Context: registration, under the registry's write lock.
 * Return: 0 or -ENOMEM.
 */
int trev__eval_print_fmt(const struct trev_event_call *call,
			 const struct trev_eval_map *const *start,
			 const struct trev_eval_map *const *stop, char **out)
{
	const char *fmt = call->print_fmt;
	char *buf = NULL;

	*out = NULL;
	if (!fmt)
		return 0;
	for (const struct trev_eval_map *const *m = start; m && m < stop; m++) {
		if (!*m || !(*m)->system || !(*m)->eval_string ||
		    strcmp((*m)->system, call->klass->system) ||
		    !strstr(buf ? buf : fmt, (*m)->eval_string))
			continue;
		if (!buf) {
			buf = strdup(fmt);
			if (!buf)
				return -ENOMEM;
		}
		if (trev__eval_update_printk(buf, (*m)->eval_string, (*m)->eval_value))
			trev__log(TREV_LOG_WARN,
				  "event %s:%s: the value %ld of %s is longer than the name; "
				  "print fmt keeps the name\n", call->klass->system, call->name,
				  (long)(*m)->eval_value, (*m)->eval_string);
	}
	if (buf && strcmp(buf, fmt) == 0) {
		free(buf);
		buf = NULL;
	}
	*out = buf;
	return 0;
}
