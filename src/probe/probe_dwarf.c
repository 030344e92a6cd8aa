/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Probe arguments from DWARF (the kernel's BTF arguments, trace_probe.c's
 * parse_btf_arg() and traceprobe_expand_meta_args()): $arg*, parameters by
 * name, "name->member.member" chains and a typed $retval, made into the
 * register or stack reads and dereferences that trev__probe_fetch() runs
 * for any argument, once, when the probe is made. docs/probes.md, "DWARF
 * arguments".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "sym/dwarf_func.h"

#define PD_MAX_PARAMS	TREV_PROBE_MAX_ARGS

/* DWARF's x86-64 register numbers as words of struct trev_regs (probe_arg.c's order). */
static const unsigned char pd_regword[16] = {
	10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0,
};

struct pd_ctx {
	struct trev_probe_error *err;
	struct trev_dwarf_func func;
	struct trev_dwarf_param params[PD_MAX_PARAMS];
	int nparams;
	bool entry;		/* the probe is at the function's entry: parameters are where the ABI puts them */
};

static int pd_fail(struct pd_ctx *c, int col, enum trev_probe_err code)
{
	c->err->msg = trev__probe_err_text(code);
	c->err->pos = col;
	if ((size_t)c->err->pos > strlen(c->err->cmd) + 1)
		c->err->pos = (int)strlen(c->err->cmd) + 1;
	return -EINVAL;
}

/* The kernel's fetch_type_from_btf_type(): ints by size and sign, enums signed, pointers x64. */
static const struct trev_probe_type *pd_type(const struct trev_dwarf_type *t)
{
	static const char *const s[] = { "s8", "s16", "s32", "s64" };
	static const char *const u[] = { "u8", "u16", "u32", "u64" };
	static const char *const x[] = { "x8", "x16", "x32", "x64" };
	int k;

	switch (t->size) {
	case 1:
		k = 0;
		break;
	case 2:
		k = 1;
		break;
	case 4:
		k = 2;
		break;
	case 8:
		k = 3;
		break;
	default:
		return trev__probe_type(NULL);
	}
	switch (t->kind) {
	case TREV_DW_INT:
		return trev__probe_type(t->is_signed ? s[k] : u[k]);
	case TREV_DW_FLOAT:
		return trev__probe_type(x[k]);	/* the bits: a probe has no float type */
	default:
		return trev__probe_type(NULL);	/* pointers, and what the kernel leaves untyped */
	}
}

/* Where parameter @q is: @a's base. Return: 0, or -EINVAL with the error at @col. */
static int pd_base(struct pd_ctx *c, const struct trev_dwarf_param *q, struct trev_probe_arg *a,
		   int col)
{
	struct trev_dwarf_type t;

	if (trev__dwarf_type((Dwarf_Die *)&q->die, &t))
		return pd_fail(c, col, TREV_PROBE_ERR_BAD_BTF_TID);
	/* A struct by value (in registers or memory): the kernel's refusal too. */
	if (t.kind == TREV_DW_STRUCT)
		return pd_fail(c, col, TREV_PROBE_ERR_NOSUP_DAT_ARG);
	switch (q->where) {
	case TREV_DW_IN_REG:
		if (q->reg < 0 || q->reg > 15)
			return pd_fail(c, col, TREV_PROBE_ERR_BAD_BTF_TID);
		a->base = TREV_PB_REG;
		a->param = pd_regword[q->reg];
		return 0;
	case TREV_DW_ON_STACK:
		a->base = TREV_PB_STACK;
		a->param = (unsigned int)(q->stack / 8);
		return 0;
	default:
		/* A float in a vector register, or after a small struct by value. */
		return pd_fail(c, col, TREV_PROBE_ERR_NOSUP_BTFARG);
	}
}

/*
 * The variable of @a ("name->m.m->m", "$retval->m"): its base, the
 * dereferences it adds before those of the expression around it, its type.
 */
static int pd_var(struct pd_ctx *c, struct trev_probe_arg *a)
{
	struct {
		long offset;
	} vd[TREV_PROBE_DEREF_MAX + 1];
	unsigned int nvd = 0, bit_size = 0, bit_off = 0;
	char *name = a->data, *next, *sep;
	struct trev_dwarf_type t;
	int col = a->col, i;
	bool arrow;

	sep = strpbrk(name, ".-");
	next = sep ? sep + (*sep == '-' ? 2 : 1) : NULL;
	arrow = sep && *sep == '-';
	if (sep)
		*sep = '\0';
	if (strcmp(name, "$retval") == 0) {
		a->base = TREV_PB_RETVAL;
		if (trev__dwarf_type(&c->func.die, &t))
			return pd_fail(c, col, TREV_PROBE_ERR_BAD_BTF_TID);
		if (t.kind == TREV_DW_VOID)
			return pd_fail(c, col, TREV_PROBE_ERR_NO_RETVAL);
	} else {
		if (!c->entry)
			return pd_fail(c, col, TREV_PROBE_ERR_NOSUP_BTFARG);
		/* No parameters: the kernel's "no BTF entry" (query_btf_context()'s nr_params 0). */
		if (!c->nparams)
			return pd_fail(c, col, TREV_PROBE_ERR_NO_BTF_ENTRY);
		for (i = 0; i < c->nparams; i++)
			if (c->params[i].name && strcmp(c->params[i].name, name) == 0)
				break;
		if (i == c->nparams)
			return pd_fail(c, col, TREV_PROBE_ERR_NO_BTFARG);
		if (pd_base(c, &c->params[i], a, col))
			return -EINVAL;
		if (trev__dwarf_type(&c->params[i].die, &t))
			return pd_fail(c, col, TREV_PROBE_ERR_BAD_BTF_TID);
	}
	/* Each "->": the pointer's struct, its members joined by '.', one read (parse_btf_field()). */
	while (next) {
		Dwarf_Die st = t.die, m;
		struct trev_dwarf_type pointee;
		long off = 0;

		col += (int)(next - name);
		name = next;
		if (!arrow || t.kind != TREV_DW_PTR || trev__dwarf_type(&st, &pointee) ||
		    pointee.kind != TREV_DW_STRUCT)
			return pd_fail(c, col, TREV_PROBE_ERR_NO_PTR_STRCT);
		st = pointee.die;
		for (;;) {
			long boff;

			sep = strpbrk(name, ".-");
			next = sep ? sep + (*sep == '-' ? 2 : 1) : NULL;
			arrow = sep && *sep == '-';
			if (sep)
				*sep = '\0';
			if (trev__dwarf_member(&st, name, &m, &boff, &bit_size, &bit_off))
				return pd_fail(c, col, TREV_PROBE_ERR_NO_BTF_FIELD);
			off += boff;
			if (trev__dwarf_type(&m, &t))
				return pd_fail(c, col, TREV_PROBE_ERR_BAD_BTF_TID);
			if (!next || arrow)
				break;
			/* ".": a member of the member, which must be a struct. */
			col += (int)(next - name);
			name = next;
			if (t.kind != TREV_DW_STRUCT)
				return pd_fail(c, col, TREV_PROBE_ERR_NO_BTF_FIELD);
			st = t.die;
		}
		if (nvd == TREV_PROBE_DEREF_MAX)
			return pd_fail(c, a->col, TREV_PROBE_ERR_TOO_MANY_OPS);
		vd[nvd++].offset = off;
	}
	/* The variable alone (not inside "+OFFS(...)"): typed by DWARF unless TYPE was written. */
	if (!a->nderef) {
		if (a->dynamic && a->type_str && strcmp(a->type->name, "symstr") != 0) {
			/* A string: at a char pointer's target, or a char array member's place. */
			if (t.kind == TREV_DW_PTR && t.char_data) {
				if (nvd == TREV_PROBE_DEREF_MAX)
					return pd_fail(c, a->col, TREV_PROBE_ERR_TOO_MANY_OPS);
				vd[nvd++].offset = 0;
			} else if (!(t.kind == TREV_DW_ARRAY && t.char_data && nvd)) {
				return pd_fail(c, a->col, TREV_PROBE_ERR_BAD_TYPE4STR);
			}
		} else if (!a->typed && bit_size) {
			unsigned int bytes = 1;

			while (bytes < 8 && bit_off + bit_size > 8 * bytes)
				bytes *= 2;
			if (bit_off + bit_size > 8 * bytes)
				return pd_fail(c, a->col, TREV_PROBE_ERR_BAD_BTF_TID);
			a->type = trev__probe_type(bytes == 1 ? "u8" : bytes == 2 ? "u16" :
						   bytes == 4 ? "u32" : "u64");
			a->bitfield = true;
			a->bf_lshift = (unsigned char)(8 * bytes - (bit_size + bit_off));
			a->bf_rshift = (unsigned char)(8 * bytes - bit_size);
		} else if (!a->typed) {
			a->type = pd_type(&t);
		}
		/* An array is read from memory: a member's place, or where a pointer points. */
		if (a->count && !nvd)
			return pd_fail(c, a->col, TREV_PROBE_ERR_BAD_STRING);
	}
	if (nvd + a->nderef > TREV_PROBE_DEREF_MAX)
		return pd_fail(c, a->col, TREV_PROBE_ERR_TOO_MANY_OPS);
	/* The variable's reads run first: the expression around it reads from its value. */
	memmove(&a->deref[nvd], &a->deref[0], a->nderef * sizeof(a->deref[0]));
	for (unsigned int k = 0; k < nvd; k++) {
		a->deref[k].offset = vd[k].offset;
		a->deref[k].user = false;
	}
	a->nderef += nvd;
	return 0;
}

/* @a (a copy of the parsed one, its strings still shared) made whole. */
static int pd_arg_dup(struct trev_probe_arg *a)
{
	a->name = a->name ? strdup(a->name) : NULL;
	a->comm = a->comm ? strdup(a->comm) : NULL;
	a->data = a->data ? strdup(a->data) : NULL;
	a->type_str = a->type_str ? strdup(a->type_str) : NULL;
	return a->name && a->comm ? 0 : -ENOMEM;
}

/* $arg*: every parameter, named after it (the kernel's sprint_nth_btf_arg()). */
static int pd_expand(struct pd_ctx *c, const struct trev_probe_arg *star,
		     struct trev_probe_arg *out, unsigned int *n)
{
	for (int i = 0; i < c->nparams; i++) {
		struct trev_probe_arg *a = &out[(*n)++];
		struct trev_dwarf_type t;

		memset(a, 0, sizeof(*a));
		a->word = star->word;
		a->col = star->col;
		if (c->params[i].name)
			a->name = strdup(c->params[i].name);
		else if (asprintf(&a->name, "arg%d", i + 1) < 0)
			a->name = NULL;
		a->comm = a->name ? strdup(a->name) : NULL;
		if (!a->name || !a->comm)
			return -ENOMEM;
		if (strlen(a->name) > TREV_PROBE_ARGNAME_MAX || !trev__probe_good_name(a->name))
			return pd_fail(c, star->col, TREV_PROBE_ERR_BAD_ARG_NAME);
		if (pd_base(c, &c->params[i], a, star->col))
			return -EINVAL;
		if (trev__dwarf_type(&c->params[i].die, &t))
			return pd_fail(c, star->col, TREV_PROBE_ERR_BAD_BTF_TID);
		a->type = pd_type(&t);
	}
	return 0;
}

static void pd_free_args(struct trev_probe_arg *args, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		free(args[i].name);
		free(args[i].comm);
		free(args[i].data);
		free(args[i].type_str);
	}
	free(args);
}

/* The column of word @word of the command. */
static int pd_word_col(const struct trev_probe_error *err, unsigned int word)
{
	const char *c = err->cmd;

	for (unsigned int w = 0; w < word && *c; w++) {
		c += strcspn(c, " ");
		if (*c)
			c++;
	}
	return (int)(c - err->cmd);
}

int trev__probe_dwarf_resolve(struct trev_probe_def *def, uintptr_t addr,
			      struct trev_probe_error *err)
{
	static const char *const reserved[] = {
		"common_type", "common_flags", "common_preempt_count", "common_pid",
		"common_tgid", "__probe_ip", "__probe_ret_ip", "__probe_func",
	};
	struct trev_probe_arg *args = NULL, *first = NULL;
	struct trev_dwarf *d = NULL;
	struct pd_ctx *c;
	unsigned int n = 0, total = 0;
	bool need = false, var_args = false;
	int ret;

	for (unsigned int i = 0; i < def->nr_args; i++) {
		struct trev_probe_arg *a = &def->args[i];

		if (a->base == TREV_PB_VAR || a->base == TREV_PB_ARGS) {
			need = true;
			if (!first)
				first = a;
			var_args |= a->base == TREV_PB_ARGS;
		}
		need |= a->retval && !a->typed;
	}
	if (!need)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->err = err;
	c->entry = !def->is_return && !(def->target.symbol && def->target.offset);
	ret = trev__dwarf_open_self(&d);
	if (ret == -ENOMEM)
		goto out;
	if (!ret)
		ret = trev__dwarf_func_at(d, addr, &c->func);
	if (ret) {
		/* A plain $retval stays untyped, as the kernel's without BTF. */
		if (!first) {
			ret = 0;
			goto out;
		}
		ret = pd_fail(c, first->col, ret == -ENODATA || ret == -ESRCH ?
			      TREV_PROBE_ERR_NOSUP_BTFARG : TREV_PROBE_ERR_NO_BTF_ENTRY);
		goto out;
	}
	/* The entry: the function's first instruction, or the one after its endbr64. */
	if (addr < c->func.low_pc || addr - c->func.low_pc > 4)
		c->entry = false;
	c->nparams = trev__dwarf_params(&c->func, addr, c->params, PD_MAX_PARAMS);
	if (c->nparams < 0) {
		ret = pd_fail(c, first ? first->col : 0, TREV_PROBE_ERR_TOO_MANY_ARGS);
		goto out;
	}
	/* $arg* where there is nothing to expand: the kernel's "$arg* requires BTF" too. */
	if (var_args && (!c->entry || !c->nparams)) {
		for (unsigned int i = 0; i < def->nr_args; i++)
			if (def->args[i].base == TREV_PB_ARGS)
				ret = pd_fail(c, def->args[i].col, c->entry ?
					      TREV_PROBE_ERR_NOSUP_BTFARG :
					      TREV_PROBE_ERR_NOFENTRY_ARGS);
		goto out;
	}
	total = def->nr_args + (var_args ? (unsigned int)c->nparams : 0);
	if (total > TREV_PROBE_MAX_ARGS) {
		ret = pd_fail(c, pd_word_col(err, TREV_PROBE_MAX_ARGS + 2),
			      TREV_PROBE_ERR_TOO_MANY_ARGS);
		goto out;
	}
	args = calloc(total ? total : 1, sizeof(*args));
	if (!args) {
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < def->nr_args && !ret; i++) {
		struct trev_probe_arg *a = &def->args[i];

		if (a->base == TREV_PB_ARGS) {
			ret = pd_expand(c, a, args, &n);
			continue;
		}
		args[n] = *a;
		ret = pd_arg_dup(&args[n++]);
		if (ret)
			break;
		if (a->base == TREV_PB_VAR) {
			/* pd_var() cuts the text it walks: a copy of its own. */
			ret = pd_var(c, &args[n - 1]);
			free(args[n - 1].data);
			args[n - 1].data = NULL;
		} else if (a->retval && !a->typed && !a->nderef) {
			/* $retval alone; inside "+OFFS(...)" it is a pointer, as any fetch there. */
			struct trev_dwarf_type t;

			if (trev__dwarf_type(&c->func.die, &t))
				ret = pd_fail(c, a->col, TREV_PROBE_ERR_BAD_BTF_TID);
			else if (t.kind == TREV_DW_VOID)
				ret = pd_fail(c, a->col, TREV_PROBE_ERR_NO_RETVAL);
			else
				args[n - 1].type = pd_type(&t);
		}
	}
	/* Names made from parameters: each once, none of the reserved ones. */
	for (unsigned int i = 0; i < n && !ret; i++) {
		for (size_t k = 0; k < sizeof(reserved) / sizeof(reserved[0]) && !ret; k++)
			if (!strcmp(args[i].name, reserved[k]))
				ret = pd_fail(c, pd_word_col(err, args[i].word),
					      TREV_PROBE_ERR_USED_ARG_NAME);
		for (unsigned int k = 0; k < i && !ret; k++)
			if (!strcmp(args[i].name, args[k].name))
				ret = pd_fail(c, pd_word_col(err, args[i].word),
					      TREV_PROBE_ERR_USED_ARG_NAME);
	}
	if (ret) {
		pd_free_args(args, n);
		goto out;
	}
	pd_free_args(def->args, def->nr_args);
	def->args = args;
	def->nr_args = n;
	trev__probe_layout(def);
out:
	trev__dwarf_close(d);
	free(c);
	return ret;
}
