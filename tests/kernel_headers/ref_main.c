// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The reference format printer: linked with one event header compiled through the kernel's
 * own stages (ref/trace/define_trace.h), it writes DIR/<event>.format for every event, as
 * the kernel shows events/<system>/<event>/format. What it does follows, for facts only,
 * kernel/trace/trace_events.c of linux 6.1:
 *
 *   - at start, every TRACE_DEFINE_ENUM/SIZEOF name of the event's system is replaced by
 *     its value in the print fmt, outside quoted strings, where it stands as a whole
 *     identifier that does not follow a '.' or '->' member access (update_event_printk());
 *     a value longer than the name is left out, as the kernel does (with a warning);
 *   - the fields are laid out from stage 4's list: each starts at the previous end rounded up
 *     to its alignment, the first after struct trace_entry (event_define_fields());
 *   - "__attribute__(...)" is taken out of field types (sanitize_field_type());
 *   - the text: name, ID, the common fields, a blank line, the event's fields, a blank line,
 *     "print fmt: ..."; an array field shows as "type name[len]" (f_show()).
 *
 * Usage: ref_main DIR
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/trace_events.h>

extern struct kh_ref_event *__start_kh_ref_events[] __attribute__((weak));
extern struct kh_ref_event *__stop_kh_ref_events[] __attribute__((weak));
extern struct trace_eval_map *__start__ftrace_eval_map[] __attribute__((weak));
extern struct trace_eval_map *__stop__ftrace_eval_map[] __attribute__((weak));

/* Replace @len chars at @p by @value's digits; NULL when they do not fit. */
static char *kh_eval_replace(char *p, const struct trace_eval_map *map, size_t len)
{
	char digits[32];
	size_t n = (size_t)snprintf(digits, sizeof(digits), "%ld", (long)map->eval_value);

	if (n > len)
		return NULL;
	memcpy(p, digits, n);
	memmove(p + n, p + len, strlen(p + len) + 1);
	return p + n;
}

static int kh_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static void kh_update_print_fmt(char *fmt, const struct trace_eval_map *map)
{
	size_t len = strlen(map->eval_string);
	int quoted = 0;
	char *p = fmt;

	while (*p) {
		if (*p == '\\') {
			if (!p[1])
				return;
			p += 2;
			continue;
		}
		if (*p == '"') {
			quoted = !quoted;
			p++;
			continue;
		}
		if (quoted) {
			p++;
			continue;
		}
		if (isdigit((unsigned char)*p)) {
			/* A number (with suffixes like ULL), then whatever delimits it. */
			while (isalnum((unsigned char)*++p))
				;
			if (!*p)
				return;
			p++;
			continue;
		}
		if (!isalpha((unsigned char)*p) && *p != '_') {
			p++;
			continue;
		}
		if (!strncmp(p, map->eval_string, len) && !kh_ident_char(p[len])) {
			char *next = kh_eval_replace(p, map, len);

			if (!next) {
				fprintf(stderr, "ref: %s=%ld is longer than its name, left as is\n",
					map->eval_string, (long)map->eval_value);
				return;
			}
			/* Two names cannot touch: skip what follows this one too. */
			p = next;
			if (*p)
				p++;
			continue;
		}
		/* Another identifier, with any member accesses after it. */
		for (;;) {
			while (kh_ident_char(*++p))
				;
			if (!*p)
				return;
			if (*p != '.' && !(p[0] == '-' && p[1] == '>'))
				break;
			/* The character after the '.' or '->' is taken as part of the name. */
			p += *p == '.' ? 1 : 2;
			if (!*p)
				return;
		}
		p++;
	}
}

/*
 * The field type without any "__attribute__((...))" that starts the type, follows a space or
 * follows the previous one removed; malloc'd.
 */
static char *kh_sanitize_type(const char *type)
{
	static const char attr[] = "__attribute__(";
	char *s = strdup(type);
	char *from = s, *a;

	if (!s)
		return NULL;
	while ((a = strstr(from, attr))) {
		int depth = 1;
		char *q = a + strlen(attr);

		if (a != from && !isspace((unsigned char)a[-1])) {
			from = q;
			continue;
		}
		while (depth > 0 && *q) {
			if (*q == '(')
				depth++;
			else if (*q == ')')
				depth--;
			q++;
		}
		if (depth > 0) {
			/* Unbalanced: the type as written. */
			free(s);
			return strdup(type);
		}
		while (isspace((unsigned char)*q))
			q++;
		memmove(a, q, strlen(q) + 1);
		from = a;
	}
	return s;
}

static void kh_print_field(FILE *f, const char *type, const char *name, unsigned int offset,
			   unsigned int size, int is_signed, int len)
{
	const char *bracket = strchr(type, '[');

	if (!strncmp(type, "__data_loc", 10))
		bracket = NULL;
	if (!bracket)
		fprintf(f, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", type, name, offset,
			size, !!is_signed);
	else if (len)
		fprintf(f, "\tfield:%.*s %s[%d];\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			(int)(bracket - type), type, name, len, offset, size, !!is_signed);
	else
		fprintf(f, "\tfield:%.*s %s[];\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			(int)(bracket - type), type, name, offset, size, !!is_signed);
}

static int kh_write_format(const char *dir, const struct kh_ref_event *ev, int id)
{
	const struct trace_event_fields *fl;
	unsigned int offset = sizeof(struct trace_entry);
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.format", dir, ev->name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "name: %s\nID: %d\nformat:\n", ev->name, id);
	kh_print_field(f, "unsigned short", "common_type", 0, 2, 0, 0);
	kh_print_field(f, "unsigned char", "common_flags", 2, 1, 0, 0);
	kh_print_field(f, "unsigned char", "common_preempt_count", 3, 1, 0, 0);
	kh_print_field(f, "int", "common_pid", 4, 4, 1, 0);
	fputc('\n', f);
	for (fl = ev->klass->fields; fl->type; fl++) {
		char *type = kh_sanitize_type(fl->type);

		if (!type) {
			fclose(f);
			return -1;
		}
		offset = (offset + (unsigned int)fl->align - 1) & ~((unsigned int)fl->align - 1);
		kh_print_field(f, type, fl->name, offset, (unsigned int)fl->size, fl->is_signed,
			       fl->len);
		offset += (unsigned int)fl->size;
		free(type);
	}
	fprintf(f, "\nprint fmt: %s\n", ev->print_fmt);
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct kh_ref_event **ev;
	struct trace_eval_map **map;
	int id = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (ev = __start_kh_ref_events; ev < __stop_kh_ref_events; ev++)
		for (map = __start__ftrace_eval_map; map < __stop__ftrace_eval_map; map++)
			if (!strcmp((*map)->system, (*ev)->klass->system))
				kh_update_print_fmt((*ev)->print_fmt, *map);
	for (ev = __start_kh_ref_events; ev < __stop_kh_ref_events; ev++)
		if (kh_write_format(argv[1], *ev, ++id))
			return 1;
	return 0;
}
