/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event filters (the kernel's trace_events_filter.c): the filter language
 * compiled once into a flat program, and the loop that runs it on a record.
 *
 * The program. Every predicate of the text is one instruction, in the order
 * the predicates appear; n instructions, and two implicit exits after them:
 *
 *	index	0 .. n-1	predicates	match == when ? goto target : next
 *		n		ACCEPT
 *		n + 1		REJECT
 *
 * "a && b || c" compiles to
 *
 *	0  a	when false goto 2	(a fails: try c)
 *	1  b	when true  goto 3	(a && b: accept)
 *	2  c	when false goto 4	(reject, else fall into ACCEPT)
 *
 * Jumps only go forward, so the loop ends after at most n steps; a
 * predicate that a short circuit skips is never evaluated (its field is
 * never read). Negations ("!", "!=", a "!" glob) cost nothing at run time:
 * they are folded into `when` and the branch labels when compiling.
 *
 * Compiling: a first pass checks quotes and parentheses and counts the
 * predicates (the kernel's calc_stack(), so the same errors come first); the
 * second turns the text into postfix with an operator stack (precedence:
 * "!" binds tightest, then "&&", then "||"), the postfix into a tree, and
 * the tree into labels: a node given (T, F) gives "a && b" the labels
 * (first of b, F) and (T, F), "a || b" (T, first of b) and (T, F), and "!a"
 * (F, T). One of a predicate's two labels is always the instruction after
 * it, which becomes the fall-through. No step recurses, so the nesting
 * depth is limited by the text's length only.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "base/log.h"
#include "events/events_internal.h"
#include "filter/filter.h"
#include "filter/filter_run.h"

#define FLT_MAX_PREDS	16384	/* the kernel's MAX_FILTER_PRED */
#define FLT_MAX_STR	256	/* the kernel's MAX_FILTER_STR_VAL */
#define FLT_NUM_BUF	24	/* longest number: the kernel's num_buf */

/* The kernel's filter error texts (trace_events_filter.c ERRORS). */
#define FLT_ERRORS							\
	C(INVALID_OP,		"Invalid operator")			\
	C(TOO_MANY_OPEN,	"Too many '('")				\
	C(TOO_MANY_CLOSE,	"Too few '('")				\
	C(MISSING_QUOTE,	"Missing matching quote")		\
	C(OPERAND_TOO_LONG,	"Operand too long")			\
	C(EXPECT_STRING,	"Expecting string field")		\
	C(EXPECT_DIGIT,		"Expecting numeric field")		\
	C(ILLEGAL_FIELD_OP,	"Illegal operation for field type")	\
	C(FIELD_NOT_FOUND,	"Field not found")			\
	C(ILLEGAL_INTVAL,	"Illegal integer value")		\
	C(BAD_SUBSYS_FILTER,	TREV_FILTER_ERR_SUBSYS)			\
	C(TOO_MANY_PREDS,	"Too many terms in predicate expression") \
	C(INVALID_FILTER,	"Meaningless filter expression")	\
	C(INVALID_VALUE,	"Invalid value (did you forget quotes)?") \
	C(NO_FILTER,		"No filter found")

#define C(code, text)	FLT_ERR_##code,
enum flt_err { FLT_ERRORS FLT_ERR_MAX };
#undef C
#define C(code, text)	text,
static const char *const flt_err_text[] = { FLT_ERRORS };
#undef C

/* Operators, longest first where one is a prefix of another (the kernel's OPS). */
enum flt_op { OP_GLOB, OP_NE, OP_EQ, OP_LE, OP_LT, OP_GE, OP_GT, OP_BAND, OP_MAX };
static const char *const flt_ops[OP_MAX] = { "~", "!=", "==", "<=", "<", ">=", ">", "&" };

/* ------------------------------------------------------------------ */
/* Run time                                                             */

/*
 * The thread's name for COMM, read with prctl() on a thread's first COMM
 * predicate and again every COMM_REFRESH of them (a thread may rename
 * itself), so the system call is amortised. A signal handler that nests
 * while the name is being compared does not refresh it (busy).
 */
#define COMM_REFRESH	1024u
struct flt_comm {
	char name[16];
	unsigned int len;
	unsigned int countdown;		/* 0: read it now */
	unsigned int busy;
};
static __thread struct flt_comm flt_comm __attribute__((tls_model("initial-exec")));

static const char *flt_comm_get(unsigned int *len)
{
	struct flt_comm *c = &flt_comm;

	if (trev_unlikely(c->countdown == 0) && !c->busy) {
		char name[17] = { 0 };

		prctl(PR_GET_NAME, name);
		memcpy(c->name, name, sizeof(c->name));
		c->len = (unsigned int)strnlen(c->name, sizeof(c->name));
		c->countdown = COMM_REFRESH;
	}
	c->countdown--;
	*len = c->len;
	return c->name;
}

/* One character class of a glob at @p: ?, [set], \c or c. @p moves past it. */
static bool flt_glob_one(const char *pat, size_t plen, size_t *p, unsigned char c)
{
	size_t i = *p, j;
	bool neg, hit = false;

	if (pat[i] == '?') {
		*p = i + 1;
		return true;
	}
	if (pat[i] == '\\' && i + 1 < plen) {
		*p = i + 2;
		return (unsigned char)pat[i + 1] == c;
	}
	if (pat[i] != '[') {
		*p = i + 1;
		return (unsigned char)pat[i] == c;
	}
	/* A set; a ']' right after "[" or "[!" is a member. No closing ']': a plain '['. */
	j = i + 1;
	neg = j < plen && (pat[j] == '!' || pat[j] == '^');
	j += neg;
	for (size_t k = j; k < plen; k++) {
		if (pat[k] == ']' && k > j)
			goto set;
	}
	*p = i + 1;
	return c == '[';
set:
	do {
		unsigned char lo = (unsigned char)pat[j], hi = lo;

		if (j + 2 < plen && pat[j + 1] == '-' && pat[j + 2] != ']') {
			hi = (unsigned char)pat[j + 2];
			j += 2;
		}
		if (lo <= c && c <= hi)
			hit = true;
		j++;
	} while (pat[j] != ']');
	*p = j + 1;
	return hit != neg;
}

/* The kernel's glob_match(): *, ?, [set], [!set], \c; iterative backtracking. */
static bool flt_glob(const char *pat, size_t plen, const char *s, size_t slen)
{
	size_t p = 0, i = 0, star_p = SIZE_MAX, star_i = 0;

	while (i < slen) {
		size_t next = p;

		if (p < plen && pat[p] == '*') {
			star_p = ++p;
			star_i = i;
			continue;
		}
		if (p < plen && flt_glob_one(pat, plen, &next, (unsigned char)s[i])) {
			p = next;
			i++;
			continue;
		}
		if (star_p == SIZE_MAX)
			return false;
		p = star_p;
		i = ++star_i;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

static bool flt_str(const struct flt_insn *in, const char *s, size_t slen)
{
	switch (in->cmp) {
	case FC_STR_FULL:
		return slen == in->plen && memcmp(s, in->pat, slen) == 0;
	case FC_STR_FRONT:
		return slen >= in->plen && memcmp(s, in->pat, in->plen) == 0;
	case FC_STR_END:
		return slen >= in->plen && memcmp(s + slen - in->plen, in->pat, in->plen) == 0;
	case FC_STR_MIDDLE:
		return memmem(s, slen, in->pat, in->plen) != NULL;
	default:
		return flt_glob(in->pat, in->plen, s, slen);
	}
}

/* A string predicate: out of line, so that the numeric path stays small. */
static __attribute__((noinline)) bool flt_eval_str(const struct flt_insn *in, const uint8_t *rec,
						   unsigned int len)
{
	const uint8_t *a = rec + in->offset;

	switch (in->kind) {
	case FK_STATIC_STR: {
		/*
		 * Size 0: a char[] at the record's end (ftrace/print's buf), its
		 * text up to its NUL, as the kernel's regex match of length 0.
		 */
		size_t max = in->size ? in->size : (len > in->offset ? len - in->offset : 0);

		return flt_str(in, (const char *)a, strnlen((const char *)a, max));
	}
	case FK_DYN_STR:
	case FK_REL_STR: {
		uint32_t w, loc, n;

		memcpy(&w, a, 4);
		loc = w & 0xffff;
		n = w >> 16;
		/* __rel_loc: from the end of the word (the kernel's filter_pred_strrelloc()). */
		if (in->kind == FK_REL_STR)
			loc += (uint32_t)in->offset + 4;
		/* A location outside the record reads as the empty string. */
		if (loc > len || n > len - loc)
			return flt_str(in, "", 0);
		return flt_str(in, (const char *)rec + loc, strnlen((const char *)rec + loc, n));
	}
	default: {
		unsigned int n;
		const char *name;
		bool m;

		name = flt_comm_get(&n);
		flt_comm.busy++;
		m = flt_str(in, name, n);
		flt_comm.busy--;
		return m;
	}
	}
}

/* The raw comparison of one predicate (before its negation, which is in `when`). */
static bool flt_eval(const struct flt_insn *in, const uint8_t *rec, unsigned int len, int cpu)
{
	uint64_t v;

	if (flt_load_num(in, rec, &v))
		return flt_num_match(in, v);
	if (in->kind == FK_CPU)
		return flt_num_match(in, (uint64_t)(int64_t)cpu);
	return flt_eval_str(in, rec, len);
}

/* The program loop from predicate @i; @visited (tests) marks each predicate evaluated. */
bool trev__filter_run_from(const struct trev_filter *f, const void *rec, unsigned int len,
			   int cpu, unsigned char *visited, unsigned int i)
{
	unsigned int n = f->n;

	while (i < n) {
		const struct flt_insn *in = &f->prog[i];

		if (visited)
			visited[i] = 1;
		i = flt_eval(in, rec, len, cpu) == in->when ? in->target : i + 1;
	}
	return i == n;
}

bool trev__filter_match(const struct trev_filter *f, const void *rec, unsigned int len, int cpu)
{
	unsigned int at;
	enum flt_verdict v = flt_run_num(f, rec, len, &at);

	if (v == FLT_MORE)
		return trev__filter_run_from(f, rec, len, cpu, NULL, at);
	return v == FLT_KEEP;
}

bool trev__filter_match_visits(const struct trev_filter *f, const void *rec, unsigned int len,
			       int cpu, unsigned char *visited)
{
	if (len < f->min_len)
		return false;
	return trev__filter_run_from(f, rec, len, cpu, visited, 0);
}

unsigned int trev__filter_nr_preds(const struct trev_filter *f)
{
	return f->n;
}

const char *trev__filter_text(const struct trev_filter *f)
{
	return f->text;
}

void trev__filter_free(struct trev_filter *f)
{
	if (!f)
		return;
	free(f->text);
	free(f);
}

/* ------------------------------------------------------------------ */
/* Compiling                                                            */

/* Field kinds as the parser sees them. */
enum flt_ftype { FT_NUM, FT_STATIC_STR, FT_DYN_STR, FT_REL_STR, FT_PTR_STR, FT_CPU, FT_COMM };

struct flt_field {
	int offset, size, is_signed;
	enum flt_ftype type;
};

/* struct trev_entry, as the format files list it. */
static const struct {
	const char *name;
	int offset, size, is_signed;
} flt_common[] = {
	{ "common_type", 0, 2, 0 },
	{ "common_flags", 2, 1, 0 },
	{ "common_preempt_count", 3, 1, 0 },
	{ "common_pid", 4, 4, 1 },
};

/* The kernel's order: the event's fields, then CPU/COMM, then the common fields. */
static bool flt_find_field(const struct trev_filter_field *fields, unsigned int nr_fields,
			   const char *name, size_t len, struct flt_field *out)
{
	for (unsigned int i = 0; i < nr_fields; i++) {
		const struct trev_filter_field *f = &fields[i];

		if (strlen(f->name) != len || memcmp(f->name, name, len))
			continue;
		out->offset = f->offset;
		out->size = f->size;
		out->is_signed = f->is_signed;
		switch (f->kind) {
		case TREV_FF_STATIC_STR: out->type = FT_STATIC_STR; break;
		case TREV_FF_DYN_STR: out->type = FT_DYN_STR; break;
		case TREV_FF_REL_STR: out->type = FT_REL_STR; break;
		case TREV_FF_PTR_STR: out->type = FT_PTR_STR; break;
		default: out->type = FT_NUM; break;
		}
		return true;
	}
	if ((len == 3 && (!memcmp(name, "CPU", 3) || !memcmp(name, "cpu", 3)))) {
		*out = (struct flt_field){ 0, 4, 1, FT_CPU };
		return true;
	}
	if ((len == 4 && (!memcmp(name, "COMM", 4) || !memcmp(name, "comm", 4)))) {
		*out = (struct flt_field){ 0, 16, 0, FT_COMM };
		return true;
	}
	for (size_t i = 0; i < sizeof(flt_common) / sizeof(flt_common[0]); i++) {
		if (strlen(flt_common[i].name) == len && !memcmp(flt_common[i].name, name, len)) {
			*out = (struct flt_field){ flt_common[i].offset, flt_common[i].size,
						   flt_common[i].is_signed, FT_NUM };
			return true;
		}
	}
	return false;
}

/* kstrtoll()/kstrtoull() with base 0: 0x hex, leading 0 octal, else decimal. */
static int flt_parse_int(const char *s, bool is_signed, uint64_t *out)
{
	bool minus = false;
	unsigned int base = 10;
	uint64_t v = 0;

	if (*s == '-') {
		if (!is_signed)
			return -EINVAL;
		minus = true;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d;

		if (isdigit((unsigned char)*s))
			d = (unsigned int)(*s - '0');
		else if (isxdigit((unsigned char)*s))
			d = (unsigned int)(tolower((unsigned char)*s) - 'a' + 10);
		else
			return -EINVAL;
		if (d >= base || v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (is_signed) {
		if (minus ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
			return -ERANGE;
		v = minus ? (uint64_t)0 - v : v;
	}
	*out = v;
	return 0;
}

/* @v as the field's C type would hold it, then widened back (the kernel's (type)val). */
static uint64_t flt_fit(uint64_t v, int size, int is_signed)
{
	switch (size) {
	case 1: return is_signed ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
	case 2: return is_signed ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
	case 4: return is_signed ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
	default: return v;
	}
}

/*
 * The comparison of a numeric predicate @in, whose val holds the operand
 * (fitted to the field): & keeps it as the mask; the others become the
 * range of values that compare true (see enum flt_cmp). An empty range
 * (x < 0 unsigned, x > max) is the full range, negated.
 */
static void flt_num_cmp(struct flt_insn *in, enum flt_op op, int is_signed)
{
	const uint64_t bias = is_signed ? UINT64_C(1) << 63 : 0;
	uint64_t x = in->val ^ bias, lo = x, hi = x;

	if (op == OP_BAND) {
		in->cmp = FC_BAND;
		return;
	}
	switch (op) {
	case OP_LT: lo = 0; hi = x - 1; break;
	case OP_LE: lo = 0; break;
	case OP_GT: lo = x + 1; hi = UINT64_MAX; break;
	case OP_GE: hi = UINT64_MAX; break;
	default: break;		/* == and != (negated) */
	}
	if ((op == OP_LT && x == 0) || (op == OP_GT && x == UINT64_MAX)) {
		lo = 0;
		hi = UINT64_MAX;
		in->neg = !in->neg;
	}
	in->cmp = FC_RANGE;
	in->val = lo ^ bias;
	in->span = hi - lo;
}

struct flt_parse {
	const char *str;
	const struct trev_filter_field *fields;	/* the event's, searched first */
	unsigned int nr_fields;
	struct trev_filter_error *err;
	struct flt_insn *preds;		/* in text order */
	unsigned int nr_preds, max_preds;
	char *pool;			/* string patterns */
	size_t pool_len;
	unsigned int min_len;
	bool reads_level;
};

static int flt_error(struct flt_parse *ps, enum flt_err code, int pos)
{
	ps->err->msg = flt_err_text[code];
	ps->err->pos = pos;
	return -EINVAL;
}

/*
 * The kernel's calc_stack(): quotes and parentheses balance, and how many
 * predicates there are at most.
 */
static int flt_check_text(struct flt_parse *ps, unsigned int *nr_preds)
{
	const char *s = ps->str;
	size_t len = strlen(s);
	int *open = malloc((len + 1) * sizeof(*open));
	int depth = 0, last_quote = 0, ret = 0;
	unsigned int preds = 0;
	char quote = 0;
	bool in_pred = false;

	if (!open)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (isspace((unsigned char)c))
			continue;
		if (quote) {
			if (c == quote)
				quote = 0;
			continue;
		}
		switch (c) {
		case '\'':
		case '"':
			quote = c;
			last_quote = (int)i;
			break;
		case '&':
		case '|':
			if (s[i + 1] != c)
				break;
			in_pred = false;
			i++;
			continue;
		case '(':
			in_pred = false;
			open[depth++] = (int)i;
			continue;
		case ')':
			in_pred = false;
			if (depth == 0) {
				ret = flt_error(ps, FLT_ERR_TOO_MANY_CLOSE, (int)i);
				goto out;
			}
			depth--;
			continue;
		}
		if (!in_pred) {
			preds++;
			in_pred = true;
		}
	}
	if (quote)
		ret = flt_error(ps, FLT_ERR_MISSING_QUOTE, last_quote);
	else if (depth)
		ret = flt_error(ps, FLT_ERR_TOO_MANY_OPEN, open[depth - 1]);
	else if (preds > FLT_MAX_PREDS)
		ret = flt_error(ps, FLT_ERR_TOO_MANY_PREDS, 0);
	*nr_preds = preds;
out:
	free(open);
	return ret;
}

/* Pick the string comparison for @pat (len @*plen); a "~" pattern may move and negate. */
static enum flt_cmp flt_string_cmp(enum flt_op op, const char **pat, uint32_t *plen, bool *neg)
{
	const char *p = *pat;
	uint32_t n = *plen;
	bool lead, trail;

	if (op != OP_GLOB)
		return FC_STR_FULL;
	if (n && p[0] == '!') {
		*neg = !*neg;
		p++;
		n--;
	}
	*pat = p;
	*plen = n;
	for (uint32_t i = 0; i < n; i++)
		if (p[i] == '?' || p[i] == '[' || p[i] == '\\' || (p[i] == '*' && i && i != n - 1))
			return FC_STR_GLOB;
	lead = n && p[0] == '*';
	trail = n > lead && p[n - 1] == '*';
	*pat = p + lead;
	*plen = n - lead - trail;
	if (lead && trail)
		return FC_STR_MIDDLE;
	if (lead)
		return FC_STR_END;
	if (trail)
		return FC_STR_FRONT;
	return FC_STR_FULL;
}

/*
 * One predicate "field op value" at @start (the kernel's parse_pred()).
 * Return: the characters it took, or a negative errno with ps->err set.
 * Error columns are the kernel's: inside a predicate it reports one past
 * the character at fault (its parse_pred() is handed start + 1).
 */
static int flt_parse_pred(struct flt_parse *ps, int start)
{
	const char *str = ps->str + start;
	int pos = start + 1, i = 0, s;
	struct flt_insn *in;
	struct flt_field fld;
	enum flt_op op;

	while (isspace((unsigned char)str[i]))
		i++;
	s = i;
	while (isalnum((unsigned char)str[i]) || str[i] == '_')
		i++;
	if (i == s)
		return flt_error(ps, FLT_ERR_INVALID_FILTER, start);
	if (!flt_find_field(ps->fields, ps->nr_fields, str + s, (size_t)(i - s), &fld))
		return flt_error(ps, FLT_ERR_FIELD_NOT_FOUND, pos + i);
	while (isspace((unsigned char)str[i]))
		i++;
	for (op = 0; op < OP_MAX; op++)
		if (!strncmp(str + i, flt_ops[op], strlen(flt_ops[op])))
			break;
	if (op == OP_MAX)
		return flt_error(ps, FLT_ERR_INVALID_OP, pos + i);
	i += (int)strlen(flt_ops[op]);
	while (isspace((unsigned char)str[i]))
		i++;
	s = i;

	if (ps->nr_preds >= ps->max_preds)
		return flt_error(ps, FLT_ERR_TOO_MANY_PREDS, start);
	in = &ps->preds[ps->nr_preds];
	memset(in, 0, sizeof(*in));
	in->offset = (uint16_t)fld.offset;
	in->neg = op == OP_NE;

	if (str[i] == '\'' || str[i] == '"') {
		char q = str[i];
		const char *pat;
		uint32_t plen;
		bool neg = in->neg;

		if (op != OP_GLOB && op != OP_EQ && op != OP_NE)
			return flt_error(ps, FLT_ERR_ILLEGAL_FIELD_OP, pos + i);
		if (fld.type == FT_NUM || fld.type == FT_CPU)
			return flt_error(ps, FLT_ERR_EXPECT_DIGIT, pos + i);
		/*
		 * A char * field points into the traced program's memory, which a
		 * filter cannot read safely (the kernel copies it with a fault-safe
		 * read; userspace has none without a system call): refused.
		 */
		if (fld.type == FT_PTR_STR)
			return flt_error(ps, FLT_ERR_ILLEGAL_FIELD_OP, pos + i);
		for (i++; str[i] && str[i] != q; i++)
			;
		if (!str[i])
			return flt_error(ps, FLT_ERR_MISSING_QUOTE, pos + i);
		s++;
		if (i - s >= FLT_MAX_STR)
			return flt_error(ps, FLT_ERR_OPERAND_TOO_LONG, pos + i);
		/* The pattern is kept in the pool; its address is fixed up at the end. */
		pat = str + s;
		plen = (uint32_t)(i - s);
		in->cmp = (uint8_t)flt_string_cmp(op, &pat, &plen, &neg);
		in->neg = neg;
		in->val = ps->pool_len;
		memcpy(ps->pool + ps->pool_len, pat, plen);
		ps->pool_len += plen;
		in->plen = plen;
		if (fld.type == FT_COMM) {
			in->kind = FK_COMM;
		} else if (fld.type == FT_STATIC_STR) {
			in->kind = FK_STATIC_STR;
			in->size = (uint16_t)fld.size;
		} else {
			in->kind = fld.type == FT_REL_STR ? FK_REL_STR : FK_DYN_STR;
			fld.size = 4;
		}
		i++;
	} else if (isdigit((unsigned char)str[i]) || str[i] == '-') {
		char num[FLT_NUM_BUF];
		uint64_t v;

		if (fld.type != FT_NUM && fld.type != FT_CPU)
			return flt_error(ps, FLT_ERR_EXPECT_STRING, pos + i);
		if (op == OP_GLOB)
			return flt_error(ps, FLT_ERR_ILLEGAL_FIELD_OP, pos + i);
		if (str[i] == '-')
			i++;
		while (isalnum((unsigned char)str[i]))
			i++;
		if (i - s >= (int)sizeof(num))
			return flt_error(ps, FLT_ERR_OPERAND_TOO_LONG, pos + i);
		memcpy(num, str + s, (size_t)(i - s));
		num[i - s] = '\0';
		if (flt_parse_int(num, fld.is_signed, &v))
			return flt_error(ps, FLT_ERR_ILLEGAL_INTVAL, pos + s);
		if (fld.size != 1 && fld.size != 2 && fld.size != 4 && fld.size != 8)
			return flt_error(ps, FLT_ERR_ILLEGAL_FIELD_OP, pos + s);
		in->val = flt_fit(v, fld.size, fld.is_signed);
		if (fld.type == FT_CPU)
			in->kind = FK_CPU;
		else
			in->kind = (uint8_t)((fld.is_signed ? FK_S8 : FK_U8) +
					     (fld.size == 1 ? 0 : fld.size == 2 ? 1 :
					      fld.size == 4 ? 2 : 3));
		flt_num_cmp(in, op, fld.is_signed);
	} else {
		return flt_error(ps, FLT_ERR_INVALID_VALUE, pos + i);
	}
	if (fld.type != FT_CPU && fld.type != FT_COMM &&
	    (unsigned int)(fld.offset + fld.size) > ps->min_len)
		ps->min_len = (unsigned int)(fld.offset + fld.size);
	/* common_flags and common_preempt_count, bytes 2 and 3 */
	if (fld.type != FT_CPU && fld.type != FT_COMM && fld.offset < 4 &&
	    fld.offset + fld.size > 2)
		ps->reads_level = true;
	ps->nr_preds++;
	return i;
}

/* Postfix items: a predicate's index (>= 0) or one of these. */
#define PF_AND	(-1)
#define PF_OR	(-2)
#define PF_NOT	(-3)

struct flt_node {
	int kind;		/* a PF_* or, for a predicate, its index */
	int left, right;	/* child nodes (NOT: left) */
	unsigned int first;	/* the first predicate under it */
	unsigned int count;	/* how many predicates under it */
};

/* The kernel's predicate_parse(): text to postfix, in one pass. */
static int flt_to_postfix(struct flt_parse *ps, int *out, int *nout, char *ops)
{
	const char *str = ps->str;
	int nops = 0, n = 0, i = 0;
	bool want_pred = true;

	for (;;) {
		char c = str[i];

		if (isspace((unsigned char)c)) {
			i++;
			continue;
		}
		if (want_pred) {
			int len;

			if (c == '(') {
				ops[nops++] = '(';
				i++;
				continue;
			}
			if (c == '!' && str[i + 1] != '=' && str[i + 1] != '~') {
				ops[nops++] = '!';
				i++;
				continue;
			}
			if (!c || c == ')' || c == '&' || c == '|')
				return flt_error(ps, FLT_ERR_INVALID_FILTER, i);
			len = flt_parse_pred(ps, i);
			if (len < 0)
				return len;
			out[n++] = (int)ps->nr_preds - 1;
			i += len;
			while (nops && ops[nops - 1] == '!') {
				out[n++] = PF_NOT;
				nops--;
			}
			want_pred = false;
			continue;
		}
		if (c == ')') {
			while (nops && ops[nops - 1] != '(')
				out[n++] = ops[--nops] == '&' ? PF_AND : PF_OR;
			if (!nops)
				return flt_error(ps, FLT_ERR_TOO_MANY_CLOSE, i);
			nops--;
			while (nops && ops[nops - 1] == '!') {
				out[n++] = PF_NOT;
				nops--;
			}
			i++;
			continue;
		}
		if (!c)
			break;
		if ((c == '&' || c == '|') && str[i + 1] == c) {
			/* && binds tighter: it pops only &&; || pops both. */
			while (nops && (ops[nops - 1] == '&' || (c == '|' && ops[nops - 1] == '|')))
				out[n++] = ops[--nops] == '&' ? PF_AND : PF_OR;
			ops[nops++] = c;
			i += 2;
			want_pred = true;
			continue;
		}
		return flt_error(ps, FLT_ERR_TOO_MANY_PREDS, i);
	}
	while (nops)
		out[n++] = ops[--nops] == '&' ? PF_AND : PF_OR;
	*nout = n;
	return 0;
}

/* Postfix to tree to labels; fills ps->preds[].when/target. */
static int flt_label(struct flt_parse *ps, const int *pf, int npf)
{
	struct flt_node *nodes = malloc((size_t)npf * sizeof(*nodes));
	int *stack = malloc((size_t)npf * sizeof(*stack));
	struct { int node; unsigned int t, f; } *work = malloc((size_t)npf * sizeof(*work));
	unsigned int n = ps->nr_preds;
	int sp = 0, wp = 0, ret = -ENOMEM;

	if (!nodes || !stack || !work)
		goto out_free;
	for (int k = 0; k < npf; k++) {
		struct flt_node *nd = &nodes[k];

		nd->kind = pf[k];
		if (pf[k] >= 0) {
			nd->first = (unsigned int)pf[k];
			nd->count = 1;
		} else if (pf[k] == PF_NOT) {
			nd->left = stack[--sp];
			nd->first = nodes[nd->left].first;
			nd->count = nodes[nd->left].count;
		} else {
			nd->right = stack[--sp];
			nd->left = stack[--sp];
			nd->first = nodes[nd->left].first;
			nd->count = nodes[nd->left].count + nodes[nd->right].count;
		}
		stack[sp++] = k;
	}
	/* The root takes (ACCEPT, REJECT); each node passes labels to its children. */
	work[wp].node = stack[0];
	work[wp].t = n;
	work[wp++].f = n + 1;
	while (wp) {
		int k = work[--wp].node;
		unsigned int t = work[wp].t, f = work[wp].f;
		const struct flt_node *nd = &nodes[k];

		if (nd->kind >= 0) {
			struct flt_insn *in = &ps->preds[nd->kind];
			unsigned int next = (unsigned int)nd->kind + 1;

			/* One label is the next instruction: branch to the other. */
			in->when = next == t ? 0 : 1;
			in->target = next == t ? f : t;
			in->when ^= in->neg;
			continue;
		}
		if (nd->kind == PF_NOT) {
			work[wp].node = nd->left;
			work[wp].t = f;
			work[wp++].f = t;
			continue;
		}
		work[wp].node = nd->right;
		work[wp].t = t;
		work[wp++].f = f;
		work[wp].node = nd->left;
		work[wp].t = nd->kind == PF_AND ? nodes[nd->right].first : t;
		work[wp++].f = nd->kind == PF_AND ? f : nodes[nd->right].first;
	}
	ret = 0;
out_free:
	free(nodes);
	free(stack);
	free(work);
	return ret;
}

int trev__filter_compile_fields(const struct trev_filter_field *fields, unsigned int nr_fields,
				const char *text, struct trev_filter **out,
				struct trev_filter_error *err)
{
	struct flt_parse ps = { .str = text, .fields = fields, .nr_fields = nr_fields, .err = err };
	size_t len = strlen(text);
	unsigned int max_preds = 0;
	struct trev_filter *f = NULL;
	int *pf = NULL, npf = 0, ret;
	char *ops = NULL;

	*out = NULL;
	err->msg = NULL;
	err->pos = 0;
	if (strcmp(text, "0") == 0)
		return 0;
	ret = flt_check_text(&ps, &max_preds);
	if (ret)
		return ret;
	if (max_preds == 0)
		return flt_error(&ps, FLT_ERR_NO_FILTER, 0);
	ps.max_preds = max_preds;
	ps.preds = malloc(max_preds * sizeof(*ps.preds));
	ps.pool = malloc(len + 1);
	pf = malloc((len + 1) * sizeof(*pf));
	ops = malloc(len + 1);
	ret = -ENOMEM;
	if (!ps.preds || !ps.pool || !pf || !ops)
		goto out_free;
	ret = flt_to_postfix(&ps, pf, &npf, ops);
	if (ret)
		goto out_free;
	ret = flt_label(&ps, pf, npf);
	if (ret)
		goto out_free;
	ret = -ENOMEM;
	f = malloc(sizeof(*f) + ps.nr_preds * sizeof(f->prog[0]) + ps.pool_len + 1);
	if (!f)
		goto out_free;
	f->text = strdup(text);
	if (!f->text) {
		free(f);
		f = NULL;
		goto out_free;
	}
	f->n = ps.nr_preds;
	f->min_len = ps.min_len;
	f->reads_level = ps.reads_level;
	memcpy(f->prog, ps.preds, ps.nr_preds * sizeof(f->prog[0]));
	{
		char *pool = (char *)&f->prog[ps.nr_preds];

		memcpy(pool, ps.pool, ps.pool_len);
		pool[ps.pool_len] = '\0';
		for (unsigned int i = 0; i < f->n; i++) {
			struct flt_insn *in = &f->prog[i];

			if (in->kind >= FK_STATIC_STR) {
				in->pat = pool + in->val;
				in->val = 0;
			}
		}
	}
	*out = f;
	ret = 0;
out_free:
	free(ps.preds);
	free(ps.pool);
	free(pf);
	free(ops);
	return ret;
}
