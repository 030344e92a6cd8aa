/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Synthetic events (the kernel's trace_events_synth.c): the parser of the
 * synthetic_events file, the events it defines (registered at run time in
 * the system "synthetic", with a tracepoint of their own), their records
 * and text, and trev__synth_trace(), which fires one.
 *
 * A record is laid out as the kernel lays it out (docs/hist.md):
 *
 *	OFFSET		SIZE	MEANING
 *	0		8	struct trev_entry (common fields)
 *	8 + 8 * k	8	a number field: its value in the first SIZE bytes
 *			256	a char[N] field: the text, NUL-terminated, N - 1 at most
 *			8	a char[] or unsigned long[] field: its __data_loc word
 *				(length << 16 | offset) in the low 4 bytes
 *	after the slots		the char[] texts, each with its NUL, and the
 *				unsigned long[] stacks: return addresses, innermost
 *				first, with a 0 after them when fewer than
 *				TREV_SYNTH_STACK_MAX
 */
#define _LGPL_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/rcu.h>
#include <trev/trace_event.h>

#include "base/buf.h"
#include "base/words.h"
#include "events/events_internal.h"
#include "sym/symbols.h"
#include "trigger/synth.h"

#define C(a, b)	b
static const char *const synth_err_text[] = { TREV_SYNTH_ERRORS };
#undef C

struct synth_field {
	char *type;		/* as the format shows it: "u64", "char[16]", "__data_loc char[]" */
	char *name;
	unsigned int size;	/* in the format: the number's, N of char[N], 8 for the dynamic ones */
	unsigned int offset;	/* in the record */
	bool is_signed;		/* the kernel's rule: types not starting with 'u', but gfp_t */
	bool is_string;		/* char[N] or char[] */
	bool is_dynamic;	/* char[] or a stack */
	bool is_stack;		/* "long[" in its type: the kernel's unsigned long[] stacktrace field */
};

struct trev_synth_event {
	struct trev_event_call call;	/* registered while the event exists */
	struct trev_event_class klass;
	struct trev_tracepoint tp;	/* enabling registers synth_probe() here */
	char *name;
	struct synth_field *fields;
	unsigned int n_fields;
	unsigned int fixed_size;	/* common fields and every slot */
	int ref;			/* triggers that fire it (the tracefs lock) */
	struct trev_synth_event *next;	/* every synthetic event, newest last */
};

/* The list, the references; under the tracefs lock too, in the control path only. */
static pthread_mutex_t synth_lock = PTHREAD_MUTEX_INITIALIZER;
static struct trev_synth_event *synth_events;

#define synth_of(c)	((struct trev_synth_event *)(void *)((char *)(c) - \
				offsetof(struct trev_synth_event, call)))

/* ------------------------------------------------------------------ */
/* Types                                                                */

static const struct {
	const char *type;
	unsigned int size;
	const char *fmt;	/* in the print fmt, as the kernel's synth_field_fmt() */
} synth_types[] = {
	{ "s64", 8, "%lld" }, { "u64", 8, "%llu" }, { "s32", 4, "%d" }, { "u32", 4, "%u" },
	{ "s16", 2, "%d" }, { "u16", 2, "%u" }, { "s8", 1, "%d" }, { "u8", 1, "%u" },
	{ "char", 1, "%d" }, { "unsigned char", 1, "%u" }, { "int", 4, "%d" },
	{ "unsigned int", 4, "%u" }, { "long", 8, "%ld" }, { "unsigned long", 8, "%lu" },
	{ "bool", 1, "%d" }, { "pid_t", 4, "%d" }, { "gfp_t", 4, "%x" },
};

static const char *synth_field_fmt(const struct synth_field *f)
{
	if (f->is_string || f->is_stack)
		return "%s";
	for (size_t i = 0; i < sizeof(synth_types) / sizeof(synth_types[0]); i++)
		if (strcmp(f->type, synth_types[i].type) == 0)
			return synth_types[i].fmt;
	return "%llu";
}

/*
 * The kernel's synth_field_string_size(): N of "char[N]" (0 for "char[]"),
 * N at most 3 digits and at most 256; -EINVAL for anything else.
 */
static int synth_string_size(const char *type)
{
	const char *start = strstr(type, "char["), *end;
	char digits[4], *stop;
	unsigned long n;

	start += strlen("char[");
	end = strchr(type, ']');
	if (!end || end < start || end[1] != '\0' || end - start > 3)
		return -EINVAL;
	if (end == start)
		return 0;
	memcpy(digits, start, (size_t)(end - start));
	digits[end - start] = '\0';
	errno = 0;
	n = strtoul(digits, &stop, 0);
	if (errno || *stop || !isdigit((unsigned char)digits[0]) || n > TREV_SYNTH_STR_MAX)
		return -EINVAL;
	return (int)n;
}

/* The kernel's synth_field_size(): bytes, 0 for an unknown type or char[], or -EINVAL. */
static int synth_type_size(const char *type)
{
	for (size_t i = 0; i < sizeof(synth_types) / sizeof(synth_types[0]); i++)
		if (strcmp(type, synth_types[i].type) == 0)
			return (int)synth_types[i].size;
	if (strstr(type, "char["))
		return synth_string_size(type);
	return 0;
}

/* The kernel's is_good_name(): [A-Za-z_][A-Za-z0-9_]*. */
static bool synth_good_name(const char *name)
{
	if (!isalpha((unsigned char)*name) && *name != '_')
		return false;
	while (*++name)
		if (!isalnum((unsigned char)*name) && *name != '_')
			return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* The parser                                                           */

struct synth_parse {
	const char *cmd;		/* the command, blanks before it skipped */
	struct trev_synth_error *err;
};

/* Refuse with @code at the first occurrence of @at in the command (the kernel's err_pos()). */
static int synth_fail(struct synth_parse *p, enum trev_synth_err code, const char *at)
{
	const char *found = at && *at ? strstr(p->cmd, at) : NULL;

	p->err->msg = synth_err_text[code];
	p->err->pos = found ? (int)(found - p->cmd) : 0;
	return -EINVAL;
}

static void synth_free_fields(struct synth_field *fields, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		free(fields[i].type);
		free(fields[i].name);
	}
}

/*
 * One field from @argv (the kernel's parse_synth_field()): "type name",
 * "unsigned type name", with "[N]" or "[]" after the name for a string.
 * Return: the words used, or -EINVAL / -ENOMEM.
 */
static int synth_parse_field(struct synth_parse *p, int argc, char **argv, struct synth_field *f)
{
	const char *prefix = "", *type = argv[0], *name, *array;
	int used, size;
	size_t len;

	memset(f, 0, sizeof(*f));
	if (strcmp(type, "unsigned") == 0) {
		if (argc < 3)
			return synth_fail(p, TREV_SYNTH_ERR_INCOMPLETE_TYPE, type);
		prefix = "unsigned ";
		type = argv[1];
		name = argv[2];
		used = 3;
	} else {
		name = argc > 1 ? argv[1] : NULL;
		used = 2;
	}
	if (!name)
		return synth_fail(p, TREV_SYNTH_ERR_INVALID_FIELD, type);
	array = strchr(name, '[');
	len = array ? (size_t)(array - name) : strlen(name);
	f->name = strndup(name, len);
	if (!f->name)
		return -ENOMEM;
	if (!synth_good_name(f->name))
		return synth_fail(p, TREV_SYNTH_ERR_BAD_NAME, name);
	if (asprintf(&f->type, "%s%s%s", prefix, type, array ? array : "") < 0) {
		f->type = NULL;
		return -ENOMEM;
	}
	size = synth_type_size(f->type);
	if (size < 0)
		return synth_fail(p, array ? TREV_SYNTH_ERR_INVALID_ARRAY_SPEC :
				  TREV_SYNTH_ERR_INVALID_TYPE, array ? name : type);
	f->is_string = strstr(f->type, "char[") != NULL;
	f->is_stack = !f->is_string && strstr(f->type, "long[") != NULL;
	if (size == 0) {
		char *dyn;

		if (!f->is_string && !f->is_stack)
			return synth_fail(p, TREV_SYNTH_ERR_INVALID_TYPE, type);
		if (asprintf(&dyn, "__data_loc %s", f->type) < 0)
			return -ENOMEM;
		free(f->type);
		f->type = dyn;
		f->is_dynamic = true;
		/* As the kernel 6.1's format shows a dynamic field: its u64 slot. */
		size = 8;
	}
	f->size = (unsigned int)size;
	f->is_signed = f->type[0] != 'u' && strcmp(f->type, "gfp_t") != 0;
	return used;
}

/* The fields after the name (the kernel's __create_synth_event() loop). */
static int synth_parse_fields(struct synth_parse *p, char *text, struct synth_field *fields,
			      unsigned int *n_fields)
{
	char *seg, *argv[3 * TREV_SYNTH_FIELDS_MAX + 2];

	while ((seg = strsep(&text, ";"))) {
		int argc = trev__split_words(seg, argv, (int)(sizeof(argv) / sizeof(argv[0])));

		if (argc < 0)
			return synth_fail(p, TREV_SYNTH_ERR_TOO_MANY_FIELDS, NULL);
		for (int used = 0; used < argc;) {
			int n;

			if (*n_fields == TREV_SYNTH_FIELDS_MAX)
				return synth_fail(p, TREV_SYNTH_ERR_TOO_MANY_FIELDS, NULL);
			n = synth_parse_field(p, argc - used, argv + used, &fields[*n_fields]);
			(*n_fields)++;	/* owned now, freed with the others on error */
			if (n < 0)
				return n;
			used += n;
		}
	}
	if (!*n_fields)
		return synth_fail(p, TREV_SYNTH_ERR_INVALID_CMD, NULL);
	return 0;
}

/* The kernel's check_command(): the text before the first ';' has 3 words or more. */
static bool synth_command_ok(const char *cmd)
{
	const char *s = cmd;
	int words = 0;

	if (*cmd == '!')
		return true;
	while (*s && *s != ';') {
		while (*s && *s != ';' && isspace((unsigned char)*s))
			s++;
		if (!*s || *s == ';')
			break;
		words++;
		while (*s && *s != ';' && !isspace((unsigned char)*s))
			s++;
	}
	return words >= 3;
}

/* ------------------------------------------------------------------ */
/* The events                                                           */

static struct trev_synth_event *synth_find(const char *name)
{
	for (struct trev_synth_event *se = synth_events; se; se = se->next)
		if (strcmp(se->name, name) == 0)
			return se;
	return NULL;
}

static int synth_define_fields(struct trev_event_call *call)
{
	struct trev_synth_event *se = synth_of(call);

	for (unsigned int i = 0; i < se->n_fields; i++) {
		const struct synth_field *f = &se->fields[i];
		int ret = trev_event_define_field(call, f->type, f->name, (int)f->offset,
						  (int)f->size, f->is_signed, TREV_FILTER_OTHER);

		if (ret)
			return ret;
	}
	return 0;
}

/* A number field's value as the kernel prints it: 1 and 2 bytes unsigned, wider as the type. */
static void synth_print_num(struct trev_seq *s, const struct synth_field *f, const unsigned char *at)
{
	uint64_t v = 0;

	memcpy(&v, at, f->size);	/* little-endian: the low bytes first */
	if (strcmp(f->type, "gfp_t") == 0)
		trev_seq_printf(s, "%s=%" PRIx64, f->name, v);
	else if (f->size == 4 && f->is_signed)
		trev_seq_printf(s, "%s=%d", f->name, (int32_t)(uint32_t)v);
	else if (f->size == 8 && f->is_signed)
		trev_seq_printf(s, "%s=%" PRId64, f->name, (int64_t)v);
	else
		trev_seq_printf(s, "%s=%" PRIu64, f->name, v);
}

/*
 * The kernel's stack field: "name=STACK:" and a line "=> func+0x1a/0x40" per
 * address, up to the first 0 or the data's end.
 */
static void synth_print_stack(struct trev_seq *s, const struct synth_field *f,
			      const unsigned char *rec, unsigned int ent_size)
{
	uint32_t loc, off, len;

	memcpy(&loc, rec + f->offset, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	trev_seq_printf(s, "%s=STACK:\n", f->name);
	if (off + len > ent_size)
		return;
	for (uint32_t k = 0; k + sizeof(unsigned long) <= len; k += sizeof(unsigned long)) {
		unsigned long addr;
		char sym[256];

		memcpy(&addr, rec + off + k, sizeof(addr));
		if (!addr)
			break;
		trev__sym_snprint(sym, sizeof(sym), addr, TREV_SYM_OFFSET);
		trev_seq_printf(s, "=> %s\n", sym);
	}
}

/* The kernel's print_synth_event(): "name: field=value field=value". */
static int synth_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	const struct trev_synth_event *se = synth_of(call);
	const unsigned char *rec = (const unsigned char *)iter->ent;
	struct trev_seq *s = &iter->seq;

	trev_event_output_prep(iter, call);
	if (iter->ent_size < se->fixed_size)
		return trev_seq_puts(s, "<record too short>\n");
	for (unsigned int i = 0; i < se->n_fields; i++) {
		const struct synth_field *f = &se->fields[i];
		const unsigned char *at = rec + f->offset;

		/* A stack's lines end with their newline: the next field starts its line. */
		if (i && !se->fields[i - 1].is_stack)
			trev_seq_putc(s, ' ');
		if (f->is_stack) {
			synth_print_stack(s, f, rec, iter->ent_size);
		} else if (f->is_dynamic) {
			uint32_t loc, off, len;

			memcpy(&loc, at, 4);
			off = loc & 0xffff;
			len = loc >> 16;
			if (off + len > iter->ent_size || !len)
				trev_seq_printf(s, "%s=", f->name);
			else
				trev_seq_printf(s, "%s=%.*s", f->name, (int)len, (const char *)rec + off);
		} else if (f->is_string) {
			trev_seq_printf(s, "%s=%.*s", f->name, (int)f->size, (const char *)at);
		} else {
			synth_print_num(s, f, at);
		}
	}
	return trev_seq_putc(s, '\n');
}

/* The kernel's set_synth_event_print_fmt(). */
static char *synth_print_fmt(const struct trev_synth_event *se)
{
	struct trev_buf b = TREV_BUF_INIT;
	int ret = trev__buf_puts(&b, "\"");

	for (unsigned int i = 0; !ret && i < se->n_fields; i++)
		ret = trev__buf_printf(&b, "%s=%s%s", se->fields[i].name,
				       synth_field_fmt(&se->fields[i]),
				       i == se->n_fields - 1 ? "" : ", ");
	if (!ret)
		ret = trev__buf_puts(&b, "\"");
	for (unsigned int i = 0; !ret && i < se->n_fields; i++)
		ret = trev__buf_printf(&b, se->fields[i].is_stack ? ", __get_stacktrace(%s)" :
				       se->fields[i].is_dynamic ? ", __get_str(%s)" :
				       ", REC->%s", se->fields[i].name);
	if (ret) {
		trev__buf_free(&b);
		return NULL;
	}
	return trev__buf_detach(&b);
}

/* Copy @str into @dst, at most @max bytes with the NUL; Return: bytes with the NUL. */
static unsigned int synth_strcpy(char *dst, const char *str, unsigned int max)
{
	unsigned int n = 0;

	if (!str)
		str = "(null)";
	while (n + 1 < max && str[n]) {
		dst[n] = str[n];
		n++;
	}
	dst[n] = '\0';
	return n + 1;
}

static unsigned int synth_strlen(const char *str)
{
	unsigned int n = 0;

	if (!str)
		return sizeof("(null)");
	while (n + 1 < TREV_SYNTH_STR_MAX && str[n])
		n++;
	return n + 1;
}

/*
 * A stack value's bytes in the record (the kernel's trace_stack()): its
 * addresses up to the first 0, TREV_SYNTH_STACK_MAX at most, and that 0
 * when it fits. NULL: none.
 */
static unsigned int synth_stacklen(const unsigned long *stack)
{
	unsigned int n = 0;

	if (!stack)
		return 0;
	while (n < TREV_SYNTH_STACK_MAX && stack[n])
		n++;
	if (n < TREV_SYNTH_STACK_MAX)
		n++;
	return n * (unsigned int)sizeof(unsigned long);
}

/* The probe, registered on the event's tracepoint when it is enabled; @data is the file. */
static void synth_probe(void *data, const struct trev_synth_event *se, const uint64_t *vals)
{
	struct trev_event_file *file = data;
	struct trev_event_buffer fb;
	unsigned int len = se->fixed_size, dyn;
	unsigned char *rec;

	for (unsigned int i = 0; i < se->n_fields; i++)
		if (se->fields[i].is_stack)
			len += synth_stacklen((const unsigned long *)(uintptr_t)vals[i]);
		else if (se->fields[i].is_dynamic)
			len += synth_strlen((const char *)(uintptr_t)vals[i]);
	rec = trev_event_buffer_reserve(&fb, file, len);
	if (!rec)
		return;
	memset(rec + sizeof(struct trev_entry), 0, len - sizeof(struct trev_entry));
	dyn = se->fixed_size;
	for (unsigned int i = 0; i < se->n_fields; i++) {
		const struct synth_field *f = &se->fields[i];
		unsigned char *at = rec + f->offset;

		if (f->is_stack) {
			unsigned int n = synth_stacklen((const unsigned long *)(uintptr_t)vals[i]);
			uint32_t loc = (uint32_t)n << 16 | dyn;

			if (n)
				memcpy(rec + dyn, (const void *)(uintptr_t)vals[i], n);
			/* The 0 that ends a short stack: the reservation is zeroed. */
			memcpy(at, &loc, 4);
			dyn += n;
		} else if (f->is_dynamic) {
			unsigned int n = synth_strcpy((char *)rec + dyn,
						      (const char *)(uintptr_t)vals[i],
						      TREV_SYNTH_STR_MAX);
			uint32_t loc = (uint32_t)n << 16 | dyn;

			memcpy(at, &loc, 4);
			dyn += n;
		} else if (f->is_string) {
			synth_strcpy((char *)at, (const char *)(uintptr_t)vals[i], f->size);
		} else {
			memcpy(at, &vals[i], f->size);	/* the low bytes, little-endian */
		}
	}
	trev_event_buffer_commit(&fb);
}

typedef void (*synth_probe_fn)(void *data, const struct trev_synth_event *se,
			       const uint64_t *vals);

void trev__synth_trace(struct trev_synth_event *se, const uint64_t *vals)
{
	struct trev_tracepoint_func *f;
	struct trev_rcu_section s;

	if (!trev_static_key_false(&se->tp.key))
		return;
	s = trev_rcu_read_lock();
	f = __atomic_load_n(&se->tp.funcs, __ATOMIC_ACQUIRE);
	for (; f && f->func; f++)
		((synth_probe_fn)f->func)(f->data, se, vals);
	trev_rcu_read_unlock(s);
}

static void synth_free(struct trev_synth_event *se)
{
	if (!se)
		return;
	synth_free_fields(se->fields, se->n_fields);
	free(se->fields);
	free((char *)se->call.print_fmt);
	free(se->name);
	free(se);
}

static struct trev_synth_event *synth_alloc(const char *name, struct synth_field *fields,
					    unsigned int n_fields)
{
	struct trev_synth_event *se = calloc(1, sizeof(*se));
	unsigned int offset = sizeof(struct trev_entry);

	if (!se)
		return NULL;
	se->name = strdup(name);
	se->fields = calloc(n_fields, sizeof(*fields));
	if (!se->name || !se->fields) {
		free(se->fields);
		free(se->name);
		free(se);
		return NULL;
	}
	memcpy(se->fields, fields, n_fields * sizeof(*fields));
	se->n_fields = n_fields;
	for (unsigned int i = 0; i < n_fields; i++) {
		se->fields[i].offset = offset;
		offset += se->fields[i].is_string && !se->fields[i].is_dynamic ?
			  TREV_SYNTH_STR_MAX : 8;
	}
	se->fixed_size = offset;
	se->tp.abi = (struct trev_abi_hdr)TREV_ABI_HDR(struct trev_tracepoint);
	se->tp.name = se->name;
	se->klass.abi = (struct trev_abi_hdr)TREV_ABI_HDR(struct trev_event_class);
	se->klass.system = TREV_SYNTH_SYSTEM;
	se->klass.probe = (void *)synth_probe;
	se->klass.define_fields = synth_define_fields;
	se->klass.entry_size = offset;
	se->call.abi = (struct trev_abi_hdr)TREV_ABI_HDR(struct trev_event_call);
	se->call.klass = &se->klass;
	se->call.name = se->name;
	se->call.tp = &se->tp;
	se->call.output = synth_output;
	se->call.print_fmt = synth_print_fmt(se);
	if (!se->call.print_fmt) {
		se->n_fields = 0;	/* the caller frees the fields */
		synth_free(se);
		return NULL;
	}
	return se;
}

/* Define @name with the fields in @text (synth_lock held). */
static int synth_create(struct synth_parse *p, const char *name, const char *text)
{
	struct synth_field fields[TREV_SYNTH_FIELDS_MAX];
	struct trev_synth_event *se, **tail;
	unsigned int n_fields = 0;
	char *copy;
	int ret;

	if (!*name)
		return synth_fail(p, TREV_SYNTH_ERR_INVALID_CMD, NULL);
	/* A name longer than tracefs paths take is refused too (docs/hist.md). */
	if (!synth_good_name(name) || strlen(name) >= TREV_NAME_MAX)
		return synth_fail(p, TREV_SYNTH_ERR_BAD_NAME, name);
	if (synth_find(name)) {
		synth_fail(p, TREV_SYNTH_ERR_EVENT_EXISTS, name);
		return -EEXIST;
	}
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	ret = synth_parse_fields(p, copy, fields, &n_fields);
	free(copy);
	if (ret)
		goto out_free_fields;
	ret = -ENOMEM;
	se = synth_alloc(name, fields, n_fields);
	if (!se)
		goto out_free_fields;
	ret = trev__events_register_dynamic(&se->call);
	if (ret) {
		se->n_fields = 0;	/* the fields are freed below */
		synth_free(se);
		goto out_free_fields;
	}
	for (tail = &synth_events; *tail; tail = &(*tail)->next)
		;
	*tail = se;
	return 0;

out_free_fields:
	synth_free_fields(fields, n_fields);
	return ret;
}

/* Remove @se if nothing uses it (synth_lock held). */
static int synth_destroy(struct trev_synth_event *se)
{
	struct trev_synth_event **pp;
	int ret;

	if (se->ref)
		return -EBUSY;
	ret = trev__events_unregister_dynamic(&se->call);
	if (ret)
		return ret;
	for (pp = &synth_events; *pp != se; pp = &(*pp)->next)
		;
	*pp = se->next;
	/* Its probe was never registered (not enabled): no event can be in it. */
	synth_free(se);
	return 0;
}

int trev__synth_command(const char *line, struct trev_synth_error *err)
{
	struct synth_parse p = { NULL, err };
	struct trev_synth_event *se;
	const char *sp;
	char *name;
	int ret;

	err->msg = NULL;
	err->pos = 0;
	while (isspace((unsigned char)*line))
		line++;
	err->cmd = line;
	p.cmd = line;
	if (!*line)
		return 0;
	if (!synth_command_ok(line))
		return synth_fail(&p, TREV_SYNTH_ERR_INVALID_CMD, NULL);
	sp = strpbrk(line, " \t");
	if (!sp && *line != '!')
		return synth_fail(&p, TREV_SYNTH_ERR_INVALID_CMD, NULL);
	name = strndup(line, sp ? (size_t)(sp - line) : strlen(line));
	if (!name)
		return -ENOMEM;
	pthread_mutex_lock(&synth_lock);
	if (*name == '!') {
		se = synth_find(name + 1);
		ret = se ? synth_destroy(se) : -ENOENT;
	} else {
		while (isspace((unsigned char)*sp))
			sp++;
		ret = synth_create(&p, name, sp);
	}
	pthread_mutex_unlock(&synth_lock);
	free(name);
	return ret;
}

int trev__synth_release_all(void)
{
	int ret = 0;

	pthread_mutex_lock(&synth_lock);
	/* All or none, as the kernel's dyn_events_release_all(). */
	for (struct trev_synth_event *se = synth_events; se && !ret; se = se->next)
		if (se->ref)
			ret = -EBUSY;
	while (!ret && synth_events)
		ret = synth_destroy(synth_events);
	pthread_mutex_unlock(&synth_lock);
	return ret;
}

/* Every event's definition, each after @prefix. */
static int synth_show_all(struct trev_buf *out, const char *prefix)
{
	int ret = 0;

	pthread_mutex_lock(&synth_lock);
	for (struct trev_synth_event *se = synth_events; se && !ret; se = se->next) {
		ret = trev__buf_printf(out, "%s%s\t", prefix, se->name);
		for (unsigned int i = 0; !ret && i < se->n_fields; i++) {
			const struct synth_field *f = &se->fields[i];
			const char *type = f->type;

			/* __data_loc is the format's, not the definition's. */
			if (f->is_dynamic)
				type += strlen("__data_loc ");
			ret = trev__buf_printf(out, "%s %s%s", type, f->name,
					       i == se->n_fields - 1 ? "" : "; ");
		}
		if (!ret)
			ret = trev__buf_putc(out, '\n');
	}
	pthread_mutex_unlock(&synth_lock);
	return ret;
}

int trev__synth_show(struct trev_buf *out)
{
	return synth_show_all(out, "");
}

int trev__synth_dyn_show(struct trev_buf *out)
{
	return synth_show_all(out, "s:" TREV_SYNTH_SYSTEM "/");
}

int trev__synth_dyn_create(const char *line, struct trev_synth_error *err)
{
	struct synth_parse p = { NULL, err };
	const char *name, *sp, *fields;
	char *copy;
	int ret;

	err->msg = NULL;
	err->pos = 0;
	while (isspace((unsigned char)*line))
		line++;
	err->cmd = line;
	p.cmd = line;
	if (!*line)
		return 0;
	if (line[0] != 's' || line[1] != ':')
		return -ECANCELED;
	name = line + 2;
	sp = strpbrk(line, " \t");
	if (!sp)
		return synth_fail(&p, TREV_SYNTH_ERR_INVALID_CMD, NULL);
	fields = sp;
	while (isspace((unsigned char)*fields))
		fields++;
	/* The system may be given, and only as "synthetic/" (the kernel looks for '/' in all). */
	if (strchr(name, '/')) {
		if (strncmp(name, TREV_SYNTH_SYSTEM "/", strlen(TREV_SYNTH_SYSTEM "/")))
			return synth_fail(&p, TREV_SYNTH_ERR_INVALID_DYN_CMD, NULL);
		name += strlen(TREV_SYNTH_SYSTEM "/");
	}
	if (!synth_command_ok(name) || name >= sp)
		return synth_fail(&p, TREV_SYNTH_ERR_INVALID_CMD, NULL);
	copy = strndup(name, (size_t)(sp - name));
	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&synth_lock);
	ret = synth_create(&p, copy, fields);
	pthread_mutex_unlock(&synth_lock);
	free(copy);
	return ret;
}

int trev__synth_dyn_remove(const char *system, const char *name)
{
	struct trev_synth_event *se;
	int ret;

	if (system && strcmp(system, TREV_SYNTH_SYSTEM))
		return -ENOENT;
	pthread_mutex_lock(&synth_lock);
	se = synth_find(name);
	ret = se ? synth_destroy(se) : -ENOENT;
	pthread_mutex_unlock(&synth_lock);
	return ret;
}

/*
 * Without synth_lock: the tracefs lock, which every change of the list and
 * of ->ref holds too, orders them. A hist trigger takes its reference while
 * parsing, under the registry lock, which synth_create() takes inside
 * synth_lock: taking synth_lock here would order the two locks both ways.
 */
struct trev_synth_event *trev__synth_get(const char *name)
{
	struct trev_synth_event *se = synth_find(name);

	if (se)
		se->ref++;
	return se;
}

void trev__synth_put(struct trev_synth_event *se)
{
	if (se)
		se->ref--;
}

unsigned int trev__synth_nr_fields(const struct trev_synth_event *se)
{
	return se->n_fields;
}

const char *trev__synth_field_name(const struct trev_synth_event *se, unsigned int i)
{
	return i < se->n_fields ? se->fields[i].name : NULL;
}

bool trev__synth_field_is_string(const struct trev_synth_event *se, unsigned int i)
{
	return i < se->n_fields && se->fields[i].is_string;
}

bool trev__synth_field_is_stack(const struct trev_synth_event *se, unsigned int i)
{
	return i < se->n_fields && se->fields[i].is_stack;
}

const char *trev__synth_field_type(const struct trev_synth_event *se, unsigned int i)
{
	return i < se->n_fields ? se->fields[i].type : NULL;
}

unsigned int trev__synth_field_size(const struct trev_synth_event *se, unsigned int i)
{
	return i < se->n_fields ? se->fields[i].size : 0;
}

bool trev__synth_field_is_signed(const struct trev_synth_event *se, unsigned int i)
{
	return i < se->n_fields && se->fields[i].is_signed;
}

bool trev__synth_field_is_dynamic(const struct trev_synth_event *se, unsigned int i)
{
	return i < se->n_fields && se->fields[i].is_dynamic;
}
