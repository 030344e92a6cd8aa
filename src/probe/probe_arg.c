/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Probe definitions and their fetch arguments (the kernel's trace_probe.c
 * and the parsers of trace_kprobe.c and trace_uprobe.c): the parser, with
 * the kernel's error texts and caret columns, and the fetch interpreter,
 * whose every memory read is a fault-safe copy. docs/probes.md.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <trev/trace_seq.h>

#include "base/words.h"
#include "probe/probe.h"
#include "sym/symbols.h"

#define C(a, b)	b
static const char *const probe_err_text[] = { TREV_PROBE_ERRORS };
#undef C

const char *trev__probe_err_text(enum trev_probe_err code)
{
	return code < TREV_PROBE_ERR__COUNT ? probe_err_text[code] : "";
}

/* The kernel's types (probe_fetch_types[]); x64 is the default. */
static const struct trev_probe_type probe_types[] = {
	{ "string", 4, true, "\\\"%s\\\"", "__data_loc char[]", 'S' },
	{ "ustring", 4, true, "\\\"%s\\\"", "__data_loc char[]", 'S' },
	{ "symstr", 4, true, "\\\"%s\\\"", "__data_loc char[]", 'S' },
	{ "u8", 1, false, "%u", "u8", 'u' },
	{ "u16", 2, false, "%u", "u16", 'u' },
	{ "u32", 4, false, "%u", "u32", 'u' },
	{ "u64", 8, false, "%Lu", "u64", 'u' },
	{ "s8", 1, true, "%d", "s8", 's' },
	{ "s16", 2, true, "%d", "s16", 's' },
	{ "s32", 4, true, "%d", "s32", 's' },
	{ "s64", 8, true, "%Ld", "s64", 's' },
	{ "x8", 1, false, "0x%x", "u8", 'x' },
	{ "x16", 2, false, "0x%x", "u16", 'x' },
	{ "x32", 4, false, "0x%x", "u32", 'x' },
	{ "x64", 8, false, "0x%Lx", "u64", 'x' },
	{ "char", 1, false, "'%c'", "u8", 'c' },
	{ "symbol", 8, false, "%pS", "u64", 'y' },
};

static const struct trev_probe_type *probe_find_type(const char *name)
{
	if (!name)
		name = "x64";
	/* b<bits>@<off>/<size>: the container's unsigned type. */
	if (*name == 'b') {
		const char *slash = strchr(name, '/');
		char *end;
		unsigned long bs;

		if (!slash || !isdigit((unsigned char)slash[1]))
			return NULL;
		errno = 0;
		bs = strtoul(slash + 1, &end, 0);
		if (errno || *end)
			return NULL;
		switch (bs) {
		case 8:
			return probe_find_type("u8");
		case 16:
			return probe_find_type("u16");
		case 32:
			return probe_find_type("u32");
		case 64:
			return probe_find_type("u64");
		default:
			return NULL;
		}
	}
	for (size_t i = 0; i < sizeof(probe_types) / sizeof(probe_types[0]); i++)
		if (strcmp(name, probe_types[i].name) == 0)
			return &probe_types[i];
	return NULL;
}

const struct trev_probe_type *trev__probe_type(const char *name)
{
	return probe_find_type(name);
}

void trev__probe_layout(struct trev_probe_def *def)
{
	def->size = 0;
	for (unsigned int i = 0; i < def->nr_args; i++) {
		struct trev_probe_arg *a = &def->args[i];

		a->offset = def->size;
		def->size += a->type->size * (a->count ? a->count : 1);
	}
}

bool trev__probe_def_dwarf(const struct trev_probe_def *def)
{
	for (unsigned int i = 0; i < def->nr_args; i++) {
		const struct trev_probe_arg *a = &def->args[i];

		if (a->base == TREV_PB_VAR || a->base == TREV_PB_ARGS || (a->retval && !a->typed))
			return true;
	}
	return false;
}

bool trev__probe_good_name(const char *name)
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

struct probe_parse {
	struct trev_probe_error *err;
	char **argv;		/* the words of the line */
	int argc;
	int index;		/* the word the next error is in */
	bool kernel;		/* a kprobe's syntax (SYMBOL target): @SYM allowed, @+offs not */
	bool is_return;
	bool var_args;		/* $arg* seen */
};

/* The kernel's __trace_probe_log_err(): the words joined, the caret at word @index + @offs. */
static int probe_fail(struct probe_parse *p, int offs, enum trev_probe_err code)
{
	struct trev_probe_error *err = p->err;
	size_t len = 0;
	int pos = 0;

	err->cmd[0] = '\0';
	for (int i = 0; i < p->argc; i++) {
		if (i == p->index)
			pos = (int)len;
		len += (size_t)snprintf(err->cmd + (len < sizeof(err->cmd) ? len : sizeof(err->cmd) - 1),
					len < sizeof(err->cmd) ? sizeof(err->cmd) - len : 1,
					"%s%s", p->argv[i], i + 1 < p->argc ? " " : "");
	}
	if (p->index >= p->argc) {
		pos = (int)len + 1;	/* after the last word and a blank */
		offs = 0;
	}
	err->msg = probe_err_text[code];
	err->pos = pos + offs;
	/* A command longer than the entry keeps: the caret at its end at most. */
	if ((size_t)err->pos > strlen(err->cmd) + 1)
		err->pos = (int)strlen(err->cmd) + 1;
	return -EINVAL;
}

static int probe_strtoul(const char *s, int base, unsigned long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, base);
	return errno || *end ? -EINVAL : 0;
}

static int probe_strtol(const char *s, int base, long *v)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtol(s, &end, base);
	return errno || *end ? -EINVAL : 0;
}

/* The column of word p->index's byte @offs in the error's command (the words joined by one blank). */
static int probe_col(const struct probe_parse *p, int offs)
{
	int col = 0;

	for (int i = 0; i < p->index && i < p->argc; i++)
		col += (int)strlen(p->argv[i]) + 1;
	return col + offs;
}

/*
 * A variable (a parameter by name, or $retval, with "->" and "." members:
 * the kernel's BTF arguments), checked for what needs no DWARF (the
 * kernel's split_next_field() and parse_btf_arg()) and kept for
 * trev__probe_dwarf_resolve(). @offs: the column of @var in its word.
 */
static int probe_parse_varname(struct probe_parse *p, const char *var, struct trev_probe_arg *a,
			       int offs)
{
	const char *sep = strpbrk(var, ".-");

	for (const char *c = sep; c; c = strpbrk(c + 1, ".-"))
		if (*c == '-' && c[1] != '>')
			return probe_fail(p, offs + (int)(c - var), TREV_PROBE_ERR_BAD_HYPHEN);
	/* The first member after a '.': a struct argument by value, not supported. */
	if (sep && *sep == '.')
		return probe_fail(p, offs + (int)(sep + 1 - var), TREV_PROBE_ERR_NOSUP_DAT_ARG);
	a->base = TREV_PB_VAR;
	a->col = probe_col(p, offs);
	a->word = (unsigned int)p->index;
	free(a->data);
	a->data = strdup(var);
	return a->data ? 0 : -ENOMEM;
}

/* x86-64 struct pt_regs by name (the kernel's regoffset_table), as words of struct trev_regs. */
static int probe_reg(const char *name)
{
	static const char *const names[] = {
		"r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10",
		"r9", "r8", "ax", "cx", "dx", "si", "di", "orig_ax",
		"ip", "cs", "flags", "sp", "ss",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

/* $retval, $stack, $stackN, $comm, $argN (the kernel's parse_probe_vars()). */
static int probe_parse_var(struct probe_parse *p, const char *var, struct trev_probe_arg *a,
			   int offs)
{
	unsigned long n;

	if (strcmp(var, "retval") == 0 || strncmp(var, "retval->", 8) == 0 ||
	    strncmp(var, "retval.", 7) == 0) {
		if (!p->is_return)
			return probe_fail(p, offs, TREV_PROBE_ERR_RETVAL_ON_PROBE);
		if (var[6])
			return probe_parse_varname(p, var - 1, a, offs);
		a->base = TREV_PB_RETVAL;
		a->retval = true;
	} else if (strncmp(var, "stack", 5) == 0) {
		if (!var[5]) {
			a->base = TREV_PB_STACKP;
		} else if (isdigit((unsigned char)var[5]) && !probe_strtoul(var + 5, 10, &n)) {
			/* The kernel's PARAM_MAX_STACK (a 16 KiB stack) for the kprobe form. */
			if (n > (p->kernel ? 2048 : UINT_MAX / 8))
				return probe_fail(p, offs, TREV_PROBE_ERR_BAD_STACK_NUM);
			a->base = TREV_PB_STACK;
			a->param = (unsigned int)n;
		} else {
			return probe_fail(p, offs, TREV_PROBE_ERR_BAD_VAR);
		}
	} else if (strcmp(var, "comm") == 0) {
		a->base = TREV_PB_COMM;
	} else if (strncmp(var, "arg", 3) == 0 && isdigit((unsigned char)var[3])) {
		if (probe_strtoul(var + 3, 10, &n))
			return probe_fail(p, offs, TREV_PROBE_ERR_BAD_VAR);
		if (!n || n > 1024)
			return probe_fail(p, offs, TREV_PROBE_ERR_BAD_ARG_NUM);
		a->base = TREV_PB_ARG;
		a->param = (unsigned int)n - 1;
	} else {
		return probe_fail(p, offs, TREV_PROBE_ERR_BAD_VAR);
	}
	return 0;
}

/*
 * No room for one more dereference: the kernel's program of FETCH_INSN_MAX
 * (16) instructions, its last the end, holds the fetch (two for @SYM: the
 * symbol and its address) and the dereferences up to its 15th.
 */
static bool probe_ops_full(const struct trev_probe_arg *a)
{
	return (a->base == TREV_PB_SYM ? 2u : 1u) + a->nderef >= 15;
}

/*
 * One fetch expression (the kernel's parse_probe_arg(), recursive): @arg
 * is modified. Dereferences are appended to @a->deref in the order they
 * run (innermost first).
 */
static int probe_parse_fetch(struct probe_parse *p, char *arg, struct trev_probe_arg *a, int offs)
{
	unsigned long v;
	long off = 0;
	bool user = false;
	char *tmp;
	int ret, reg;

	switch (arg[0]) {
	case '$':
		return probe_parse_var(p, arg + 1, a, offs);
	case '%':
		reg = probe_reg(arg + 1);
		if (reg < 0)
			return probe_fail(p, offs, TREV_PROBE_ERR_BAD_REG_NAME);
		a->base = TREV_PB_REG;
		a->param = (unsigned int)reg;
		return 0;
	case '@':
		if (isdigit((unsigned char)arg[1])) {
			if (probe_strtoul(arg + 1, 0, &v))
				return probe_fail(p, offs, TREV_PROBE_ERR_BAD_MEM_ADDR);
			a->base = TREV_PB_IMM;
			a->imm = v;
		} else if (arg[1] == '+') {
			/* The kernel's @+FILE_OFFSET of a uprobe: not in a process (no file base). */
			if (p->kernel)
				return probe_fail(p, offs, TREV_PROBE_ERR_FILE_ON_KPROBE);
			if (probe_strtol(arg + 2, 0, &off))
				return probe_fail(p, offs, TREV_PROBE_ERR_BAD_FILE_OFFS);
			return probe_fail(p, offs, TREV_PROBE_ERR_BAD_FETCH_ARG);
		} else {
			/* The kernel's uprobes take no symbol; trev's SYMBOL targets (kprobe form) do. */
			if (!p->kernel)
				return probe_fail(p, offs, TREV_PROBE_ERR_SYM_ON_UPROBE);
			if (!arg[1])
				return probe_fail(p, offs, TREV_PROBE_ERR_BAD_FETCH_ARG);
			a->base = TREV_PB_SYM;
			free(a->data);
			a->data = strdup(arg + 1);
			if (!a->data)
				return -ENOMEM;
		}
		if (probe_ops_full(a))
			return probe_fail(p, offs, TREV_PROBE_ERR_TOO_MANY_OPS);
		a->deref[a->nderef].offset = 0;
		a->deref[a->nderef++].user = false;
		return 0;
	case '+':
	case '-':
		if (arg[1] == 'u') {
			user = true;
			arg[1] = arg[0];
			arg++;
		}
		if (arg[0] == '+')
			arg++;
		tmp = strchr(arg, '(');
		if (!tmp)
			return probe_fail(p, offs, TREV_PROBE_ERR_DEREF_NEED_BRACE);
		*tmp = '\0';
		if (probe_strtol(arg, 0, &off))
			return probe_fail(p, offs, TREV_PROBE_ERR_BAD_DEREF_OFFS);
		offs += (int)(tmp + 1 - arg) + (arg[0] != '-' ? 1 : 0) + (user ? 1 : 0);
		arg = tmp + 1;
		tmp = strrchr(arg, ')');
		if (!tmp)
			return probe_fail(p, offs + (int)strlen(arg), TREV_PROBE_ERR_DEREF_OPEN_BRACE);
		*tmp = '\0';
		ret = probe_parse_fetch(p, arg, a, offs);
		if (ret)
			return ret;
		if (a->base == TREV_PB_COMM || a->base == TREV_PB_DATA)
			return probe_fail(p, offs, TREV_PROBE_ERR_COMM_CANT_DEREF);
		if (probe_ops_full(a))
			return probe_fail(p, offs, TREV_PROBE_ERR_TOO_MANY_OPS);
		a->deref[a->nderef].offset = off;
		a->deref[a->nderef++].user = user;
		return 0;
	case '\\':
		if (arg[1] == '"') {
			size_t len = strlen(arg + 2);

			if (!len || arg[2 + len - 1] != '"')
				return probe_fail(p, offs + 2 + (int)len,
						  TREV_PROBE_ERR_IMMSTR_NO_CLOSE);
			a->base = TREV_PB_DATA;
			free(a->data);
			a->data = strndup(arg + 2, len - 1);
			return a->data ? 0 : -ENOMEM;
		}
		if (isdigit((unsigned char)arg[1])) {
			ret = probe_strtoul(arg + 1, 0, &v);
		} else if (arg[1] == '-' || arg[1] == '+') {
			ret = probe_strtol(arg + (arg[1] == '+' ? 2 : 1), 0, &off);
			v = (unsigned long)off;
		} else {
			ret = -EINVAL;
		}
		if (ret)
			return probe_fail(p, offs + 1, TREV_PROBE_ERR_BAD_IMM);
		a->base = TREV_PB_IMM;
		a->imm = v;
		return 0;
	default:
		/* A parameter by name, "name->member": the kernel's BTF arguments, from DWARF. */
		if (isalpha((unsigned char)arg[0]) || arg[0] == '_')
			return probe_parse_varname(p, arg, a, offs);
		return probe_fail(p, offs, TREV_PROBE_ERR_BAD_FETCH_ARG);
	}
}

/* b<bits>@<off>/<size> (the kernel's __parse_bitfield_probe_arg()). */
static int probe_parse_bitfield(const char *bf, struct trev_probe_arg *a)
{
	unsigned long bw, bo, width = 8ul * a->type->size;
	char *tail;

	if (*bf != 'b')
		return 0;
	bw = strtoul(bf + 1, &tail, 0);
	if (bw == 0 || *tail != '@')
		return -EINVAL;
	bf = tail + 1;
	bo = strtoul(bf, &tail, 0);
	if (tail == bf || *tail != '/')
		return -EINVAL;
	if (width < bw + bo)
		return -EINVAL;
	a->bitfield = true;
	a->bf_lshift = (unsigned char)(width - (bw + bo));
	a->bf_rshift = (unsigned char)(width - bw);
	return 0;
}

/* The body of one argument (the kernel's traceprobe_parse_probe_arg_body()). */
static int probe_parse_body(struct probe_parse *p, const char *body, struct trev_probe_arg *a,
			    unsigned int *size, int offset)
{
	char *arg, *t, *t2, *t3;
	size_t len = strlen(body);
	unsigned long n;
	int ret = -EINVAL;
	bool str;

	if (len > TREV_PROBE_ARGSTR_MAX)
		return probe_fail(p, offset, TREV_PROBE_ERR_ARG_TOO_LONG);
	if (len == 0)
		return probe_fail(p, offset, TREV_PROBE_ERR_NO_ARG_BODY);
	a->comm = strdup(body);
	arg = strdup(body);
	if (!a->comm || !arg) {
		free(arg);
		return -ENOMEM;
	}
	t = strchr(arg, ':');
	if (t) {
		*t++ = '\0';
		t2 = strchr(t, '[');
		if (t2) {
			*t2++ = '\0';
			t3 = strchr(t2, ']');
			if (!t3) {
				ret = probe_fail(p, offset + (int)(t2 + strlen(t2) - arg),
						 TREV_PROBE_ERR_ARRAY_NO_CLOSE);
				goto out;
			}
			if (t3[1]) {
				ret = probe_fail(p, offset + (int)(t3 + 1 - arg),
						 TREV_PROBE_ERR_BAD_ARRAY_SUFFIX);
				goto out;
			}
			*t3 = '\0';
			if (probe_strtoul(t2, 0, &n) || !n || n > UINT_MAX) {
				ret = probe_fail(p, offset + (int)(t2 - arg), TREV_PROBE_ERR_BAD_ARRAY_NUM);
				goto out;
			}
			if (n > TREV_PROBE_ARRAY_MAX) {
				ret = probe_fail(p, offset + (int)(t2 - arg), TREV_PROBE_ERR_ARRAY_TOO_BIG);
				goto out;
			}
			a->count = (unsigned int)n;
		}
	}
	/* $comm and an immediate string are strings, and no arrays. */
	if (strcmp(arg, "$comm") == 0 || strncmp(arg, "\\\"", 2) == 0) {
		if (a->count || (t && strcmp(t, "string"))) {
			ret = probe_fail(p, offset + (t ? (int)(t - arg) : 0), TREV_PROBE_ERR_BAD_TYPE);
			goto out;
		}
		a->type = probe_find_type("string");
	} else {
		a->type = probe_find_type(t);
	}
	if (!a->type) {
		ret = probe_fail(p, offset + (t ? (int)(t - arg) : 0), TREV_PROBE_ERR_BAD_TYPE);
		goto out;
	}
	a->typed = t != NULL;
	if (t && !(a->type_str = strdup(t))) {
		ret = -ENOMEM;
		goto out;
	}
	a->offset = *size;
	*size += a->type->size * (a->count ? a->count : 1);
	ret = probe_parse_fetch(p, arg, a, offset);
	if (ret)
		goto out;
	ret = -EINVAL;
	str = a->type->kind == 'S';
	a->dynamic = str;
	/* A variable's place comes from DWARF: its string and array checked then (probe_dwarf.c). */
	if (str && strcmp(a->type->name, "symstr") != 0 && a->base != TREV_PB_VAR) {
		/* A string is read from memory, or is $comm, an immediate or its address. */
		if (!a->nderef && a->base != TREV_PB_IMM && a->base != TREV_PB_COMM &&
		    a->base != TREV_PB_DATA) {
			ret = probe_fail(p, offset + (t ? (int)(t - arg) : 0),
					 TREV_PROBE_ERR_BAD_STRING);
			goto out;
		}
	}
	if (t && *t == 'b' && probe_parse_bitfield(t, a)) {
		ret = probe_fail(p, offset + (int)(t - arg), TREV_PROBE_ERR_BAD_BITFIELD);
		goto out;
	}
	/* An array is read from memory. */
	if (a->count && !a->nderef && a->base != TREV_PB_VAR &&
	    !(str && a->base == TREV_PB_IMM)) {
		ret = probe_fail(p, offset + (t ? (int)(t - arg) : 0), TREV_PROBE_ERR_BAD_STRING);
		goto out;
	}
	ret = 0;
out:
	free(arg);
	return ret;
}

/* One argument "[NAME=]FETCHARG[:TYPE]" (the kernel's traceprobe_parse_probe_arg()). */
static int probe_parse_arg(struct probe_parse *p, struct trev_probe_def *def, unsigned int i,
			   const char *arg)
{
	static const char *const reserved[] = {
		"common_type", "common_flags", "common_preempt_count", "common_pid",
		"common_tgid", "__probe_ip", "__probe_ret_ip", "__probe_func",
	};
	struct trev_probe_arg *a = &def->args[i];
	const char *body = strchr(arg, '=');
	const char *colon;

	def->nr_args++;
	/* $arg*: each parameter (DWARF), alone in its word, once (the kernel's argv_has_var_arg()). */
	if (strcmp(arg, "$arg*") == 0) {
		if (p->var_args)
			return probe_fail(p, 0, TREV_PROBE_ERR_DOUBLE_ARGS);
		p->var_args = true;
		a->base = TREV_PB_ARGS;
		a->col = probe_col(p, 0);
		a->word = (unsigned int)p->index;
		a->type = probe_find_type(NULL);
		a->name = strdup("__args");
		a->comm = strdup(arg);
		return a->name && a->comm ? 0 : -ENOMEM;
	}
	if (strstr(arg, "$arg*"))
		return probe_fail(p, 0, TREV_PROBE_ERR_BAD_VAR_ARGS);
	if (body) {
		if (body - arg > TREV_PROBE_ARGNAME_MAX)
			return probe_fail(p, 0, TREV_PROBE_ERR_ARG_NAME_TOO_LONG);
		if (body == arg)
			return probe_fail(p, 0, TREV_PROBE_ERR_NO_ARG_NAME);
		a->name = strndup(arg, (size_t)(body - arg));
		body++;
	} else {
		/* A variable names its field (the kernel's generate_probe_arg_name()), else argN. */
		colon = strchr(arg, ':');
		a->name = strndup(arg, colon ? (size_t)(colon - arg) : strlen(arg));
		if (a->name && !trev__probe_good_name(a->name)) {
			free(a->name);
			if (asprintf(&a->name, "arg%u", i + 1) < 0)
				a->name = NULL;
		}
		body = arg;
	}
	if (!a->name)
		return -ENOMEM;
	if (!trev__probe_good_name(a->name))
		return probe_fail(p, 0, TREV_PROBE_ERR_BAD_ARG_NAME);
	for (size_t k = 0; k < sizeof(reserved) / sizeof(reserved[0]); k++)
		if (strcmp(reserved[k], a->name) == 0)
			return probe_fail(p, 0, TREV_PROBE_ERR_USED_ARG_NAME);
	for (unsigned int k = 0; k < i; k++)
		if (strcmp(def->args[k].name, a->name) == 0)
			return probe_fail(p, 0, TREV_PROBE_ERR_USED_ARG_NAME);
	a->word = (unsigned int)p->index;
	a->col = probe_col(p, (int)(body - arg));
	return probe_parse_body(p, body, a, &def->size, (int)(body - arg));
}

/* The kernel's traceprobe_parse_event_name(): "[GRP/]EVENT" at column @offset of word 0. */
static int probe_parse_name(struct probe_parse *p, const char *event, int offset,
			    struct trev_probe_def *def)
{
	const char *slash = strchr(event, '/');
	size_t len;

	if (!slash)
		slash = strchr(event, '.');
	if (slash) {
		if (slash == event)
			return probe_fail(p, offset, TREV_PROBE_ERR_NO_GROUP_NAME);
		if (slash - event + 1 > TREV_PROBE_NAME_MAX)
			return probe_fail(p, offset, TREV_PROBE_ERR_GROUP_TOO_LONG);
		def->group = strndup(event, (size_t)(slash - event));
		if (!def->group)
			return -ENOMEM;
		if (!trev__probe_good_name(def->group))
			return probe_fail(p, offset, TREV_PROBE_ERR_BAD_GROUP_NAME);
		offset += (int)(slash - event + 1);
		event = slash + 1;
	}
	len = strlen(event);
	/* "GRP/" alone: the event is named as without a name (the kernel's, 5.17 on). */
	if (!len && slash)
		return 0;
	if (!len)
		return probe_fail(p, offset, TREV_PROBE_ERR_NO_EVENT_NAME);
	if (len > TREV_PROBE_NAME_MAX)
		return probe_fail(p, offset, TREV_PROBE_ERR_EVENT_TOO_LONG);
	if (!trev__probe_good_name(event))
		return probe_fail(p, offset, TREV_PROBE_ERR_BAD_EVENT_NAME);
	def->event = strdup(event);
	return def->event ? 0 : -ENOMEM;
}

/*
 * A uprobe's target PATH:OFFSET[(REF)][%return] or PATH:SYMBOL[%return], in the
 * kernel's order (trace_uprobe_create()): the file, the reference counter,
 * the suffix, the offset; columns from the word's start.
 */
static int probe_parse_path(struct probe_parse *p, char *word, char *colon,
			    struct trev_probe_def *def)
{
	struct trev_probe_target *t = &def->target;
	char *arg = colon + 1, *rctr, *pct, *sign;
	struct stat st;
	unsigned long v;

	p->kernel = false;
	t->path = strndup(word, (size_t)(colon - word));
	if (!t->path)
		return -ENOMEM;
	if (stat(t->path, &st))
		return probe_fail(p, 0, TREV_PROBE_ERR_FILE_NOT_FOUND);
	if (!S_ISREG(st.st_mode))
		return probe_fail(p, 0, TREV_PROBE_ERR_NO_REGULAR_FILE);
	rctr = strchr(arg, '(');
	if (rctr) {
		char *end = strchr(rctr, ')');

		if (!end)
			return probe_fail(p, (int)(rctr + strlen(rctr) - word),
					  TREV_PROBE_ERR_REFCNT_OPEN_BRACE);
		if (end[1])
			return probe_fail(p, (int)(end + 1 - word), TREV_PROBE_ERR_BAD_REFCNT_SUFFIX);
		*end = '\0';
		if (probe_strtoul(rctr + 1, 0, &v))
			return probe_fail(p, (int)(rctr + 1 - word), TREV_PROBE_ERR_BAD_REFCNT);
		/* A USDT semaphore to count up while the probe is on: not in trev (docs/probes.md). */
		return probe_fail(p, (int)(rctr - word), TREV_PROBE_ERR_FAIL_REG_PROBE);
	}
	pct = strchr(arg, '%');
	if (pct) {
		if (strcmp(pct, "%return"))
			return probe_fail(p, (int)(pct - word), TREV_PROBE_ERR_BAD_ADDR_SUFFIX);
		def->is_return = true;
		p->is_return = true;
		*pct = '\0';
	}
	if (isdigit((unsigned char)*arg)) {
		if (probe_strtoul(arg, 0, &v))
			return probe_fail(p, (int)(arg - word), TREV_PROBE_ERR_BAD_UPROBE_OFFS);
		t->offset = v;
		t->has_offset = true;
		return 0;
	}
	/* PATH:SYMBOL[+OFFS], trev's: a function of that object, or an instruction in it. */
	sign = strchr(arg, '+');
	if (sign) {
		if (probe_strtoul(sign + 1, 0, &v))
			return probe_fail(p, (int)(sign + 1 - word), TREV_PROBE_ERR_BAD_UPROBE_OFFS);
		*sign = '\0';
		if (v && def->is_return)
			return probe_fail(p, 0, TREV_PROBE_ERR_BAD_RETPROBE);
		t->offset = v;
	}
	if (!trev__probe_good_name(arg))
		return probe_fail(p, (int)(arg - word), TREV_PROBE_ERR_BAD_UPROBE_OFFS);
	t->symbol = strdup(arg);
	return t->symbol ? 0 : -ENOMEM;
}

static int probe_parse_target_in(struct probe_parse *p, char *word, struct trev_probe_def *def);

/*
 * The target, word 1: SYMBOL[+offs][%return], ADDRESS, or a uprobe's
 * (probe_parse_path()), taken apart in a copy: the word stays whole for the
 * command an error shows (the kernel parses a kstrdup() of it too).
 */
static int probe_parse_target(struct probe_parse *p, const char *word, struct trev_probe_def *def)
{
	char *copy = strdup(word);
	int ret;

	if (!copy)
		return -ENOMEM;
	ret = probe_parse_target_in(p, copy, def);
	free(copy);
	return ret;
}

static int probe_parse_target_in(struct probe_parse *p, char *word, struct trev_probe_def *def)
{
	struct trev_probe_target *t = &def->target;
	char *colon = strrchr(word, ':'), *pct, *sign;
	unsigned long v;
	long off;

	p->index = 1;
	if (colon && strchr(word, '/') && strchr(word, '/') < colon)
		return probe_parse_path(p, word, colon, def);
	p->kernel = true;
	/* MODULE:SYMBOL: a function of the library named MODULE (its file's name to the first dot). */
	if (colon) {
		char *sym = strndup(colon + 1, strcspn(colon + 1, "+-%"));
		bool good = sym && trev__probe_good_name(sym);

		free(sym);
		if (colon == word || !good || strcspn(word, "/%+-") < (size_t)(colon - word))
			return probe_fail(p, 0, TREV_PROBE_ERR_BAD_PROBE_ADDR);
		t->module = strndup(word, (size_t)(colon - word));
		if (!t->module)
			return -ENOMEM;
		word = colon + 1;
	}
	pct = strchr(word, '%');
	if (pct) {
		if (strcmp(pct, "%return"))
			return probe_fail(p, (int)(pct - word), TREV_PROBE_ERR_BAD_ADDR_SUFFIX);
		def->is_return = true;
		p->is_return = true;
		*pct = '\0';
	}
	if (isdigit((unsigned char)word[0])) {
		/* An address: an instruction of a loaded object, checked when the probe is made. */
		if (probe_strtoul(word, 0, &v))
			return probe_fail(p, 0, TREV_PROBE_ERR_BAD_PROBE_ADDR);
		t->offset = v;
		t->has_offset = true;
		return 0;
	}
	sign = strpbrk(word, "+-");
	off = 0;
	if (sign) {
		if (probe_strtol(sign + (*sign == '+'), 0, &off))
			return probe_fail(p, 0, TREV_PROBE_ERR_BAD_PROBE_ADDR);
		if (*sign == '-')
			off = -off;
		*sign = '\0';
	}
	if (!*word || !trev__probe_good_name(word))
		return probe_fail(p, 0, TREV_PROBE_ERR_BAD_PROBE_ADDR);
	if (off && def->is_return)
		return probe_fail(p, 0, TREV_PROBE_ERR_BAD_RETPROBE);
	if (off < 0)
		return probe_fail(p, 0, TREV_PROBE_ERR_BAD_PROBE_ADDR);
	t->symbol = strdup(word);
	t->offset = (unsigned long)off;
	return t->symbol ? 0 : -ENOMEM;
}

void trev__probe_def_free(struct trev_probe_def *def)
{
	for (unsigned int i = 0; def->args && i < def->nr_args; i++) {
		free(def->args[i].name);
		free(def->args[i].comm);
		free(def->args[i].data);
		free(def->args[i].type_str);
	}
	free(def->args);
	free(def->group);
	free(def->event);
	free(def->target.path);
	free(def->target.module);
	free(def->target.symbol);
	memset(def, 0, sizeof(*def));
}

int trev__probe_parse(const char *line, enum trev_probe_file file, struct trev_probe_def *def,
		      struct trev_probe_error *err, bool *uprobe)
{
	char *copy, *argv[TREV_PROBE_MAX_ARGS + 3], *event = NULL, *target;
	struct probe_parse p = { .err = err, .argv = argv };
	int ret;

	memset(def, 0, sizeof(*def));
	err->msg = NULL;
	err->pos = 0;
	err->cmd[0] = '\0';
	*uprobe = file == TREV_PROBE_UPROBE;
	while (isspace((unsigned char)*line))
		line++;
	if ((line[0] != 'p' && line[0] != 'r') ||
	    (line[1] && line[1] != ':' && !isspace((unsigned char)line[1]) && !isdigit((unsigned char)line[1])))
		return -ECANCELED;
	copy = strdup(line);
	if (!copy)
		return -ENOMEM;
	ret = trev__split_words(copy, argv, TREV_PROBE_MAX_ARGS + 3);
	p.argc = ret < 0 ? TREV_PROBE_MAX_ARGS + 3 : ret;
	if (ret < 0) {
		p.index = TREV_PROBE_MAX_ARGS + 2;
		ret = probe_fail(&p, 0, TREV_PROBE_ERR_TOO_MANY_ARGS);
		goto out;
	}
	def->is_return = line[0] == 'r';
	p.is_return = def->is_return;
	/* A uprobe in dynamic_events has a PATH target (the kernel's trace_uprobe_create()). */
	if (file == TREV_PROBE_DYNAMIC && p.argc > 1)
		*uprobe = strchr(argv[1], '/') != NULL;
	p.kernel = !*uprobe;
	/* r<MAXACTIVE>: the kernel's kretprobe instances; a uprobe takes none. */
	if (isdigit((unsigned char)argv[0][1])) {
		unsigned long maxact;
		char *colon = strchr(argv[0], ':');
		char num[16] = "";

		if (!def->is_return || *uprobe) {
			ret = probe_fail(&p, 1, *uprobe ? TREV_PROBE_ERR_BAD_MAXACT :
					 TREV_PROBE_ERR_MAXACT_NO_KPROBE);
			goto out;
		}
		snprintf(num, sizeof(num), "%.*s",
			 (int)(colon ? colon - argv[0] - 1 : (long)strlen(argv[0] + 1)), argv[0] + 1);
		if (probe_strtoul(num, 10, &maxact) || !maxact) {
			ret = probe_fail(&p, 1, TREV_PROBE_ERR_BAD_MAXACT);
			goto out;
		}
		if (maxact > 4096) {
			ret = probe_fail(&p, 1, TREV_PROBE_ERR_MAXACT_TOO_BIG);
			goto out;
		}
	}
	event = strchr(argv[0], ':');
	if (!event && argv[0][1] && !isdigit((unsigned char)argv[0][1])) {
		ret = -ECANCELED;
		goto out;
	}
	if (p.argc < 2) {
		p.index = 1;
		ret = probe_fail(&p, 0, TREV_PROBE_ERR_BAD_PROBE_ADDR);
		goto out;
	}
	if (event) {
		event++;
		ret = probe_parse_name(&p, event, (int)(event - argv[0]), def);
		if (ret)
			goto out;
	}
	target = argv[1];
	ret = probe_parse_target(&p, target, def);
	if (ret)
		goto out;
	def->args = calloc((size_t)p.argc, sizeof(*def->args));
	if (!def->args) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 2; i < p.argc; i++) {
		p.index = i;
		ret = probe_parse_arg(&p, def, (unsigned int)(i - 2), argv[i]);
		if (ret)
			goto out;
		/* $retval only on a return (the kernel's flags): a p: that names it failed above. */
	}
	if (!def->group && !(def->group = strdup(*uprobe ? "uprobes" : "kprobes")))
		ret = -ENOMEM;
	/* The command for an error found later (the target resolved): caret on the target. */
	if (!ret) {
		p.index = 1;
		probe_fail(&p, 0, TREV_PROBE_ERR_BAD_PROBE_ADDR);
		err->msg = NULL;
	}
out:
	if (ret)
		trev__probe_def_free(def);
	free(copy);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The fetch interpreter                                                */

int trev__probe_read(void *dst, unsigned long addr, size_t len)
{
	struct iovec local = { dst, len }, remote = { (void *)addr, len };

	if (!len)
		return 0;
	if (addr + len < addr)
		return -EFAULT;
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* A string at @addr into @dst (@room bytes, NUL included). Return: its bytes with the NUL, 0: fault. */
static unsigned int probe_read_string(char *dst, unsigned long addr, unsigned int room)
{
	unsigned int n = 0;

	if (!room)
		return 0;
	while (n + 1 < room) {
		/* Up to the page's end at most: the next page may not be mapped. */
		size_t chunk = 4096 - ((addr + n) & 4095);
		char *nul;

		if (chunk > room - 1 - n)
			chunk = room - 1 - n;
		if (trev__probe_read(dst + n, addr + n, chunk))
			return n ? (dst[n] = '\0', n + 1) : 0;
		nul = memchr(dst + n, '\0', chunk);
		if (nul)
			return (unsigned int)(nul - dst) + 1;
		n += (unsigned int)chunk;
	}
	dst[n] = '\0';
	return n + 1;
}

static const unsigned long *probe_reg_word(const struct trev_regs *regs, unsigned int i)
{
	return (const unsigned long *)(const void *)regs + i;
}

/* The base value and the dereferences but the last. Return: 0, or -EFAULT. */
static int probe_base(const struct trev_probe_arg *a, const struct trev_regs *regs,
		      unsigned long *val)
{
	static const unsigned char argregs[] = { 14, 13, 12, 11, 9, 8 };	/* di si dx cx r8 r9 */
	unsigned long v = 0;

	switch (a->base) {
	case TREV_PB_REG:
		v = *probe_reg_word(regs, a->param);
		break;
	case TREV_PB_STACK:
		if (trev__probe_read(&v, regs->sp + 8ul * a->param, sizeof(v)))
			return -EFAULT;
		break;
	case TREV_PB_STACKP:
		v = regs->sp;
		break;
	case TREV_PB_RETVAL:
		v = regs->ax;
		break;
	case TREV_PB_IMM:
		v = a->imm;
		break;
	case TREV_PB_ARG:
		if (a->param < 6)
			v = *probe_reg_word(regs, argregs[a->param]);
		/* At the entry: the return address at sp, then the 7th argument. */
		else if (trev__probe_read(&v, regs->sp + 8ul * (a->param - 5), sizeof(v)))
			return -EFAULT;
		break;
	default:
		break;
	}
	for (unsigned int k = 0; k + 1 < a->nderef; k++)
		if (trev__probe_read(&v, v + (unsigned long)a->deref[k].offset, sizeof(v)))
			return -EFAULT;
	if (a->nderef)
		v += (unsigned long)a->deref[a->nderef - 1].offset;
	*val = v;
	return 0;
}

/* A number of the type's size, its bitfield applied. */
static uint64_t probe_bits(const struct trev_probe_arg *a, uint64_t v)
{
	unsigned int width = 8 * a->type->size;

	if (width < 64)
		v &= (1ull << width) - 1;
	if (a->bitfield) {
		v <<= a->bf_lshift;
		if (width < 64)
			v &= (1ull << width) - 1;
		v >>= a->bf_rshift;
	}
	return v;
}

/* The text of one string element of @a for this hit into @dst. Return: bytes with NUL, 0: fault. */
static unsigned int probe_string(const struct trev_probe_arg *a, const struct trev_regs *regs,
				 unsigned int elem, char *dst, unsigned int room)
{
	unsigned long addr;

	if (!room)
		return 0;
	if (a->base == TREV_PB_COMM) {
		char comm[17] = "";

		prctl(PR_GET_NAME, comm);
		return (unsigned int)snprintf(dst, room, "%s", comm) + 1 <= room ?
		       (unsigned int)strlen(dst) + 1 : room;
	}
	if (a->base == TREV_PB_DATA)
		return (unsigned int)snprintf(dst, room, "%s", a->data) + 1 <= room ?
		       (unsigned int)strlen(dst) + 1 : room;
	if (probe_base(a, regs, &addr))
		return 0;
	if (strcmp(a->type->name, "symstr") == 0) {
		/* The value names a code address: its symbol, as %pS prints it. */
		if (a->nderef && trev__probe_read(&addr, addr, sizeof(addr)))
			return 0;
		trev__sym_snprint(dst, room, addr, TREV_SYM_OFFSET);
		return (unsigned int)strlen(dst) + 1;
	}
	/* An array of strings: the pointers at the address. */
	if (a->count && trev__probe_read(&addr, addr + 8ul * elem, sizeof(addr)))
		return 0;
	return probe_read_string(dst, addr, room);
}

unsigned int trev__probe_fetch(const struct trev_probe_arg *a, const struct trev_regs *regs,
			       unsigned char *slot, unsigned char *dyn, unsigned int dyn_off,
			       unsigned int dyn_room)
{
	unsigned int count = a->count ? a->count : 1, used = 0;
	unsigned int size = a->type->size;
	unsigned long addr;

	if (a->dynamic) {
		for (unsigned int e = 0; e < count; e++) {
			unsigned int n = probe_string(a, regs, e, (char *)dyn + used, dyn_room - used);
			/* Length 0: the read faulted, printed "(fault)" (the kernel's). */
			uint32_t loc = (uint32_t)n << 16 | ((dyn_off + used) & 0xffff);

			memcpy(slot + 4 * e, &loc, 4);
			used += n;
		}
		return used;
	}
	memset(slot, 0, (size_t)size * count);
	if (probe_base(a, regs, &addr))
		return 0;	/* 0, the kernel's value of a number it could not read */
	for (unsigned int e = 0; e < count; e++) {
		uint64_t v = 0;

		if (a->nderef) {
			if (trev__probe_read(&v, addr + (unsigned long)size * e, size))
				continue;
		} else {
			v = addr;
		}
		v = probe_bits(a, v);
		memcpy(slot + (size_t)size * e, &v, size);	/* little-endian: the low bytes */
	}
	return 0;
}

/* One element's value as the kernel's print_type_*() prints it. */
static void probe_print_one(struct trev_seq *s, const struct trev_probe_arg *a,
			    const unsigned char *at, const unsigned char *rec, unsigned int size)
{
	const struct trev_probe_type *t = a->type;
	uint64_t v = 0;

	if (t->kind == 'S') {
		uint32_t loc, off, len;

		memcpy(&loc, at, 4);
		off = loc & 0xffff;
		len = loc >> 16;
		if (!len || off + len > size)
			trev_seq_puts(s, "(fault)");
		else
			trev_seq_printf(s, "\"%.*s\"", (int)strnlen((const char *)rec + off, len),
					(const char *)rec + off);
		return;
	}
	memcpy(&v, at, t->size);
	switch (t->kind) {
	case 'u':
		trev_seq_printf(s, "%" PRIu64, v);
		break;
	case 's':
		if (t->size == 8)
			trev_seq_printf(s, "%" PRId64, (int64_t)v);
		else
			trev_seq_printf(s, "%d", t->size == 1 ? (int)(int8_t)v :
					t->size == 2 ? (int)(int16_t)v : (int)(int32_t)v);
		break;
	case 'x':
		trev_seq_printf(s, "0x%" PRIx64, v);
		break;
	case 'c':
		trev_seq_printf(s, "'%c'", (int)(unsigned char)v);
		break;
	case 'y': {
		char sym[256];

		trev__sym_snprint(sym, sizeof(sym), (unsigned long)v, TREV_SYM_OFFSET);
		trev_seq_puts(s, sym);
		break;
	}
	default:
		break;
	}
}

void trev__probe_print_arg(struct trev_seq *s, const struct trev_probe_arg *a,
			   const unsigned char *rec, unsigned int size, unsigned int base)
{
	const unsigned char *at = rec + base + a->offset;

	trev_seq_printf(s, " %s=", a->name);
	if (base + a->offset + a->type->size * (a->count ? a->count : 1) > size) {
		trev_seq_puts(s, "<record too short>");
		return;
	}
	if (!a->count) {
		probe_print_one(s, a, at, rec, size);
		return;
	}
	trev_seq_putc(s, '{');
	for (unsigned int e = 0; e < a->count; e++) {
		if (e)
			trev_seq_putc(s, ',');
		probe_print_one(s, a, at + a->type->size * e, rec, size);
	}
	trev_seq_putc(s, '}');
}
