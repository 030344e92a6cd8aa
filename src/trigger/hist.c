/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Histogram triggers (the kernel's trace_events_hist.c): the hist command's
 * parser, the per-event update of its map, its canonical text, and the
 * events/<sys>/<ev>/hist file.
 *
 * A trigger owns a hist_data (what the command said, compiled: where each
 * key and value lives in the record and in the map's key) and points at a
 * hist_shared (the map). A named trigger (name=foo) shares its hist_shared
 * with every trigger of that name, on any event, whose keys and values
 * match. :clear swaps a fresh map into the hist_shared and frees the old
 * one after an RCU grace period, so the event path never waits.
 */
#define _LGPL_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <execinfo.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <urcu-bp.h>

#include <trev/tracepoint.h>

#include "base/buf.h"
#include "base/rcu.h"
#include "events/events_internal.h"
#include "filter/filter.h"
#include "ring_buffer/rb_internal.h"
#include "sym/symbols.h"
#include "trigger/hist.h"
#include "trigger/synth.h"
#include "trigger/syscall_name.h"
#include "trigger/tracing_map.h"
#include "trigger/trigger_internal.h"
#include "write/write.h"

#define C(a, b)	b
static const char *const hist_err_text[] = { TREV_HIST_ERRORS };
#undef C

const char *trev__hist_err_text(enum trev_hist_err code)
{
	return code < TREV_HIST_ERR__COUNT ? hist_err_text[code] : "Unknown error";
}

/* Flags of a hist field (the kernel's HIST_FIELD_FL_* meanings). */
#define HF_HITCOUNT	0x0001u
#define HF_KEY		0x0002u
#define HF_STRING	0x0004u
#define HF_HEX		0x0008u
#define HF_SYM		0x0010u
#define HF_SYM_OFFSET	0x0020u
#define HF_EXECNAME	0x0040u
#define HF_STACKTRACE	0x0100u
#define HF_LOG2		0x0200u
#define HF_TIMESTAMP	0x0400u
#define HF_USECS	0x0800u
#define HF_BUCKET	0x1000u
#define HF_DYN_STRING	0x2000u		/* with HF_STRING: a __data_loc string */
#define HF_REL_STRING	0x4000u		/* with HF_DYN_STRING: a __rel_loc one */
#define HF_SYSCALL	0x8000u
#define HF_PERCENT	0x10000u	/* a value printed as its share of the column's total */
#define HF_GRAPH	0x20000u	/* a value printed as a bar against the column's largest */

/* The compound key's largest size (the kernel's HIST_KEY_SIZE_MAX). */
#define HIST_KEY_SIZE_MAX	(TREV_HIST_STR_MAX + TREV_HIST_STACK_DEPTH * 8)
#define HIST_FIELDS_MAX		(TREV_HIST_VALS_MAX + TREV_HIST_KEYS_MAX)
/* Length of "hist:", which error positions count from. */
#define HIST_PREFIX_LEN		5

/* One key or value: where it is in the record, and in the map's key. */
struct hist_field {
	unsigned int flags;		/* HF_* */
	char *name;			/* "common_pid", "stacktrace", "hitcount", ... */
	char *type;			/* the field's type, for name= compatibility */
	int offset;			/* in the record */
	int size;			/* in the record */
	int is_signed;
	unsigned long buckets;		/* .buckets=N */
	unsigned int key_offset;	/* keys: in the compound key */
	unsigned int key_size;		/* keys: bytes, a multiple of 8 */
};

/* A sort key: a field index (values, then keys; 0 is hitcount). */
struct hist_sort_key {
	unsigned int idx;
	bool descending;
};

/*
 * A node of a variable's expression (the kernel's hist_field with
 * operands): a field, common_timestamp, a constant, a $var, or an operator
 * over one or two nodes. Constants of constants are folded when parsed.
 */
enum hist_expr_kind {
	HX_FIELD,			/* a field of the record, ->f */
	HX_TIMESTAMP,			/* common_timestamp, ->f holds its modifiers */
	HX_CONST,			/* ->constant */
	HX_REF,				/* $var: ->ref indexes hist_data.refs */
	HX_PLUS,
	HX_MINUS,
	HX_MULT,
	HX_DIV,
	HX_NEG,				/* -(...) */
};

struct hist_expr {
	enum hist_expr_kind kind;
	bool usecs;			/* a time in µs: both operands must agree */
	bool is_string;			/* a string field (never in a variable) */
	int size;			/* the value's, for synthetic field checks */
	int is_signed;
	char *type;			/* the value's type name */
	struct hist_field f;		/* HX_FIELD, HX_TIMESTAMP */
	uint64_t constant;		/* HX_CONST */
	unsigned int ref;		/* HX_REF */
	struct hist_expr *a, *b;	/* operands: b for the binary ones */
};

/*
 * A variable ("name=expr"): kept per entry in words of the element, after
 * the sums: its value (a string field's text: HIST_VAR_STR_MAX bytes), then
 * a word that is 1 once it was set (0 again when a reference of another
 * hist reads it once).
 */
struct hist_var {
	char *name;
	char *text;			/* the expression as the trigger file prints it */
	struct hist_expr *expr;
	unsigned int slot;		/* the value's first word */
	unsigned int set;		/* the set word */
	bool is_string;			/* a string field: its text from slot on */
};

#define HIST_VAR_STR_MAX	256	/* a string variable's text, NUL included (STR_VAR_LEN_MAX) */

/* A $var this hist reads (the kernel's var_refs[]): another hist's, or its own. */
struct hist_ref {
	struct hist_shared *sh;		/* the other hist (a reference held); NULL: this one */
	unsigned int slot;		/* the variable's value word in that hist's elements */
	unsigned int set;		/* its set word */
	bool is_string;			/* the value read is a pointer to the text there */
	bool read_once;			/* an operand of an expression: consumed when read */
	bool usecs;
	int size, is_signed;
	char *type;
	char *name;			/* as printed after '$': "ts0", "sched.sched_wakeup.ts0" */
};

/* onmatch(sys.event), onmax($var), onchange($var). */
enum hist_handler { HH_ONMATCH, HH_ONMAX, HH_ONCHANGE };
/* trace(synth, ...) or synth(...), save(...), snapshot(). */
enum hist_action_kind { HA_TRACE, HA_SAVE, HA_SNAPSHOT };

/* A parameter of trace(): a $var, or a field of this event's record. */
struct hist_param {
	bool is_ref;
	unsigned int ref;		/* is_ref: index in hist_data.refs */
	struct hist_field f;		/* else: the field (a string: HF_STRING) */
};

/* A field save() keeps per entry: a number in one word, a string in several. */
struct hist_save {
	struct hist_field f;
	unsigned int slot;
	unsigned int n_slots;
};

#define HIST_SAVE_STR_MAX	64	/* bytes of a saved string, NUL included */

struct hist_action {
	enum hist_handler handler;
	enum hist_action_kind kind;
	char *spec;			/* ":onmatch(sys.ev).trace(...)" as printed */
	struct trev_synth_event *se;	/* HA_TRACE: a reference held */
	struct hist_param *params;	/* HA_TRACE: one per field of se */
	unsigned int n_params;
	unsigned int n_strings;		/* string params: each copied on the stack */
	unsigned int track_ref;		/* onmax/onchange: the variable, in refs */
	unsigned int track_slot;	/* onmax/onchange: the max or last value */
	struct hist_save *saves;	/* HA_SAVE */
	unsigned int n_saves;
};

/* A compiled hist command; immutable once parsed, shared by reference. */
struct hist_data {
	int ref;				/* triggers and hist_shared holding it */
	struct hist_field fields[HIST_FIELDS_MAX]; /* n_vals values, then n_keys keys */
	unsigned int n_vals;			/* hitcount included */
	unsigned int n_keys;
	struct hist_sort_key sort[TREV_HIST_SORT_MAX];
	unsigned int n_sort;
	unsigned int bits;			/* size=, as a power of 2 */
	unsigned int key_size;			/* the compound key */
	unsigned int attrs;			/* TREV_HIST_ATTR_* */
	bool timestamps;			/* common_timestamp is used */
	bool ts_in_usecs;			/* ... and some field has .usecs: all in µs */
	bool execname;				/* a key is common_pid.execname */
	const struct hist_field *num_key;	/* the one numeric key (hist_num_key()), or NULL */
	bool hits_only;				/* num_key, hitcount only, no filter */
	char *name;				/* name=, or NULL */
	char *filter_text;			/* "if" condition, or NULL */
	struct trev_filter *filter;
	struct trev_stack_skip skip;		/* the event's probe, for stacktrace */
	struct hist_var vars[TREV_HIST_VARS_MAX]; /* name=expr, in the order written */
	unsigned int n_vars;
	struct hist_ref refs[TREV_HIST_VARS_MAX]; /* the $vars it reads */
	unsigned int n_refs;
	struct hist_action actions[TREV_HIST_ACTIONS_MAX];
	unsigned int n_actions;
	unsigned int n_slots;			/* words per element: sums, vars, actions */
	bool inter;				/* vars, refs or actions: hist_event_inter() */
	/*
	 * The hists this one made on other events for their fields given to an
	 * action (the kernel's field_var_hists): "hist:..." on fv_file[i],
	 * removed with this trigger.
	 */
	char *fv_cmd[TREV_HIST_VARS_MAX];
	struct trev_event_file *fv_file[TREV_HIST_VARS_MAX];
	unsigned int n_fv;
	bool has_snapshot;			/* a snapshot() action: the buffer is armed */
};

/* The map, shared by the triggers of one name; else by one trigger. */
struct hist_shared {
	_Atomic(struct trev_tmap *) map;	/* RCU: swapped by :clear */
	int var_users;				/* references of registered hists to its variables (hist_lock) */
	struct hist_data *proto;		/* the first trigger's, for name= checks */
	char *name;				/* NULL: not named */
	int ref;				/* triggers using it (tracefs lock) */
	struct hist_shared *next;		/* the named ones */
};

struct trev_hist_trigger {
	struct hist_data *hd;
	struct hist_shared *sh;
	struct trev_trace_array *tr;
	_Atomic bool paused;			/* standalone use; a registered one uses trig's */
	struct trev_event_trigger *trig;	/* the framework's, once parsed through it */
	char *cmd;				/* "hist:<param>", for error_log */
	bool registered;			/* its references count in var_users */
};

/* Named maps and every hist_shared's ref, in the control path only. */
static pthread_mutex_t hist_lock = PTHREAD_MUTEX_INITIALIZER;

/* Named maps, under hist_lock. */
static struct hist_shared *hist_named;

/* ------------------------------------------------------------------ */
/* Building blocks                                                      */

static void hist_shared_put(struct hist_shared *sh);

static void hist_field_free(struct hist_field *f)
{
	free(f->name);
	free(f->type);
}

static void hist_expr_free(struct hist_expr *e)
{
	if (!e)
		return;
	hist_expr_free(e->a);
	hist_expr_free(e->b);
	hist_field_free(&e->f);
	free(e->type);
	free(e);
}

/* Drop what a reference to another hist's variable holds. */
static void hist_ref_release(struct hist_ref *r)
{
	if (r->sh) {
		hist_shared_put(r->sh);
		r->sh = NULL;
	}
	free(r->type);
	free(r->name);
}

static void hist_action_free(struct hist_action *a)
{
	free(a->spec);
	if (a->se)
		trev__synth_put(a->se);
	for (unsigned int i = 0; a->params && i < a->n_params; i++)
		hist_field_free(&a->params[i].f);
	free(a->params);
	for (unsigned int i = 0; a->saves && i < a->n_saves; i++)
		hist_field_free(&a->saves[i].f);
	free(a->saves);
}

static void hist_data_put(struct hist_data *hd)
{
	if (!hd || --hd->ref > 0)
		return;
	for (unsigned int i = 0; i < hd->n_vals + hd->n_keys; i++)
		hist_field_free(&hd->fields[i]);
	for (unsigned int i = 0; i < hd->n_vars; i++) {
		free(hd->vars[i].name);
		free(hd->vars[i].text);
		hist_expr_free(hd->vars[i].expr);
	}
	for (unsigned int i = 0; i < hd->n_refs; i++)
		hist_ref_release(&hd->refs[i]);
	for (unsigned int i = 0; i < hd->n_actions; i++)
		hist_action_free(&hd->actions[i]);
	for (unsigned int i = 0; i < hd->n_fv; i++)
		free(hd->fv_cmd[i]);
	free(hd->name);
	free(hd->filter_text);
	if (hd->filter)
		trev__filter_free(hd->filter);
	free(hd);
}

/* Save the inserting thread's name in a new element (common_pid.execname). */
static void hist_elt_save_comm(struct trev_tmap_elt *elt)
{
	/* A system call, but only when a key is seen for the first time. */
	if (prctl(PR_GET_NAME, elt->comm) != 0)
		strcpy(elt->comm, "<...>");
	elt->comm[TREV_TMAP_COMM_LEN - 1] = '\0';
}

static struct trev_tmap *hist_map_create(const struct hist_data *hd)
{
	return trev__tmap_create(hd->bits, hd->key_size, hd->n_slots,
				 hd->execname ? hist_elt_save_comm : NULL);
}

static void hist_shared_put(struct hist_shared *sh)
{
	int ref;

	if (!sh)
		return;
	pthread_mutex_lock(&hist_lock);
	ref = --sh->ref;
	if (!ref && sh->name) {
		struct hist_shared **pp;

		for (pp = &hist_named; *pp; pp = &(*pp)->next) {
			if (*pp == sh) {
				*pp = sh->next;
				break;
			}
		}
	}
	pthread_mutex_unlock(&hist_lock);
	if (ref > 0)
		return;
	trev__tmap_destroy(atomic_load_explicit(&sh->map, memory_order_relaxed));
	hist_data_put(sh->proto);
	free(sh->name);
	free(sh);
}

void trev__hist_free(struct trev_hist_trigger *ht)
{
	if (!ht)
		return;
	hist_shared_put(ht->sh);
	hist_data_put(ht->hd);
	free(ht->cmd);
	free(ht);
}

/* ------------------------------------------------------------------ */
/* The parser                                                           */

struct hist_parse {
	struct trev_event_call *call;
	char *buf;			/* a copy of the parameter, cut in place */
	size_t len;			/* of buf */
	struct trev_hist_error *err;
	struct hist_data *hd;
	struct trev_trace_array *tr;	/* where $vars and onmatch() events are looked up */
	struct trev_event_file *file;	/* through the trigger file: hists may be made, else NULL */
	bool remove;			/* "!hist:...": a variable may exist already */
	char *assign[TREV_HIST_VARS_MAX]; /* "name=expr[,name=expr]" attributes, in buf */
	unsigned int n_assign;
	char *action[TREV_HIST_ACTIONS_MAX]; /* "onmatch(...)..." attributes, in buf */
	unsigned int n_action;
	char *def_name[TREV_HIST_VARS_MAX]; /* every variable's name and text, copied */
	char *def_expr[TREV_HIST_VARS_MAX];
	unsigned int n_defs;
	char *match[TREV_HIST_ACTIONS_MAX]; /* onmatch() events, "sys.event", copied */
	unsigned int n_match;
};

/* Refuse with @code at @at (a pointer into p->buf). */
static int hist_fail(struct hist_parse *p, enum trev_hist_err code, const char *at)
{
	p->err->msg = trev__hist_err_text(code);
	/* @at may be in a copy (a variable's field read for "$x"): then the start. */
	if (at && (at < p->buf || at > p->buf + p->len))
		at = NULL;
	p->err->pos = HIST_PREFIX_LEN + (at ? (int)(at - p->buf) : 0);
	return -EINVAL;
}

/* The common fields every record starts with (struct trev_entry). */
static const struct {
	const char *name, *type;
	int offset, size, is_signed;
} hist_common_fields[] = {
	{ "common_type", "unsigned short", 0, 2, 0 },
	{ "common_flags", "unsigned char", 2, 1, 0 },
	{ "common_preempt_count", "unsigned char", 3, 1, 0 },
	{ "common_pid", "int", 4, 4, 1 },
};

static const struct trev_field *hist_find_event_field(struct trev_event_call *call,
						      const char *name)
{
	struct trev_event_rt *rt = trev__event_rt(call);

	for (int i = 0; rt && i < rt->nr_fields; i++)
		if (strcmp(rt->fields[i].name, name) == 0)
			return &rt->fields[i];
	return NULL;
}

/* Parse a modifier (the text after the first '.') into @f. */
static int hist_parse_modifier(struct hist_parse *p, struct hist_field *f, const char *name,
			       char *mod)
{
	if (strcmp(mod, "hex") == 0) {
		f->flags |= HF_HEX;
	} else if (strcmp(mod, "sym") == 0) {
		f->flags |= HF_SYM;
	} else if (strcmp(mod, "sym-offset") == 0) {
		f->flags |= HF_SYM_OFFSET;
	} else if (strcmp(mod, "execname") == 0 && strcmp(name, "common_pid") == 0) {
		f->flags |= HF_EXECNAME;
	} else if (strcmp(mod, "syscall") == 0) {
		f->flags |= HF_SYSCALL;
	} else if (strcmp(mod, "log2") == 0) {
		f->flags |= HF_LOG2;
	} else if (strcmp(mod, "usecs") == 0) {
		f->flags |= HF_USECS;
	} else if (strcmp(mod, "percent") == 0) {
		f->flags |= HF_PERCENT;
	} else if (strcmp(mod, "graph") == 0) {
		f->flags |= HF_GRAPH;
	} else if (strncmp(mod, "bucket", 6) == 0) {
		char *s = mod + 6, *end;

		if (*s == 's')
			s++;
		if (*s++ != '=' || !isdigit((unsigned char)*s))
			return hist_fail(p, TREV_HIST_ERR_BAD_FIELD_MODIFIER, mod);
		errno = 0;
		f->buckets = strtoul(s, &end, 0);
		if (errno || *end || !f->buckets)
			return hist_fail(p, TREV_HIST_ERR_BAD_FIELD_MODIFIER, mod);
		f->flags |= HF_BUCKET;
	} else {
		return hist_fail(p, TREV_HIST_ERR_BAD_FIELD_MODIFIER, mod);
	}
	return 0;
}

static const char *hist_local_field_var(struct hist_parse *p, const char *name);

#define HPF_KEY		0x1u	/* a key: stacktrace, and strings, allowed */
#define HPF_STRING	0x2u	/* a string field is taken (an action's param) */

/* One key or value, "name[.modifier]", into @f. */
static int hist_parse_field(struct hist_parse *p, char *str, unsigned int how, struct hist_field *f)
{
	bool key = how & HPF_KEY;

	char *dot = strchr(str, '.');
	const struct trev_field *ef;
	const char *type = NULL;
	int ret;

	memset(f, 0, sizeof(*f));
	if (key)
		f->flags |= HF_KEY;
	if (key && strcmp(str, "stacktrace") == 0) {
		f->flags |= HF_STACKTRACE;
		f->key_size = TREV_HIST_STACK_DEPTH * sizeof(unsigned long);
		type = "unsigned long[]";
		goto named;
	}
	if (str[0] == '$') {
		/* "$x" of a variable of this trigger defined as a field: that field. */
		const char *field = hist_local_field_var(p, str + 1);
		char copy[TREV_HIST_STR_MAX];

		if (!field)
			return hist_fail(p, key ? TREV_HIST_ERR_INVALID_REF_KEY :
					 TREV_HIST_ERR_NO_VARIABLES, str);
		snprintf(copy, sizeof(copy), "%s", field);
		return hist_parse_field(p, copy, how, f);
	}
	if (dot)
		*dot = '\0';
	if (strpbrk(str, "+-*/$()"))
		return hist_fail(p, TREV_HIST_ERR_NO_VARIABLES, str);
	if (dot) {
		ret = hist_parse_modifier(p, f, str, dot + 1);
		if (ret)
			return ret;
		/* .percent and .graph are a value's alone (not a key's, a variable's). */
		if ((f->flags & (HF_PERCENT | HF_GRAPH)) && how)
			return hist_fail(p, TREV_HIST_ERR_BAD_FIELD_MODIFIER, dot + 1);
	}
	if (strcmp(str, "common_timestamp") == 0) {
		f->flags |= HF_TIMESTAMP;
		f->size = 8;
		type = "u64";
		p->hd->timestamps = true;
		if (f->flags & HF_USECS)
			p->hd->ts_in_usecs = true;
	} else {
		for (size_t i = 0; i < sizeof(hist_common_fields) / sizeof(hist_common_fields[0]); i++) {
			if (strcmp(str, hist_common_fields[i].name) == 0) {
				f->offset = hist_common_fields[i].offset;
				f->size = hist_common_fields[i].size;
				f->is_signed = hist_common_fields[i].is_signed;
				type = hist_common_fields[i].type;
				break;
			}
		}
		if (!type) {
			ef = hist_find_event_field(p->call, str);
			/* Size 0: only a char[] at the record's end (ftrace/print's buf) is a field. */
			if (!ef || (!ef->size && ef->filter_type != TREV_FILTER_STATIC_STRING))
				return hist_fail(p, TREV_HIST_ERR_FIELD_NOT_FOUND, str);
			f->offset = ef->offset;
			f->size = ef->size;
			f->is_signed = ef->is_signed;
			type = ef->type;
			if (ef->filter_type == TREV_FILTER_STATIC_STRING ||
			    ef->filter_type == TREV_FILTER_DYN_STRING ||
			    ef->filter_type == TREV_FILTER_RDYN_STRING) {
				/* A string can be a key, not a sum, and takes no modifier. */
				if (!(how & (HPF_KEY | HPF_STRING)))
					return hist_fail(p, TREV_HIST_ERR_HIST_CREATE_FAIL, str);
				if (dot)
					return hist_fail(p, TREV_HIST_ERR_BAD_FIELD_MODIFIER, dot + 1);
				f->flags |= HF_STRING;
				if (ef->filter_type == TREV_FILTER_RDYN_STRING)
					f->flags |= HF_REL_STRING;
				if (ef->filter_type != TREV_FILTER_STATIC_STRING || !ef->size) {
					/* Sized by the record: as long as a __data_loc string's key. */
					if (ef->filter_type != TREV_FILTER_STATIC_STRING)
						f->flags |= HF_DYN_STRING;
					f->key_size = TREV_HIST_STR_MAX;
				} else {
					f->key_size = ((unsigned int)ef->size + 7) & ~7u;
				}
			}
		}
		if (!(f->flags & HF_STRING) && f->size != 1 && f->size != 2 && f->size != 4 &&
		    f->size != 8)
			return hist_fail(p, TREV_HIST_ERR_HIST_CREATE_FAIL, str);
	}
	if (f->flags & HF_EXECNAME)
		p->hd->execname = true;
	if (!(f->flags & HF_STRING))
		f->key_size = 8;
named:
	f->name = strdup(str);
	f->type = strdup(type);
	if (!f->name || !f->type)
		return -ENOMEM;
	return 0;
}

static bool hist_field_same(const struct hist_field *a, const struct hist_field *b)
{
	return a->flags == b->flags && a->buckets == b->buckets && strcmp(a->name, b->name) == 0;
}

/* keys=: one or more fields, comma separated. */
static int hist_parse_keys(struct hist_parse *p, char *str)
{
	struct hist_data *hd = p->hd;
	char *save = str, *tok;

	while ((tok = strsep(&save, ","))) {
		struct hist_field *f = &hd->fields[hd->n_vals + hd->n_keys];
		int ret;

		if (hd->n_keys == TREV_HIST_KEYS_MAX)
			return hist_fail(p, TREV_HIST_ERR_TOO_MANY_KEYS, tok);
		if (!*tok)
			return hist_fail(p, TREV_HIST_ERR_FIELD_NOT_FOUND, tok);
		ret = hist_parse_field(p, tok, HPF_KEY, f);
		hd->n_keys++;	/* owned now, freed with hd even on error */
		if (ret)
			return ret;
		for (unsigned int i = hd->n_vals; i < hd->n_vals + hd->n_keys - 1; i++)
			if (hist_field_same(&hd->fields[i], f))
				return hist_fail(p, TREV_HIST_ERR_DUPLICATE_FIELD, tok);
		f->key_offset = hd->key_size;
		hd->key_size += f->key_size;
		if (hd->key_size > HIST_KEY_SIZE_MAX)
			return hist_fail(p, TREV_HIST_ERR_KEY_TOO_LARGE, tok);
	}
	return 0;
}

/* vals=: fields summed per key; hitcount is always value 0. */
static int hist_parse_vals(struct hist_parse *p, char *str)
{
	struct hist_data *hd = p->hd;
	char *save = str, *tok;

	while (str && (tok = strsep(&save, ","))) {
		struct hist_field *f = &hd->fields[hd->n_vals];
		int ret;

		if (strcmp(tok, "hitcount") == 0)
			continue;
		if (strcmp(tok, "hitcount.percent") == 0 || strcmp(tok, "hitcount.graph") == 0) {
			hd->fields[0].flags |= tok[9] == 'p' ? HF_PERCENT : HF_GRAPH;
			continue;
		}
		if (hd->n_vals == TREV_HIST_VALS_MAX)
			return hist_fail(p, TREV_HIST_ERR_TOO_MANY_VALS, tok);
		if (!*tok)
			return hist_fail(p, TREV_HIST_ERR_FIELD_NOT_FOUND, tok);
		ret = hist_parse_field(p, tok, 0, f);
		hd->n_vals++;
		if (ret)
			return ret;
		for (unsigned int i = 1; i < hd->n_vals - 1; i++)
			if (hist_field_same(&hd->fields[i], f))
				return hist_fail(p, TREV_HIST_ERR_DUPLICATE_FIELD, tok);
	}
	return 0;
}

/* sort=: up to two keys or values, each .ascending (default) or .descending. */
static int hist_parse_sort(struct hist_parse *p, char *str, char *assign)
{
	struct hist_data *hd = p->hd;
	char *save = str, *tok;
	unsigned int i;

	for (i = 0; (tok = strsep(&save, ",")); i++) {
		struct hist_sort_key *sk = &hd->sort[i];
		char *mod;
		unsigned int j;

		if (!*tok)
			return hist_fail(p, TREV_HIST_ERR_EMPTY_SORT_FIELD, assign);
		if (i == TREV_HIST_SORT_MAX)
			return hist_fail(p, TREV_HIST_ERR_TOO_MANY_SORT_FIELDS, assign);
		mod = strchr(tok, '.');
		if (mod)
			*mod++ = '\0';
		if (!*tok)
			return hist_fail(p, TREV_HIST_ERR_EMPTY_SORT_FIELD, assign);
		if (strcmp(tok, "hitcount") == 0) {
			j = 0;
		} else {
			for (j = 1; j < hd->n_vals + hd->n_keys; j++)
				if (strcmp(hd->fields[j].name, tok) == 0)
					break;
			if (j == hd->n_vals + hd->n_keys)
				return hist_fail(p, TREV_HIST_ERR_INVALID_SORT_FIELD, tok);
		}
		sk->idx = j;
		if (!mod || strcmp(mod, "ascending") == 0)
			sk->descending = false;
		else if (strcmp(mod, "descending") == 0)
			sk->descending = true;
		else
			return hist_fail(p, TREV_HIST_ERR_INVALID_SORT_MODIFIER, mod);
	}
	hd->n_sort = i;
	return 0;
}

/*
 * Where " if " starts the filter (the kernel's rule: "if" with a blank on
 * both sides, not at the start); NULL when there is none.
 */
static char *hist_find_if(char *s)
{
	for (char *q = strstr(s, "if"); q; q = strstr(q + 1, "if")) {
		if (q == s)
			return NULL;
		if ((q[-1] == ' ' || q[-1] == '\t') && (q[2] == ' ' || q[2] == '\t'))
			return q;
	}
	return NULL;
}

static int hist_parse_filter(struct hist_parse *p, char *text)
{
	struct trev_filter_error ferr = { NULL, 0 };
	int ret;

	p->hd->filter_text = strdup(text);
	if (!p->hd->filter_text)
		return -ENOMEM;
	ret = trev__filter_compile(p->call, text, &p->hd->filter, &ferr);
	if (ret == -EINVAL) {
		p->err->msg = ferr.msg ? ferr.msg : trev__hist_err_text(TREV_HIST_ERR_BAD_FILTER);
		p->err->pos = HIST_PREFIX_LEN + (int)(text - p->buf) + ferr.pos;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Variables, expressions and references (the kernel's parse_expr())    */

/* Refuse with @code and the caret at column 0 of the command (the kernel's errpos 0). */
static int hist_fail0(struct hist_parse *p, enum trev_hist_err code)
{
	p->err->msg = trev__hist_err_text(code);
	p->err->pos = 0;
	return -EINVAL;
}

static struct hist_expr *hx_new(enum hist_expr_kind kind, const char *type)
{
	struct hist_expr *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->kind = kind;
	e->type = strdup(type);
	if (!e->type) {
		free(e);
		return NULL;
	}
	return e;
}

/* The event of @sys and @event, or NULL (the registry lock is held). */
struct hist_ev_lookup {
	const char *system, *event;
	struct trev_event_call *call;
};

static int hist_ev_lookup_one(struct trev_event_call *call, void *arg)
{
	struct hist_ev_lookup *l = arg;

	if (strcmp(call->klass->system, l->system) || strcmp(call->name, l->event))
		return 0;
	l->call = call;
	return 1;
}

static struct trev_event_call *hist_find_call(const char *system, const char *event)
{
	struct hist_ev_lookup l = { system, event, NULL };

	trev__events_for_each(hist_ev_lookup_one, &l);
	return l.call;
}

static bool hist_is_call(const struct trev_event_call *call, const char *system, const char *event)
{
	return strcmp(call->klass->system, system) == 0 && strcmp(call->name, event) == 0;
}

static const struct hist_var *hist_find_own_var(const struct hist_data *hd, const char *name)
{
	for (unsigned int i = 0; i < hd->n_vars; i++)
		if (strcmp(hd->vars[i].name, name) == 0)
			return &hd->vars[i];
	return NULL;
}

/* A variable of a registered hist trigger of @file: its trigger. */
static struct trev_hist_trigger *hist_file_var(struct trev_event_file *file, const char *name,
					       const struct hist_var **var)
{
	for (struct trev_event_trigger *t = file ? file->triggers : NULL; t; t = t->next) {
		struct trev_hist_trigger *ht = t->priv;

		if (t->cmd != &trev__hist_cmd || !ht)
			continue;
		*var = hist_find_own_var(ht->hd, name);
		if (*var)
			return ht;
	}
	return NULL;
}

/* Every event file of an instance that has a hist variable of a name. */
struct hist_var_search {
	struct trev_trace_array *tr;
	const char *name;
	struct trev_hist_trigger *found;
	const struct hist_var *var;
	struct trev_event_file *file;
	bool twice;			/* on two event files: not unique */
};

static int hist_var_search_one(struct trev_event_call *call, void *arg)
{
	struct hist_var_search *s = arg;
	struct trev_event_file *file = trev__event_file(s->tr, call, false);
	const struct hist_var *var;
	struct trev_hist_trigger *ht = hist_file_var(file, s->name, &var);

	if (!ht)
		return 0;
	if (s->found && s->file != file) {
		s->twice = true;
		return 1;
	}
	s->found = ht;
	s->var = var;
	s->file = file;
	return 0;
}

/* @r reads @var: its words in the entry, its kind and type (type and name set by the caller). */
static void hist_ref_to(struct hist_ref *r, const struct hist_var *var)
{
	r->slot = var->slot;
	r->set = var->set;
	r->is_string = var->is_string;
	r->usecs = var->expr->usecs;
	r->size = var->expr->size;
	r->is_signed = var->expr->is_signed;
}

/*
 * A reference to variable @name of another hist (the kernel's
 * find_event_var()): of @system.@event when given; else of the onmatch()
 * events, else of any hist of the instance, which must be the only one.
 * Return: its index in hd->refs, or a negative errno with the error set.
 */
static int hist_ref_other(struct hist_parse *p, const char *system, const char *event,
			  char *name, bool read_once)
{
	struct hist_data *hd = p->hd;
	struct trev_hist_trigger *ht = NULL;
	const struct hist_var *var = NULL;
	struct hist_ref *r;

	if (!p->tr)
		return hist_fail(p, TREV_HIST_ERR_VAR_NOT_FOUND, name);
	if (system) {
		struct trev_event_call *call = hist_find_call(system, event);

		if (call)
			ht = hist_file_var(trev__event_file(p->tr, call, false), name, &var);
	} else {
		for (unsigned int i = 0; i < p->n_match; i++) {
			char *dot = strchr(p->match[i], '.');
			struct trev_event_call *call;
			struct trev_hist_trigger *one;
			const struct hist_var *v;

			*dot = '\0';
			call = hist_find_call(p->match[i], dot + 1);
			*dot = '.';
			one = call ? hist_file_var(trev__event_file(p->tr, call, false), name, &v) : NULL;
			if (one && ht && one != ht)
				return hist_fail(p, TREV_HIST_ERR_VAR_NOT_UNIQUE, name);
			if (one) {
				ht = one;
				var = v;
			}
		}
		if (!ht) {
			struct hist_var_search s = { p->tr, name, NULL, NULL, NULL, false };

			trev__events_for_each(hist_var_search_one, &s);
			if (s.twice)
				return hist_fail(p, TREV_HIST_ERR_VAR_NOT_UNIQUE, name);
			ht = s.found;
			var = s.var;
		}
	}
	if (!ht)
		return hist_fail(p, TREV_HIST_ERR_VAR_NOT_FOUND, name);
	for (unsigned int i = 0; i < hd->n_refs; i++) {
		if (hd->refs[i].sh == ht->sh && hd->refs[i].slot == var->slot) {
			hd->refs[i].read_once |= read_once;
			return (int)i;
		}
	}
	if (hd->n_refs == TREV_HIST_VARS_MAX)
		return hist_fail(p, TREV_HIST_ERR_TOO_MANY_VARS, name);
	r = &hd->refs[hd->n_refs];
	memset(r, 0, sizeof(*r));
	r->type = strdup(var->expr->type);
	if (!system)
		r->name = strdup(name);
	else if (asprintf(&r->name, "%s.%s.%s", system, event, name) < 0)
		r->name = NULL;
	if (!r->type || !r->name) {
		free(r->type);
		free(r->name);
		return -ENOMEM;
	}
	pthread_mutex_lock(&hist_lock);
	ht->sh->ref++;
	pthread_mutex_unlock(&hist_lock);
	r->sh = ht->sh;
	hist_ref_to(r, var);
	r->read_once = read_once;
	return (int)hd->n_refs++;
}

/* A reference to this hist's own variable @var (actions, onmax()). */
static int hist_ref_self(struct hist_parse *p, const struct hist_var *var, const char *at)
{
	struct hist_data *hd = p->hd;
	struct hist_ref *r;

	for (unsigned int i = 0; i < hd->n_refs; i++)
		if (!hd->refs[i].sh && hd->refs[i].slot == var->slot)
			return (int)i;
	if (hd->n_refs == TREV_HIST_VARS_MAX)
		return hist_fail(p, TREV_HIST_ERR_TOO_MANY_VARS, at);
	r = &hd->refs[hd->n_refs];
	memset(r, 0, sizeof(*r));
	r->type = strdup(var->expr->type);
	r->name = strdup(var->name);
	if (!r->type || !r->name) {
		free(r->type);
		free(r->name);
		return -ENOMEM;
	}
	hist_ref_to(r, var);
	return (int)hd->n_refs++;
}

/*
 * "$x" where x is a variable of this hist defined as a plain field: the
 * kernel reads that field instead (local_field_var_ref()). Return: the
 * field's text, or NULL.
 */
static const char *hist_local_field_var(struct hist_parse *p, const char *name)
{
	for (unsigned int i = 0; i < p->n_defs; i++) {
		const char *e = p->def_expr[i];

		if (strcmp(p->def_name[i], name) == 0)
			return strpbrk(e + (e[0] == '-'), "+-*/") || e[0] == '$' || e[0] == '-' ?
				NULL : e;
	}
	return NULL;
}

static int hx_parse(struct hist_parse *p, char *str, unsigned int *n_sub, struct hist_expr **out);

/* A field, common_timestamp, a number or a $var (the kernel's parse_atom()). */
static int hx_parse_atom(struct hist_parse *p, char *str, struct hist_expr **out)
{
	char *system = NULL, *event = NULL, *var, *name = NULL;
	struct hist_expr *e;
	int ret;

	if (isdigit((unsigned char)str[0])) {
		unsigned long long v;
		char *end;

		errno = 0;
		v = strtoull(str, &end, 0);
		if (errno || *end)
			return hist_fail(p, TREV_HIST_ERR_EXPECT_NUMBER, str);
		e = hx_new(HX_CONST, "u64");
		if (!e)
			return -ENOMEM;
		e->constant = v;
		e->size = 8;
		*out = e;
		return 0;
	}
	/*
	 * sys.event.$var, the kernel's form; $sys.event.var, as the kernel
	 * prints one, taken too; sys.event.field is this event's field, as
	 * in the kernel.
	 */
	if (strchr(str, '.') && strchr(strchr(str, '.') + 1, '.')) {
		bool dollar = str[0] == '$';

		system = str + dollar;
		event = strchr(system, '.');
		*event++ = '\0';
		var = strchr(event, '.');
		*var++ = '\0';
		if (dollar) {
			name = var;
		} else if (var[0] == '$') {
			name = var + 1;
		} else {
			system = event = NULL;
			str = var;
		}
	} else if (str[0] == '$') {
		name = str + 1;
	}
	if (name && *name) {
		const char *field = NULL;

		if (!system || hist_is_call(p->call, system, event))
			field = hist_local_field_var(p, name);
		if (!field) {
			int idx = hist_ref_other(p, system, event, name, false);

			if (idx < 0)
				return idx;
			e = hx_new(HX_REF, p->hd->refs[idx].type);
			if (!e)
				return -ENOMEM;
			e->ref = (unsigned int)idx;
			e->is_string = p->hd->refs[idx].is_string;
			e->usecs = p->hd->refs[idx].usecs;
			e->size = p->hd->refs[idx].size;
			e->is_signed = p->hd->refs[idx].is_signed;
			*out = e;
			return 0;
		}
		/* Parse the field's text in place of "$x": positions stay at "$x". */
		{
			char copy[TREV_HIST_STR_MAX];

			snprintf(copy, sizeof(copy), "%s", field);
			e = calloc(1, sizeof(*e));
			if (!e)
				return -ENOMEM;
			ret = hist_parse_field(p, copy, HPF_STRING, &e->f);
			goto field;
		}
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	ret = hist_parse_field(p, str, HPF_STRING, &e->f);
field:
	if (ret) {
		hist_expr_free(e);
		return ret;
	}
	e->kind = e->f.flags & HF_TIMESTAMP ? HX_TIMESTAMP : HX_FIELD;
	e->usecs = (e->f.flags & HF_TIMESTAMP) && (e->f.flags & HF_USECS);
	e->is_string = e->f.flags & HF_STRING;
	e->size = e->f.size;
	e->is_signed = e->f.is_signed;
	e->type = strdup(e->f.type);
	if (!e->type) {
		hist_expr_free(e);
		return -ENOMEM;
	}
	*out = e;
	return 0;
}

/*
 * The root operator of @str (the kernel's contains_operator()): the
 * rightmost + or -, else the rightmost * or /, so that operators of one
 * precedence are evaluated left to right. A '-' first is unary.
 */
static enum hist_expr_kind hx_operator(char *str, char **sep)
{
	char *minus = strrchr(str, '-'), *plus, *div, *mult;

	*sep = NULL;
	if (minus == str)
		return HX_NEG;
	plus = strrchr(str, '+');
	if (plus || minus) {
		*sep = plus > minus ? plus : minus;
		return plus > minus ? HX_PLUS : HX_MINUS;
	}
	div = strrchr(str, '/');
	mult = strrchr(str, '*');
	if (div || mult) {
		*sep = mult > div ? mult : div;
		return mult > div ? HX_MULT : HX_DIV;
	}
	return HX_FIELD;
}

static uint64_t hx_apply(enum hist_expr_kind kind, uint64_t a, uint64_t b)
{
	switch (kind) {
	case HX_PLUS:
		return a + b;
	case HX_MINUS:
		return a - b;
	case HX_MULT:
		return a * b;
	case HX_DIV:
		return b ? a / b : (uint64_t)-1;	/* the kernel's div_by_zero: -1 */
	case HX_NEG:
		return -a;
	default:
		return a;
	}
}

/* -(expr) (the kernel's parse_unary()). */
static int hx_parse_unary(struct hist_parse *p, char *str, unsigned int *n_sub,
			  struct hist_expr **out)
{
	struct hist_expr *e, *a = NULL;
	char *close;
	int ret;

	if (++*n_sub > 3)
		return hist_fail(p, TREV_HIST_ERR_TOO_MANY_SUBEXPR, str);
	str++;
	if (*str != '(')
		return hist_fail(p, TREV_HIST_ERR_UNARY_MINUS_PAREN, str);
	str++;
	close = strrchr(str, ')');
	if (!close)
		return hist_fail(p, TREV_HIST_ERR_UNARY_MINUS_PAREN, str);
	if (close[1])
		return hist_fail(p, TREV_HIST_ERR_UNARY_MINUS_SUBEXPR, str);
	*close = '\0';
	ret = hx_parse(p, str, n_sub, &a);
	if (ret)
		return ret;
	if (a->is_string) {
		hist_expr_free(a);
		return hist_fail(p, TREV_HIST_ERR_INVALID_STR_OPERAND, str);
	}
	e = hx_new(HX_NEG, a->type);
	if (!e) {
		hist_expr_free(a);
		return -ENOMEM;
	}
	e->a = a;
	e->usecs = a->usecs;
	e->size = a->size;
	e->is_signed = a->is_signed;
	*out = e;
	return 0;
}

/* An expression of + - * / over fields, constants and $vars (the kernel's parse_expr()). */
static int hx_parse(struct hist_parse *p, char *str, unsigned int *n_sub, struct hist_expr **out)
{
	struct hist_expr *a = NULL, *b = NULL, *e;
	enum hist_expr_kind op;
	char *sep, *rhs;
	int ret;

	if (*n_sub > 3)
		return hist_fail(p, TREV_HIST_ERR_TOO_MANY_SUBEXPR, str);
	op = hx_operator(str, &sep);
	if (op == HX_FIELD)
		return hx_parse_atom(p, str, out);
	if (op == HX_NEG)
		return hx_parse_unary(p, str, n_sub, out);
	++*n_sub;
	*sep = '\0';
	rhs = sep + 1;
	if (!*str || !*rhs)
		return hist_fail(p, TREV_HIST_ERR_MISSING_OPERAND, *str ? rhs : str);
	ret = hx_parse(p, str, n_sub, &a);
	if (ret)
		return ret;
	if (a->is_string) {
		ret = hist_fail(p, TREV_HIST_ERR_INVALID_STR_OPERAND, str);
		goto out_free;
	}
	ret = hx_parse(p, rhs, n_sub, &b);
	if (ret)
		goto out_free;
	if (b->is_string) {
		ret = hist_fail(p, TREV_HIST_ERR_INVALID_STR_OPERAND, rhs);
		goto out_free;
	}
	if (a->usecs != b->usecs) {
		ret = hist_fail0(p, TREV_HIST_ERR_TIMESTAMP_MISMATCH);
		goto out_free;
	}
	/* The operands of an expression consume the variables they read. */
	if (a->kind == HX_REF)
		p->hd->refs[a->ref].read_once = true;
	if (b->kind == HX_REF)
		p->hd->refs[b->ref].read_once = true;
	if (op == HX_DIV && b->kind == HX_CONST && !b->constant) {
		ret = hist_fail(p, TREV_HIST_ERR_DIVISION_BY_ZERO, rhs);
		goto out_free;
	}
	ret = -ENOMEM;
	e = hx_new(op, a->type);
	if (!e)
		goto out_free;
	e->usecs = a->usecs;
	e->size = a->size;
	e->is_signed = a->is_signed;
	if (a->kind == HX_CONST && b->kind == HX_CONST) {
		/* Constants of constants are folded, as the kernel does. */
		e->kind = HX_CONST;
		e->constant = hx_apply(op, a->constant, b->constant);
		hist_expr_free(a);
		hist_expr_free(b);
	} else {
		e->a = a;
		e->b = b;
	}
	*out = e;
	return 0;

out_free:
	hist_expr_free(a);
	hist_expr_free(b);
	return ret;
}

static const char *hist_field_flag(const struct hist_field *f);

/*
 * The text of @e as the kernel's expr_str() writes it: operands flat, no
 * parentheses but -(...), a modifier after a field (with =N after
 * .buckets). Unlike the kernel's, an operand that is itself an expression
 * in microseconds gets no ".usecs" after it, so that the line parses again
 * (docs/hist.md).
 */
static int hx_text(struct trev_buf *b, const struct hist_data *hd, const struct hist_expr *e)
{
	static const char ops[] = { [HX_PLUS] = '+', [HX_MINUS] = '-', [HX_MULT] = '*',
				    [HX_DIV] = '/' };
	const char *flag;
	int ret;

	switch (e->kind) {
	case HX_CONST:
		return trev__buf_printf(b, "%" PRIu64, e->constant);
	case HX_REF:
		return trev__buf_printf(b, "$%s", hd->refs[e->ref].name);
	case HX_FIELD:
	case HX_TIMESTAMP:
		ret = trev__buf_puts(b, e->f.name);
		flag = hist_field_flag(&e->f);
		if (!ret && flag)
			ret = trev__buf_printf(b, ".%s", flag);
		if (!ret && (e->f.flags & HF_BUCKET))
			ret = trev__buf_printf(b, "=%lu", e->f.buckets);
		return ret;
	case HX_NEG:
		ret = trev__buf_puts(b, "-(");
		if (!ret)
			ret = hx_text(b, hd, e->a);
		if (!ret)
			ret = trev__buf_puts(b, ")");
		return ret;
	default:
		ret = hx_text(b, hd, e->a);
		if (!ret)
			ret = trev__buf_printf(b, "%c", ops[e->kind]);
		if (!ret)
			ret = hx_text(b, hd, e->b);
		return ret;
	}
}

/* The text of @e, allocated. */
static char *hx_text_dup(const struct hist_data *hd, const struct hist_expr *e)
{
	struct trev_buf b;

	trev__buf_init(&b);
	if (hx_text(&b, hd, e)) {
		trev__buf_free(&b);
		return NULL;
	}
	return trev__buf_detach(&b);
}

/* One "name=expr" (the kernel's create_var_field()). */
static int hist_parse_var(struct hist_parse *p, char *name, char *text)
{
	struct hist_data *hd = p->hd;
	const struct hist_var *other;
	struct hist_expr *e = NULL;
	unsigned int n_sub = 0;
	struct hist_var *v;
	int ret;

	if (hd->n_vars == TREV_HIST_VARS_MAX)
		return hist_fail(p, TREV_HIST_ERR_TOO_MANY_VARS, name);
	/* The kernel's find_var(): this hist's, or another hist's of the same event. */
	if (hist_find_own_var(hd, name) ||
	    (!p->remove && !(hd->attrs & (TREV_HIST_ATTR_PAUSE | TREV_HIST_ATTR_CONT |
					  TREV_HIST_ATTR_CLEAR)) && p->tr &&
	     hist_file_var(trev__event_file(p->tr, p->call, false), name, &other)))
		return hist_fail(p, TREV_HIST_ERR_DUPLICATE_VAR, name);
	ret = hx_parse(p, text, &n_sub, &e);
	if (ret)
		return ret;
	/* A string variable is a string field's copy (not an alias of another's). */
	if (e->is_string && e->kind != HX_FIELD) {
		hist_expr_free(e);
		return hist_fail(p, TREV_HIST_ERR_STRING_VAR, text);
	}
	v = &hd->vars[hd->n_vars++];	/* owned now, freed with hd */
	v->expr = e;
	v->is_string = e->is_string;
	v->slot = hd->n_slots;
	hd->n_slots += v->is_string ? HIST_VAR_STR_MAX / 8 : 1;
	v->set = hd->n_slots++;
	v->name = strdup(name);
	v->text = hx_text_dup(hd, e);
	if (!v->name || !v->text)
		return -ENOMEM;
	return 0;
}

/* Every "name=expr[,name=expr...]" attribute (the kernel's parse_var_defs()). */
static int hist_parse_vars(struct hist_parse *p)
{
	for (unsigned int i = 0; i < p->n_assign; i++) {
		char *save = p->assign[i], *tok;

		while ((tok = strsep(&save, ","))) {
			char *eq = strchr(tok, '=');
			int ret;

			if (!eq || eq == tok || !eq[1])
				return hist_fail(p, TREV_HIST_ERR_MALFORMED_ASSIGNMENT, tok);
			*eq = '\0';
			ret = hist_parse_var(p, tok, eq + 1);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Copy the definitions before they are parsed: "$x" of a variable defined
 * later as a field reads the field (hist_local_field_var()), and $vars are
 * looked up first in the onmatch() events.
 */
static int hist_collect_defs(struct hist_parse *p)
{
	for (unsigned int i = 0; i < p->n_assign; i++) {
		char *copy = strdup(p->assign[i]), *save = copy, *tok;

		if (!copy)
			return -ENOMEM;
		while ((tok = strsep(&save, ",")) && p->n_defs < TREV_HIST_VARS_MAX) {
			char *eq = strchr(tok, '=');

			if (!eq)
				continue;
			*eq = '\0';
			p->def_name[p->n_defs] = strdup(tok);
			p->def_expr[p->n_defs] = strdup(eq + 1);
			if (!p->def_name[p->n_defs] || !p->def_expr[p->n_defs]) {
				free(p->def_name[p->n_defs]);
				free(copy);
				return -ENOMEM;
			}
			p->n_defs++;
		}
		free(copy);
	}
	for (unsigned int i = 0; i < p->n_action; i++) {
		const char *s = p->action[i];
		size_t n;

		if (strncmp(s, "onmatch(", 8))
			continue;
		s += 8;
		n = strcspn(s, ")");
		if (!memchr(s, '.', n) || p->n_match == TREV_HIST_ACTIONS_MAX)
			continue;
		p->match[p->n_match] = strndup(s, n);
		if (!p->match[p->n_match])
			return -ENOMEM;
		p->n_match++;
	}
	return 0;
}

static void hist_parse_release(struct hist_parse *p)
{
	for (unsigned int i = 0; i < p->n_defs; i++) {
		free(p->def_name[i]);
		free(p->def_expr[i]);
	}
	for (unsigned int i = 0; i < p->n_match; i++)
		free(p->match[i]);
}

/* ------------------------------------------------------------------ */
/* Actions: onmatch(), onmax(), onchange() with trace(), save(), snapshot() */

/* Split "a, b ,c" at commas into trimmed words in place; Return: how many, or -1 if too many. */
static int hist_split_params(char *params, char **argv, int max)
{
	int n = 0;
	char *save = params, *tok;

	if (!params)
		return 0;
	while ((tok = strsep(&save, ","))) {
		char *end;

		while (isspace((unsigned char)*tok))
			tok++;
		for (end = tok + strlen(tok); end > tok && isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		if (n == max)
			return -1;
		argv[n++] = tok;
	}
	return n;
}

/*
 * The kernel's check_synth_field(): a string goes to a string field, a
 * number to a field of the same type, or of the same size and sign.
 */
static bool hist_param_fits(const struct trev_synth_event *se, unsigned int i, bool is_string,
			    const char *type, int size, int is_signed)
{
	if (trev__synth_field_is_string(se, i) || is_string)
		return trev__synth_field_is_string(se, i) && is_string;
	if (strcmp(trev__synth_field_type(se, i), type) == 0)
		return true;
	return (int)trev__synth_field_size(se, i) == size &&
	       trev__synth_field_is_signed(se, i) == !!is_signed;
}

/* @call has a field of that name (a common one, or common_timestamp). */
static bool hist_has_field(struct trev_event_call *call, const char *name)
{
	size_t n = strcspn(name, ".");
	char field[TREV_NAME_MAX];

	snprintf(field, sizeof(field), "%.*s", (int)n, name);
	if (strcmp(field, "common_timestamp") == 0)
		return true;
	for (size_t i = 0; i < sizeof(hist_common_fields) / sizeof(hist_common_fields[0]); i++)
		if (strcmp(field, hist_common_fields[i].name) == 0)
			return true;
	return hist_find_event_field(call, field) != NULL;
}

/* A hist of @file whose keys are this one's, in number and sizes (find_compatible_hist()). */
static struct trev_event_trigger *hist_compatible(const struct hist_data *hd,
						  struct trev_event_file *file)
{
	for (struct trev_event_trigger *t = file->triggers; t; t = t->next) {
		const struct trev_hist_trigger *ht = t->priv;
		const struct hist_data *o;
		bool same = true;

		if (t->cmd != &trev__hist_cmd || !ht)
			continue;
		o = ht->hd;
		if (o->n_keys != hd->n_keys || o->key_size != hd->key_size)
			continue;
		for (unsigned int i = 0; i < hd->n_keys; i++)
			same &= o->fields[o->n_vals + i].key_size == hd->fields[hd->n_vals + i].key_size;
		if (same)
			return t;
	}
	return NULL;
}

/*
 * A field of another event given to an action (the kernel's
 * create_field_var_hist()): a hist is made on that event with the keys of
 * one of its hists whose keys are this one's, its filter, and the variable
 * synthetic_<field>=<field>, and the param reads that variable. An
 * existing one is read (and stays when this trigger goes); one made here
 * goes with this trigger. Return: the reference's index, or an error.
 */
static int hist_field_var_hist(struct hist_parse *p, struct hist_action *a, char *system,
			       char *event, const char *field, const char *at)
{
	struct hist_data *hd = p->hd;
	struct trev_event_trigger *model;
	struct trev_event_file *file;
	struct trev_event_call *call;
	char var[TREV_NAME_MAX + 16], *line;
	const struct hist_var *v;
	struct trev_buf b;
	int ret;

	if (!system) {
		/* An unqualified field not of this event: the onmatch() event's (p->match, in order). */
		unsigned int k = 0;

		for (unsigned int i = 0; i < hd->n_actions && &hd->actions[i] != a; i++)
			k += hd->actions[i].handler == HH_ONMATCH;
		system = k < p->n_match ? p->match[k] : NULL;
		if (!system || !strchr(system, '.'))
			return hist_fail(p, TREV_HIST_ERR_FIELD_NOT_FOUND, at);
		event = strchr(system, '.') + 1;
		snprintf(var, sizeof(var), "%.*s", (int)(event - 1 - system), system);
		return hist_field_var_hist(p, a, var, event, field, at);
	}
	call = hist_find_call(system, event);
	file = call && p->tr ? trev__event_file(p->tr, call, false) : NULL;
	if (!file || !p->file)
		return hist_fail(p, TREV_HIST_ERR_FIELD_VAR_CREATE_FAIL, at);
	snprintf(var, sizeof(var), "synthetic_%s", field);
	if (p->remove || hist_file_var(file, var, &v))
		return hist_ref_other(p, system, event, var, false);
	if (!hist_has_field(call, field))
		return hist_fail(p, TREV_HIST_ERR_FIELD_NOT_FOUND, at);
	model = hist_compatible(hd, file);
	if (!model)
		return hist_fail(p, TREV_HIST_ERR_HIST_NOT_FOUND, at);
	if (hd->n_fv == TREV_HIST_VARS_MAX)
		return hist_fail(p, TREV_HIST_ERR_TOO_MANY_VARS, at);
	trev__buf_init(&b);
	ret = trev__buf_puts(&b, "hist:keys=");
	for (unsigned int i = 0; !ret && i < ((struct trev_hist_trigger *)model->priv)->hd->n_keys; i++) {
		const struct hist_data *o = ((struct trev_hist_trigger *)model->priv)->hd;

		ret = trev__buf_printf(&b, "%s%s", i ? "," : "", o->fields[o->n_vals + i].name);
	}
	if (!ret)
		ret = trev__buf_printf(&b, ":%s=%s", var, field);
	if (!ret && model->filter_text)
		ret = trev__buf_printf(&b, " if %s", model->filter_text);
	line = ret ? NULL : trev__buf_detach(&b);
	if (!line) {
		trev__buf_free(&b);
		return -ENOMEM;
	}
	ret = trev__trigger_write(p->tr, file, line);
	if (ret) {
		free(line);
		return ret == -ENOMEM ? ret : hist_fail(p, TREV_HIST_ERR_HIST_CREATE_FAIL, at);
	}
	hd->fv_cmd[hd->n_fv] = line;
	hd->fv_file[hd->n_fv++] = file;
	return hist_ref_other(p, system, event, var, false);
}

/*
 * One parameter of trace(): "$var" (this hist's variable, else another's
 * as in an expression), "sys.event.$var", or a field of this event.
 */
static int hist_parse_param(struct hist_parse *p, struct hist_action *a, char *param,
			    unsigned int i)
{
	struct hist_param *hp = &a->params[i];
	char *system = NULL, *event = NULL, *rest = param, *at = param;
	bool is_string;
	const char *type;
	int size, is_signed, ret;

	if (strlen(param) < 2)
		return hist_fail(p, TREV_HIST_ERR_INVALID_PARAM, param);
	if (strchr(param, '.') && strchr(strchr(param, '.') + 1, '.')) {
		system = param;
		event = strchr(param, '.');
		*event++ = '\0';
		rest = strchr(event, '.');
		*rest++ = '\0';
	}
	if (rest[0] == '$') {
		const struct hist_var *own = NULL;
		int idx;

		if (!system || hist_is_call(p->call, system, event))
			own = hist_find_own_var(p->hd, rest + 1);
		if (own) {
			idx = hist_ref_self(p, own, rest);
		} else {
			idx = hist_ref_other(p, system, event, rest + 1, false);
			if (idx == -EINVAL && p->err->msg == trev__hist_err_text(TREV_HIST_ERR_VAR_NOT_FOUND))
				return hist_fail(p, TREV_HIST_ERR_PARAM_NOT_FOUND, at);
		}
		if (idx < 0)
			return idx;
		hp->is_ref = true;
		hp->ref = (unsigned int)idx;
		is_string = p->hd->refs[idx].is_string;
		type = p->hd->refs[idx].type;
		size = p->hd->refs[idx].size;
		is_signed = p->hd->refs[idx].is_signed;
	} else if ((system && !hist_is_call(p->call, system, event)) ||
		   (!system && a->handler == HH_ONMATCH && !hist_has_field(p->call, rest))) {
		/* A field of another event: a variable of a hist made there. */
		int idx = hist_field_var_hist(p, a, system, event, rest, at);

		if (idx < 0)
			return idx;
		hp->is_ref = true;
		hp->ref = (unsigned int)idx;
		is_string = p->hd->refs[idx].is_string;
		type = p->hd->refs[idx].type;
		size = p->hd->refs[idx].size;
		is_signed = p->hd->refs[idx].is_signed;
	} else {
		ret = hist_parse_field(p, rest, HPF_STRING, &hp->f);
		if (ret)
			return ret;
		if (hp->f.flags & HF_TIMESTAMP)
			p->hd->timestamps = true;
		is_string = hp->f.flags & HF_STRING;
		if (is_string)
			a->n_strings++;
		type = hp->f.type;
		size = hp->f.size;
		is_signed = hp->f.is_signed;
	}
	if (a->se && !hist_param_fits(a->se, i, is_string, type, size, is_signed))
		return hist_fail(p, TREV_HIST_ERR_SYNTH_TYPE_MISMATCH, at);
	return 0;
}

/* save(field, ...): a word per number, HIST_SAVE_STR_MAX bytes per string. */
static int hist_parse_saves(struct hist_parse *p, struct hist_action *a, char **argv, int n)
{
	a->saves = calloc((size_t)n, sizeof(*a->saves));
	if (!a->saves)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct hist_save *sv = &a->saves[i];
		int ret;

		if (strlen(argv[i]) < 2)
			return hist_fail(p, TREV_HIST_ERR_INVALID_PARAM, argv[i]);
		ret = hist_parse_field(p, argv[i], HPF_STRING, &sv->f);
		a->n_saves++;
		if (ret)
			return ret;
		if (sv->f.flags & HF_TIMESTAMP)
			p->hd->timestamps = true;
		sv->n_slots = sv->f.flags & HF_STRING ? HIST_SAVE_STR_MAX / 8 : 1;
		sv->slot = p->hd->n_slots;
		p->hd->n_slots += sv->n_slots;
	}
	return 0;
}

/* The action's text as the trigger file prints it (print_actions_spec()). */
static int hist_action_spec(struct hist_action *a, const char *handler, const char *arg,
			    const char *name, char **argv, int n)
{
	struct trev_buf b;
	int ret;

	trev__buf_init(&b);
	ret = trev__buf_printf(&b, ":%s(%s).%s(", handler, arg, name);
	for (int i = 0; !ret && i < n; i++)
		ret = trev__buf_printf(&b, "%s%s", i ? "," : "", argv[i]);
	if (!ret)
		ret = trev__buf_puts(&b, ")");
	if (ret) {
		trev__buf_free(&b);
		return ret;
	}
	a->spec = trev__buf_detach(&b);
	return a->spec ? 0 : -ENOMEM;
}

/* hist_parse_action() after the handler's name: @arg its argument, @s what follows it. */
static int hist_parse_action_arg(struct hist_parse *p, struct hist_action *a, char *arg,
				 char *s, const char *arg_copy, const char *handler)
{
	struct hist_data *hd = p->hd;
	char *name, *params, *argv[TREV_SYNTH_FIELDS_MAX + 1];
	int n, ret;

	if (a->handler == HH_ONMATCH) {
		char *dot = strchr(arg, '.');

		if (!dot)
			return hist_fail(p, TREV_HIST_ERR_SUBSYS_NOT_FOUND, arg);
		*dot = '\0';
		if (!hist_find_call(arg, dot + 1))
			return hist_fail(p, TREV_HIST_ERR_INVALID_SUBSYS_EVENT, arg);
	}
	if (*s != '.')
		return hist_fail0(p, TREV_HIST_ERR_ACTION_NOT_FOUND);
	name = s + 1;
	s = strchr(name, '(');
	if (!s || s == name)
		return hist_fail0(p, TREV_HIST_ERR_ACTION_NOT_FOUND);
	*s++ = '\0';
	params = s;
	s = strrchr(params, ')');
	if (!s || s[1])
		return hist_fail(p, TREV_HIST_ERR_NO_CLOSING_PAREN, params);
	*s = '\0';
	n = hist_split_params(*params ? params : NULL, argv, TREV_SYNTH_FIELDS_MAX + 1);
	if (n < 0)
		return hist_fail0(p, TREV_HIST_ERR_TOO_MANY_PARAMS);
	ret = hist_action_spec(a, handler, arg_copy, name, argv, n);
	if (ret)
		return ret;
	if (a->handler != HH_ONMATCH) {
		const struct hist_var *var;
		int idx;

		/* The variable, after the action's text is known good (track_data_create()). */
		if (arg[0] != '$')
			return hist_fail(p, TREV_HIST_ERR_ONX_NOT_VAR, arg);
		var = hist_find_own_var(hd, arg + 1);
		if (!var)
			return hist_fail(p, TREV_HIST_ERR_ONX_VAR_NOT_FOUND, arg + 1);
		if (var->is_string)
			return hist_fail(p, TREV_HIST_ERR_ONX_VAR_CREATE_FAIL, arg + 1);
		idx = hist_ref_self(p, var, arg);
		if (idx < 0)
			return idx;
		a->track_ref = (unsigned int)idx;
		a->track_slot = hd->n_slots++;
	}

	if (strcmp(name, "save") == 0 || strcmp(name, "snapshot") == 0) {
		bool save = name[1] == 'a';

		if (a->handler == HH_ONMATCH)
			return hist_fail(p, TREV_HIST_ERR_ACTION_MISMATCH, name);
		if (save) {
			/* "save()": one empty param, as the kernel's parse_action_params() sees it. */
			if (!n)
				return hist_fail(p, TREV_HIST_ERR_INVALID_PARAM, params);
			for (unsigned int i = 0; i < hd->n_actions - 1; i++)
				if (hd->actions[i].kind == HA_SAVE)
					return hist_fail(p, TREV_HIST_ERR_TOO_MANY_SAVE_ACTIONS, name);
			a->kind = HA_SAVE;
			return hist_parse_saves(p, a, argv, n);
		}
		a->kind = HA_SNAPSHOT;
		hd->has_snapshot = true;
		return 0;
	}

	/* trace(synth, params...) or synth(params...) */
	a->kind = HA_TRACE;
	if (strcmp(name, "trace") == 0) {
		if (!n)
			return hist_fail(p, TREV_HIST_ERR_SYNTH_EVENT_NOT_FOUND, params);
		name = argv[0];
		memmove(argv, argv + 1, (size_t)--n * sizeof(*argv));
	}
	if (n > TREV_SYNTH_FIELDS_MAX)
		return hist_fail0(p, TREV_HIST_ERR_TOO_MANY_PARAMS);
	a->se = trev__synth_get(name);
	if (!a->se)
		return hist_fail(p, TREV_HIST_ERR_SYNTH_EVENT_NOT_FOUND, name);
	if ((unsigned int)n != trev__synth_nr_fields(a->se))
		return hist_fail(p, TREV_HIST_ERR_SYNTH_COUNT_MISMATCH, n ? argv[n - 1] : params);
	a->params = calloc((size_t)n + 1, sizeof(*a->params));
	if (!a->params)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		ret = hist_parse_param(p, a, argv[i], (unsigned int)i);
		a->n_params++;
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * One handler and its action (the kernel's onmatch_parse(), track_data_parse()
 * and action_parse()): "onmatch(sys.event).trace(synth,p,...)",
 * "onmatch(sys.event).synth(p,...)", "onmax($var).save(f,...)",
 * "onchange($var).snapshot()", ...
 */
static int hist_parse_action(struct hist_parse *p, char *str)
{
	struct hist_data *hd = p->hd;
	struct hist_action *a;
	char *arg, *s, *arg_copy;
	const char *handler;
	int ret;

	if (hd->n_actions == TREV_HIST_ACTIONS_MAX)
		return hist_fail(p, TREV_HIST_ERR_TOO_MANY_ACTIONS, str);
	a = &hd->actions[hd->n_actions++];	/* owned now, freed with hd */
	memset(a, 0, sizeof(*a));
	if (strncmp(str, "onmatch(", 8) == 0) {
		a->handler = HH_ONMATCH;
		handler = "onmatch";
	} else if (strncmp(str, "onmax(", 6) == 0) {
		a->handler = HH_ONMAX;
		handler = "onmax";
	} else {
		a->handler = HH_ONCHANGE;
		handler = "onchange";
	}
	arg = strchr(str, '(') + 1;
	s = strchr(arg, ')');
	if (!s)
		return hist_fail(p, TREV_HIST_ERR_NO_CLOSING_PAREN, arg);
	*s++ = '\0';
	/* As written, for the spec: the checks below cut arg. */
	arg_copy = strdup(arg);
	if (!arg_copy)
		return -ENOMEM;
	ret = hist_parse_action_arg(p, a, arg, s, arg_copy, handler);
	free(arg_copy);
	return ret;
}

static int hist_parse_actions(struct hist_parse *p)
{
	for (unsigned int i = 0; i < p->n_action; i++) {
		int ret = hist_parse_action(p, p->action[i]);

		if (ret)
			return ret;
	}
	return 0;
}


/* Split the parameter at ':' and take each attribute (parse_hist_trigger_attrs()). */
static int hist_parse_attrs(struct hist_parse *p, char *param)
{
	struct hist_data *hd = p->hd;
	char *keys = NULL, *vals = NULL, *sort = NULL, *sort_assign = NULL, *name = NULL;
	char *save = param, *tok;
	int ret;

	while ((tok = strsep(&save, ":"))) {
		char *rhs = strchr(tok, '=');

		if (rhs) {
			rhs++;
			if (!*rhs)
				return hist_fail(p, TREV_HIST_ERR_EMPTY_ASSIGNMENT, tok);
			if (strncmp(tok, "key=", 4) == 0 || strncmp(tok, "keys=", 5) == 0) {
				keys = rhs;
			} else if (strncmp(tok, "val=", 4) == 0 || strncmp(tok, "vals=", 5) == 0 ||
				   strncmp(tok, "values=", 7) == 0) {
				vals = rhs;
			} else if (strncmp(tok, "sort=", 5) == 0) {
				sort = rhs;
				sort_assign = tok;
			} else if (strncmp(tok, "name=", 5) == 0) {
				name = rhs;
			} else if (strncmp(tok, "size=", 5) == 0) {
				unsigned long size;
				char *end;
				unsigned int bits = 0;

				errno = 0;
				size = strtoul(rhs, &end, 0);
				if (errno || *end || !isdigit((unsigned char)*rhs))
					return hist_fail(p, TREV_HIST_ERR_INVALID_SIZE, rhs);
				while (bits < 63 && (1ul << bits) < size)
					bits++;
				if (bits < TREV_TMAP_BITS_MIN || bits > TREV_TMAP_BITS_MAX)
					return hist_fail(p, TREV_HIST_ERR_INVALID_SIZE, rhs);
				hd->bits = bits;
			} else if (strncmp(tok, "clock=", 6) == 0) {
				/* The hist clock is the instance's trace_clock. */
				return hist_fail(p, TREV_HIST_ERR_SET_CLOCK_FAIL, rhs);
			} else {
				if (p->n_assign == TREV_HIST_VARS_MAX)
					return hist_fail(p, TREV_HIST_ERR_TOO_MANY_VARS, tok);
				p->assign[p->n_assign++] = tok;
			}
		} else if (strcmp(tok, "pause") == 0) {
			hd->attrs |= TREV_HIST_ATTR_PAUSE;
		} else if (strcmp(tok, "cont") == 0 || strcmp(tok, "continue") == 0) {
			hd->attrs |= TREV_HIST_ATTR_CONT;
		} else if (strcmp(tok, "clear") == 0) {
			hd->attrs |= TREV_HIST_ATTR_CLEAR;
		} else if (strncmp(tok, "onmatch(", 8) == 0 || strncmp(tok, "onmax(", 6) == 0 ||
			   strncmp(tok, "onchange(", 9) == 0) {
			if (p->n_action == TREV_HIST_ACTIONS_MAX)
				return hist_fail(p, TREV_HIST_ERR_TOO_MANY_ACTIONS, tok);
			p->action[p->n_action++] = tok;
		} else {
			return hist_fail(p, TREV_HIST_ERR_ACTION_NOT_FOUND, tok);
		}
	}
	if (!keys)
		return hist_fail(p, TREV_HIST_ERR_MISSING_KEYS, NULL);
	if (name && !(hd->name = strdup(name)))
		return -ENOMEM;
	/* hitcount is value 0 */
	hd->fields[0].flags = HF_HITCOUNT;
	hd->fields[0].size = 8;
	hd->fields[0].name = strdup("hitcount");
	hd->fields[0].type = strdup("u64");
	hd->n_vals = 1;
	if (!hd->fields[0].name || !hd->fields[0].type)
		return -ENOMEM;
	ret = hist_collect_defs(p);
	if (!ret)
		ret = hist_parse_vals(p, vals);
	if (ret)
		return ret;
	/* The element's words: the sums, then the variables, then the actions'. */
	hd->n_slots = hd->n_vals;
	ret = hist_parse_vars(p);
	if (!ret)
		ret = hist_parse_keys(p, keys);
	if (!ret && sort)
		ret = hist_parse_sort(p, sort, sort_assign);
	if (!ret)
		ret = hist_parse_actions(p);
	/* Sixteen string variables, or save() of many strings, are more than an element holds. */
	if (!ret && hd->n_slots > TREV_TMAP_SUMS_MAX)
		ret = hist_fail0(p, TREV_HIST_ERR_TOO_MANY_VARS);
	return ret;
}

/*
 * The shape the event path counts without building a key in memory: one
 * key, a number read from the record (no string, stack or time stamp), and
 * values that are numbers read from the record. The map's key is that one
 * word. Return: the key's field, or NULL for any other shape.
 */
static const struct hist_field *hist_num_key(const struct hist_data *hd)
{
	const unsigned int not_num = HF_STACKTRACE | HF_STRING | HF_TIMESTAMP;

	if (hd->n_keys != 1 || hd->key_size != 8 || (hd->fields[hd->n_vals].flags & not_num))
		return NULL;
	for (unsigned int i = 1; i < hd->n_vals; i++)
		if (hd->fields[i].flags & not_num)
			return NULL;
	return &hd->fields[hd->n_vals];
}

static int hist_parse_full(struct trev_event_call *call, struct trev_trace_array *tr,
			   struct trev_event_file *file, const char *param, bool remove,
			   struct trev_hist_trigger **out, struct trev_hist_error *err)
{
	struct hist_parse p = { .call = call, .err = err, .tr = tr, .file = file, .remove = remove };
	struct trev_hist_trigger *ht = NULL;
	char *cond, *start, *end;
	int ret = -ENOMEM;

	err->msg = NULL;
	err->pos = 0;
	*out = NULL;
	p.buf = strdup(param);
	p.hd = calloc(1, sizeof(*p.hd));
	if (!p.buf || !p.hd)
		goto out_free;
	p.len = strlen(p.buf);
	p.hd->ref = 1;
	p.hd->bits = TREV_TMAP_BITS_DEFAULT;
	p.hd->n_sort = 1;	/* hitcount, ascending */

	cond = hist_find_if(p.buf);
	if (cond)
		cond[-1] = '\0';
	/* Blanks around the attributes go; positions still count from buf. */
	for (start = p.buf; *start == ' ' || *start == '\t'; start++)
		;
	for (end = start + strlen(start); end > start && isspace((unsigned char)end[-1]); end--)
		;
	*end = '\0';
	if (!*start) {
		ret = hist_fail(&p, TREV_HIST_ERR_EMPTY_TRIGGER, start);
		goto out_free;
	}
	ret = hist_parse_attrs(&p, start);
	if (ret)
		goto out_free;
	if (cond) {
		cond += 2;
		while (*cond == ' ' || *cond == '\t')
			cond++;
		for (end = cond + strlen(cond); end > cond && isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		ret = hist_parse_filter(&p, cond);
		if (ret)
			goto out_free;
	}

	for (unsigned int i = p.hd->n_vals; i < p.hd->n_vals + p.hd->n_keys; i++)
		if (p.hd->fields[i].flags & HF_STACKTRACE)
			trev__stack_prepare(call, &p.hd->skip);
	p.hd->inter = p.hd->n_vars || p.hd->n_refs || p.hd->n_actions;
	p.hd->num_key = hist_num_key(p.hd);
	p.hd->hits_only = p.hd->num_key && p.hd->n_vals == 1 && !p.hd->filter && !p.hd->inter;

	ret = -ENOMEM;
	ht = calloc(1, sizeof(*ht));
	if (!ht)
		goto out_free;
	ht->sh = calloc(1, sizeof(*ht->sh));
	if (!ht->sh)
		goto out_free;
	ht->sh->ref = 1;
	ht->sh->proto = p.hd;
	p.hd->ref++;
	atomic_init(&ht->sh->map, hist_map_create(p.hd));
	if (!atomic_load_explicit(&ht->sh->map, memory_order_relaxed))
		goto out_free;
	ht->hd = p.hd;
	ht->tr = tr;
	if (asprintf(&ht->cmd, "hist:%s", param) < 0) {
		ht->cmd = NULL;
		goto out_free;
	}
	atomic_init(&ht->paused, (p.hd->attrs & TREV_HIST_ATTR_PAUSE) != 0);
	hist_parse_release(&p);
	free(p.buf);
	*out = ht;
	return 0;

out_free:
	if (ht) {
		hist_shared_put(ht->sh);
		free(ht->cmd);
		free(ht);
	}
	hist_data_put(p.hd);
	hist_parse_release(&p);
	free(p.buf);
	return ret;
}

int trev__hist_parse(struct trev_event_call *call, struct trev_trace_array *tr,
		     const char *param, struct trev_hist_trigger **out,
		     struct trev_hist_error *err)
{
	return hist_parse_full(call, tr, NULL, param, false, out, err);
}

unsigned int trev__hist_attrs(const struct trev_hist_trigger *ht)
{
	return ht->hd->attrs;
}

/* ------------------------------------------------------------------ */
/* Matching, naming, pause and clear (tracefs lock)                     */

/* Same fields and sort keys (the kernel's hist_trigger_match() without the filter). */
static bool hist_data_match(const struct hist_data *a, const struct hist_data *b)
{
	if (a->n_vals != b->n_vals || a->n_keys != b->n_keys || a->n_sort != b->n_sort)
		return false;
	for (unsigned int i = 0; i < a->n_vals + a->n_keys; i++) {
		const struct hist_field *fa = &a->fields[i], *fb = &b->fields[i];

		if (fa->flags != fb->flags || fa->buckets != fb->buckets ||
		    strcmp(fa->name, fb->name) || strcmp(fa->type, fb->type) ||
		    fa->size != fb->size || fa->is_signed != fb->is_signed ||
		    fa->key_offset != fb->key_offset || fa->key_size != fb->key_size)
			return false;
	}
	for (unsigned int i = 0; i < a->n_sort; i++)
		if (a->sort[i].idx != b->sort[i].idx ||
		    a->sort[i].descending != b->sort[i].descending)
			return false;
	/* Variables and actions by their text (the kernel's actions_match()). */
	if (a->n_vars != b->n_vars || a->n_actions != b->n_actions)
		return false;
	for (unsigned int i = 0; i < a->n_vars; i++)
		if (strcmp(a->vars[i].name, b->vars[i].name) || strcmp(a->vars[i].text, b->vars[i].text))
			return false;
	for (unsigned int i = 0; i < a->n_actions; i++)
		if (strcmp(a->actions[i].spec, b->actions[i].spec))
			return false;
	return true;
}

bool trev__hist_match(const struct trev_hist_trigger *a, const struct trev_hist_trigger *b)
{
	const struct hist_data *x = a->hd, *y = b->hd;

	if (!!x->name != !!y->name || (x->name && strcmp(x->name, y->name)))
		return false;
	if (!!x->filter_text != !!y->filter_text ||
	    (x->filter_text && strcmp(x->filter_text, y->filter_text)))
		return false;
	return hist_data_match(x, y);
}

int trev__hist_attach(struct trev_hist_trigger *ht, struct trev_hist_error *err)
{
	struct hist_shared *sh;
	int ret = 0;

	if (!ht->hd->name || ht->sh->name)
		return 0;
	pthread_mutex_lock(&hist_lock);
	for (sh = hist_named; sh; sh = sh->next)
		if (strcmp(sh->name, ht->hd->name) == 0)
			break;
	if (sh) {
		if (!hist_data_match(sh->proto, ht->hd) || sh->proto->key_size != ht->hd->key_size) {
			const char *at = ht->cmd ? strstr(ht->cmd, "name=") : NULL;

			err->msg = trev__hist_err_text(TREV_HIST_ERR_NAMED_MISMATCH);
			err->pos = at ? (int)(at - ht->cmd) : 0;
			ret = -EINVAL;
		} else {
			/* Join: the map made by parse was never seen by an event. */
			struct hist_shared *own = ht->sh;

			sh->ref++;
			ht->sh = sh;
			pthread_mutex_unlock(&hist_lock);
			hist_shared_put(own);
			return 0;
		}
	} else {
		sh = ht->sh;
		sh->name = strdup(ht->hd->name);
		if (!sh->name) {
			ret = -ENOMEM;
		} else {
			sh->next = hist_named;
			hist_named = sh;
		}
	}
	pthread_mutex_unlock(&hist_lock);
	return ret;
}

void trev__hist_pause(struct trev_hist_trigger *ht, bool pause)
{
	atomic_store_explicit(&ht->paused, pause, memory_order_relaxed);
}

int trev__hist_clear(struct trev_hist_trigger *ht)
{
	struct hist_shared *sh = ht->sh;
	struct trev_tmap *fresh = hist_map_create(sh->proto), *old;

	if (!fresh)
		return -ENOMEM;
	/* Release: the fresh map's zeroed table is seen whole by the event path. */
	old = atomic_exchange_explicit(&sh->map, fresh, memory_order_acq_rel);
	/* Every probe that may still insert into the old map has left its section. */
	trev__rcu_synchronize();
	trev_tsan_acquire(old);
	trev__tmap_destroy(old);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The event path                                                       */

static inline __attribute__((always_inline)) uint64_t
hist_read_num(const unsigned char *rec, const struct hist_field *f)
{
	const unsigned char *p = rec + f->offset;

	switch (f->size) {
	case 1: {
		uint8_t v = *p;

		return f->is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return f->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return f->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
}

/* ilog2(roundup_pow_of_two(v)), with 0 and 1 both giving 0. */
static uint64_t hist_log2(uint64_t v)
{
	return v <= 1 ? 0 : 64 - (uint64_t)__builtin_clzll(v - 1);
}

/* .log2 or .buckets=N applied to @v. */
static uint64_t hist_modify(const struct hist_field *f, uint64_t v)
{
	if (f->flags & HF_LOG2)
		return hist_log2(v);
	return v / f->buckets * f->buckets;
}

/* A number of the record, modified; 0 when the record is too short for it. */
static inline __attribute__((always_inline)) uint64_t
hist_rec_num(const unsigned char *rec, unsigned int len, const struct hist_field *f)
{
	uint64_t v = 0;

	if ((unsigned int)(f->offset + f->size) <= len)
		v = hist_read_num(rec, f);
	if (trev_unlikely(f->flags & (HF_LOG2 | HF_BUCKET)))
		v = hist_modify(f, v);
	return v;
}

struct hist_ev {
	const unsigned char *rec;
	unsigned int len;
	struct trev_hist_trigger *ht;
	uint64_t ts;			/* common_timestamp, read on first use */
	bool have_ts;
	uint64_t *refs;			/* the values of hist_data.refs, once resolved */
};

/*
 * common_timestamp: the trace clock now. As in the kernel, a hist that
 * names common_timestamp.usecs anywhere has every common_timestamp in
 * microseconds, rounded as ns2usecs() does, unless the clock is the counter.
 */
static uint64_t hist_timestamp(struct hist_ev *ev)
{
	if (!ev->have_ts) {
		struct trev_rb *rb = __atomic_load_n(&ev->ht->tr->rb, __ATOMIC_ACQUIRE);
		int clock = (int)atomic_load_explicit(&rb->hdr->clock, memory_order_relaxed);

		ev->ts = rb_clock_read(clock, &rb->hdr->counter);
		if (ev->ht->hd->ts_in_usecs && clock != TREV_CLOCK_COUNTER)
			ev->ts = (ev->ts + 500) / 1000;
		ev->have_ts = true;
	}
	return ev->ts;
}

static uint64_t hist_field_value(struct hist_ev *ev, const struct hist_field *f)
{
	uint64_t v;

	if (f->flags & HF_HITCOUNT)
		return 1;
	if (!(f->flags & HF_TIMESTAMP))
		return hist_rec_num(ev->rec, ev->len, f);
	v = hist_timestamp(ev);
	if (f->flags & (HF_LOG2 | HF_BUCKET))
		v = hist_modify(f, v);
	return v;
}

/* Copy a string field into its key slot, NUL-terminated, zero-padded. */
static void hist_key_string(struct hist_ev *ev, const struct hist_field *f, char *dst)
{
	const char *src;
	unsigned int max;

	if (f->flags & HF_DYN_STRING) {
		uint32_t loc, off;

		if ((unsigned int)f->offset + 4 > ev->len)
			return;
		memcpy(&loc, ev->rec + f->offset, 4);
		off = loc & 0xffff;
		if (f->flags & HF_REL_STRING)	/* from the end of its word */
			off += (uint32_t)f->offset + 4;
		if (off + (loc >> 16) > ev->len)
			return;
		src = (const char *)ev->rec + off;
		max = loc >> 16;
	} else {
		if ((unsigned int)(f->offset + f->size) > ev->len)
			return;
		src = (const char *)ev->rec + f->offset;
		/* Size 0: the char[] runs to the record's end (its text, to its NUL). */
		max = f->size ? (unsigned int)f->size : ev->len - (unsigned int)f->offset;
	}
	if (max > f->key_size - 1)
		max = f->key_size - 1;
	memcpy(dst, src, strnlen(src, max));
}

/*
 * The caller's stack, from the function that called trace_<event>(): the
 * library's frames, the probe's and the iterator's are skipped (the rule
 * of trev__stack_first()).
 */
static void hist_key_stack(struct hist_ev *ev, unsigned long *dst)
{
	void *frames[TREV_HIST_STACK_DEPTH + 16];
	int n = backtrace(frames, (int)(sizeof(frames) / sizeof(frames[0])));
	int first = trev__stack_first(&ev->ht->hd->skip, frames, n);

	for (int i = first, j = 0; i < n && j < TREV_HIST_STACK_DEPTH; i++, j++)
		dst[j] = (unsigned long)frames[i];
}

/* The compound key of the record into @key, zeroed before. */
static void hist_build_key(struct hist_ev *ev, uint64_t *key)
{
	const struct hist_data *hd = ev->ht->hd;

	for (unsigned int i = hd->n_vals; i < hd->n_vals + hd->n_keys; i++) {
		const struct hist_field *f = &hd->fields[i];
		unsigned char *slot = (unsigned char *)key + f->key_offset;

		if (f->flags & HF_STACKTRACE) {
			hist_key_stack(ev, (unsigned long *)(void *)slot);
		} else if (f->flags & HF_STRING) {
			hist_key_string(ev, f, (char *)slot);
		} else {
			uint64_t v = hist_field_value(ev, f);

			memcpy(slot, &v, 8);
		}
	}
}

/* Any hist: a compound key built in full, then its element's sums. */
static __attribute__((noinline)) void hist_event_any(struct trev_hist_trigger *ht,
						     const void *rec, unsigned int len)
{
	const struct hist_data *hd = ht->hd;
	uint64_t key[HIST_KEY_SIZE_MAX / 8];
	struct hist_ev ev = { rec, len, ht, 0, false, NULL };
	struct trev_tmap_elt *elt;
	struct trev_tmap *map;

	memset(key, 0, hd->key_size);
	hist_build_key(&ev, key);
	/* Acquire: pairs with the exchange in trev__hist_clear(). */
	map = atomic_load_explicit(&ht->sh->map, memory_order_acquire);
	elt = trev__tmap_insert(map, key);
	if (!elt)
		return;
	for (unsigned int i = 0; i < hd->n_vals; i++)
		trev__tmap_add(elt, i, hist_field_value(&ev, &hd->fields[i]));
	/* For TSan: the grace period in trev__hist_clear() orders this before the free. */
	trev_tsan_release(map);
}

/* ------------------------------------------------------------------ */
/* The event path of variables, references and actions                  */

/* Word @i of an element, past its sums (variables, tracked values, saved fields). */
static inline _Atomic uint64_t *hist_word(struct trev_tmap_elt *elt, unsigned int i)
{
	return &elt->sums[i];
}

static uint64_t hx_eval(struct hist_ev *ev, const struct hist_expr *e)
{
	switch (e->kind) {
	case HX_FIELD:
	case HX_TIMESTAMP:
		return hist_field_value(ev, &e->f);
	case HX_CONST:
		return e->constant;
	case HX_REF:
		return ev->refs[e->ref];
	case HX_NEG:
		return hx_apply(HX_NEG, hx_eval(ev, e->a), 0);
	default:
		return hx_apply(e->kind, hx_eval(ev, e->a), hx_eval(ev, e->b));
	}
}

/*
 * Read the variables this hist takes from other hists (@self false), or
 * from its own entry @own (@self true), into ev->refs, as the kernel's
 * resolve_var_refs(): each from the entry of the same key in the hist
 * that holds it, and only if it was set; a read-once reference clears it,
 * so that one start event is matched by one end event. Return: all found.
 */
static bool hist_resolve(struct hist_ev *ev, const void *key, bool self,
			 struct trev_tmap_elt *own)
{
	const struct hist_data *hd = ev->ht->hd;

	for (unsigned int i = 0; i < hd->n_refs; i++) {
		const struct hist_ref *r = &hd->refs[i];
		struct trev_tmap_elt *elt = own;

		if (!r->sh != self)
			continue;
		if (!self) {
			/* Acquire: pairs with the exchange in trev__hist_clear(). */
			struct trev_tmap *map = atomic_load_explicit(&r->sh->map, memory_order_acquire);

			/*
			 * The entry whose key is the first bytes of ours (the
			 * kernel's lookup with the other map's key size: keys=pid,lat
			 * reads a hist of keys=pid); a longer key is never matched
			 * (the kernel would read past ours).
			 */
			if (trev__tmap_key_size(map) > hd->key_size)
				return false;
			elt = trev__tmap_lookup(map, key);
			if (!elt)
				return false;
		}
		if (r->read_once && !self) {
			/* One reader takes it: the exchange, not a load and a store. */
			if (!atomic_exchange_explicit(hist_word(elt, r->set), 0, memory_order_acquire))
				return false;
		} else if (!atomic_load_explicit(hist_word(elt, r->set), memory_order_acquire)) {
			return false;
		}
		if (r->is_string)	/* the text in that entry, NUL-terminated */
			ev->refs[i] = (uint64_t)(uintptr_t)hist_word(elt, r->slot);
		else
			ev->refs[i] = atomic_load_explicit(hist_word(elt, r->slot),
							   memory_order_relaxed);
	}
	return true;
}

/* A string field of the record, NUL-terminated in @dst (TREV_HIST_STR_MAX bytes). */
static void hist_copy_string(struct hist_ev *ev, const struct hist_field *f, char *dst,
			     unsigned int max)
{
	struct hist_field g = *f;

	g.key_size = max;
	memset(dst, 0, max);
	hist_key_string(ev, &g, dst);
}

/* A string field into @max bytes of words of @elt from @slot, NUL-terminated. */
static void hist_store_string(struct hist_ev *ev, const struct hist_field *f,
			      struct trev_tmap_elt *elt, unsigned int slot, unsigned int max)
{
	char text[HIST_VAR_STR_MAX];

	hist_copy_string(ev, f, text, max);
	for (unsigned int w = 0; w < max / 8; w++) {
		uint64_t v;

		memcpy(&v, text + 8 * w, 8);
		atomic_store_explicit(hist_word(elt, slot + w), v, memory_order_relaxed);
	}
}

/* trace(): fire the synthetic event with the params' values. */
static void hist_action_trace(struct hist_ev *ev, const struct hist_action *a)
{
	uint64_t vals[TREV_SYNTH_FIELDS_MAX];
	char strs[8][TREV_HIST_STR_MAX];
	unsigned int n_str = 0;

	for (unsigned int i = 0; i < a->n_params; i++) {
		const struct hist_param *hp = &a->params[i];

		if (hp->is_ref) {
			vals[i] = ev->refs[hp->ref];
		} else if (hp->f.flags & HF_STRING) {
			/* Past 8 strings, the rest share the last buffer (docs/hist.md). */
			char *dst = strs[n_str < 8 ? n_str++ : 7];

			hist_copy_string(ev, &hp->f, dst, TREV_HIST_STR_MAX);
			vals[i] = (uint64_t)(uintptr_t)dst;
		} else {
			vals[i] = hist_field_value(ev, &hp->f);
		}
	}
	trev__synth_trace(a->se, vals);
}

/* save(): the fields of this record into the entry (racing writers may mix, as in the kernel). */
static void hist_action_save(struct hist_ev *ev, const struct hist_action *a,
			     struct trev_tmap_elt *elt)
{
	for (unsigned int i = 0; i < a->n_saves; i++) {
		const struct hist_save *sv = &a->saves[i];

		if (sv->f.flags & HF_STRING) {
			hist_store_string(ev, &sv->f, elt, sv->slot, HIST_SAVE_STR_MAX);
		} else {
			atomic_store_explicit(hist_word(elt, sv->slot), hist_field_value(ev, &sv->f),
					      memory_order_relaxed);
		}
	}
}

static void hist_run_actions(struct hist_ev *ev, struct trev_tmap_elt *elt)
{
	const struct hist_data *hd = ev->ht->hd;

	for (unsigned int i = 0; i < hd->n_actions; i++) {
		const struct hist_action *a = &hd->actions[i];

		if (a->handler != HH_ONMATCH) {
			_Atomic uint64_t *track = hist_word(elt, a->track_slot);
			uint64_t v = ev->refs[a->track_ref];
			uint64_t old = atomic_load_explicit(track, memory_order_relaxed);

			if (a->handler == HH_ONMAX) {
				/* A new maximum is taken by one thread: the others see it and stop. */
				do {
					if (v <= old)
						break;
				} while (!atomic_compare_exchange_weak_explicit(
						 track, &old, v, memory_order_relaxed,
						 memory_order_relaxed));
				if (v <= old)
					continue;
			} else {
				if (v == old)
					continue;
				atomic_store_explicit(track, v, memory_order_relaxed);
			}
		}
		switch (a->kind) {
		case HA_TRACE:
			hist_action_trace(ev, a);
			break;
		case HA_SAVE:
			hist_action_save(ev, a, elt);
			break;
		case HA_SNAPSHOT:
			trev__snapshot_swap_probe(ev->ht->tr);
			break;
		}
	}
}

/*
 * A hist with variables, references or actions (the kernel's
 * event_hist_trigger()): the key; the other hists' variables for it (none
 * missing, or nothing happens); the entry's sums and variables; then its
 * own references and the actions.
 */
static __attribute__((noinline)) void hist_event_inter(struct trev_hist_trigger *ht,
						       const void *rec, unsigned int len)
{
	const struct hist_data *hd = ht->hd;
	uint64_t key[HIST_KEY_SIZE_MAX / 8];
	uint64_t refs[TREV_HIST_VARS_MAX];
	struct hist_ev ev = { rec, len, ht, 0, false, refs };
	struct trev_tmap_elt *elt;
	struct trev_tmap *map;

	memset(key, 0, hd->key_size);
	hist_build_key(&ev, key);
	if (hd->n_refs && !hist_resolve(&ev, key, false, NULL))
		return;
	/* Acquire: pairs with the exchange in trev__hist_clear(). */
	map = atomic_load_explicit(&ht->sh->map, memory_order_acquire);
	elt = hd->num_key ? trev__tmap_insert_word(map, key[0]) : trev__tmap_insert(map, key);
	if (!elt)
		return;
	trev__tmap_add(elt, 0, 1);	/* hitcount */
	for (unsigned int i = 1; i < hd->n_vals; i++)
		trev__tmap_add(elt, i, hist_field_value(&ev, &hd->fields[i]));
	for (unsigned int i = 0; i < hd->n_vars; i++) {
		const struct hist_var *v = &hd->vars[i];

		if (v->is_string)
			hist_store_string(&ev, &v->expr->f, elt, v->slot, HIST_VAR_STR_MAX);
		else
			atomic_store_explicit(hist_word(elt, v->slot), hx_eval(&ev, v->expr),
					      memory_order_relaxed);
		/* Release: a reader that sees it set reads this value. */
		atomic_store_explicit(hist_word(elt, v->set), 1, memory_order_release);
	}
	if (hd->n_actions && hist_resolve(&ev, key, true, elt))
		hist_run_actions(&ev, elt);
	/* For TSan: the grace period in trev__hist_clear() orders this before the free. */
	trev_tsan_release(map);
}

/* One numeric key (hist_num_key()): the key is a word, the values come from the record. */
static void hist_event_num(struct trev_hist_trigger *ht, const void *rec, unsigned int len)
{
	const struct hist_data *hd = ht->hd;
	/* Acquire: pairs with the exchange in trev__hist_clear(). */
	struct trev_tmap *map = atomic_load_explicit(&ht->sh->map, memory_order_acquire);
	struct trev_tmap_elt *elt = trev__tmap_insert_word(map, hist_rec_num(rec, len, hd->num_key));

	if (!elt)
		return;
	trev__tmap_add(elt, 0, 1);	/* hitcount */
	for (unsigned int i = 1; i < hd->n_vals; i++)
		trev__tmap_add(elt, i, hist_rec_num(rec, len, &hd->fields[i]));
	/* For TSan: the grace period in trev__hist_clear() orders this before the free. */
	trev_tsan_release(map);
}

/* trev__hist_event() of a hist with values, a filter or keys that are not one number. */
static __attribute__((noinline)) void hist_event_slow(struct trev_hist_trigger *ht,
						      const void *rec, unsigned int len)
{
	const struct hist_data *hd = ht->hd;

	if (atomic_load_explicit(&ht->paused, memory_order_relaxed))
		return;
	if (hd->filter && !trev__filter_match(hd->filter, rec, len, trev__rb_this_cpu()))
		return;
	if (hd->inter)
		hist_event_inter(ht, rec, len);
	else if (hd->num_key)
		hist_event_num(ht, rec, len);
	else
		hist_event_any(ht, rec, len);
}

/*
 * The common shape, one numeric key counted by hitcount alone (keys=common_pid,
 * ->hits_only), keeps to a short path: its key is one word, found in the map
 * as one, and the one sum is the hitcount. It counts what hist_event_any()
 * would; every other shape goes on out of line.
 */
void trev__hist_event(struct trev_hist_trigger *ht, const void *rec, unsigned int len)
{
	const struct hist_data *hd = ht->hd;
	struct trev_tmap_elt *elt;
	struct trev_tmap *map;

	if (trev_unlikely(!hd->hits_only)) {
		hist_event_slow(ht, rec, len);
		return;
	}
	if (atomic_load_explicit(&ht->paused, memory_order_relaxed))
		return;
	/* Acquire: pairs with the exchange in trev__hist_clear(). */
	map = atomic_load_explicit(&ht->sh->map, memory_order_acquire);
	elt = trev__tmap_insert_word(map, hist_rec_num(rec, len, hd->num_key));
	if (trev_likely(elt))
		trev__tmap_add(elt, 0, 1);	/* hitcount */
	/* For TSan: the grace period in trev__hist_clear() orders this before the free. */
	trev_tsan_release(map);
}

/* ------------------------------------------------------------------ */
/* Text: the trigger line and the hist file                             */

/* The kernel's get_hist_field_flags(): the one modifier a field prints with. */
static const char *hist_field_flag(const struct hist_field *f)
{
	if (f->flags & HF_HEX)
		return "hex";
	if (f->flags & HF_SYM)
		return "sym";
	if (f->flags & HF_SYM_OFFSET)
		return "sym-offset";
	if (f->flags & HF_EXECNAME)
		return "execname";
	if (f->flags & HF_SYSCALL)
		return "syscall";
	if (f->flags & HF_LOG2)
		return "log2";
	if (f->flags & HF_BUCKET)
		return "buckets";
	if (f->flags & HF_USECS)
		return "usecs";
	if (f->flags & HF_PERCENT)
		return "percent";
	if (f->flags & HF_GRAPH)
		return "graph";
	return NULL;
}

static int hist_field_print(struct trev_buf *out, const struct hist_field *f)
{
	const char *flag = hist_field_flag(f);
	int ret = trev__buf_puts(out, f->name);

	if (!ret && flag)
		ret = trev__buf_printf(out, ".%s", flag);
	if (!ret && (f->flags & HF_BUCKET))
		ret = trev__buf_printf(out, "=%lu", f->buckets);
	return ret;
}

int trev__hist_print(struct trev_hist_trigger *ht, struct trev_buf *out)
{
	const struct hist_data *hd = ht->hd;
	struct trev_tmap *map = atomic_load_explicit(&ht->sh->map, memory_order_acquire);
	const char *filter_text = ht->trig ? ht->trig->filter_text : hd->filter_text;
	const _Atomic bool *paused = ht->trig ? &ht->trig->paused : &ht->paused;
	int ret = trev__buf_puts(out, "hist:");

	if (!ret && hd->name)
		ret = trev__buf_printf(out, "name=%s:", hd->name);
	if (!ret)
		ret = trev__buf_puts(out, "keys=");
	for (unsigned int i = hd->n_vals; !ret && i < hd->n_vals + hd->n_keys; i++) {
		if (i > hd->n_vals)
			ret = trev__buf_puts(out, ",");
		if (!ret)
			ret = hist_field_print(out, &hd->fields[i]);
	}
	if (!ret)
		ret = trev__buf_puts(out, ":vals=");
	if (!ret)
		ret = hist_field_print(out, &hd->fields[0]);	/* hitcount[.percent|.graph] */
	for (unsigned int i = 1; !ret && i < hd->n_vals; i++) {
		ret = trev__buf_puts(out, ",");
		if (!ret)
			ret = hist_field_print(out, &hd->fields[i]);
	}
	/* The variables, after one ':' and separated by ',', as the kernel prints them. */
	for (unsigned int i = 0; !ret && i < hd->n_vars; i++)
		ret = trev__buf_printf(out, "%c%s=%s", i ? ',' : ':', hd->vars[i].name,
				       hd->vars[i].text);
	if (!ret)
		ret = trev__buf_puts(out, ":sort=");
	for (unsigned int i = 0; !ret && i < hd->n_sort; i++) {
		if (i)
			ret = trev__buf_puts(out, ",");
		/* hitcount without its .percent or .graph, as the kernel prints it. */
		if (!ret && !hd->sort[i].idx)
			ret = trev__buf_puts(out, "hitcount");
		else if (!ret)
			ret = hist_field_print(out, &hd->fields[hd->sort[i].idx]);
		if (!ret && hd->sort[i].descending)
			ret = trev__buf_puts(out, ".descending");
	}
	if (!ret)
		ret = trev__buf_printf(out, ":size=%u", 1u << trev__tmap_bits(map));
	for (unsigned int i = 0; !ret && i < hd->n_actions; i++)
		ret = trev__buf_puts(out, hd->actions[i].spec);
	if (!ret && filter_text)
		ret = trev__buf_printf(out, " if %s", filter_text);
	if (!ret)
		ret = trev__buf_puts(out, atomic_load_explicit(paused, memory_order_relaxed) ?
						   " [paused]\n" : " [active]\n");
	return ret;
}

/* One entry of a snapshot: its key and sums as read once. */
struct hist_row {
	const unsigned char *key;
	const struct trev_tmap_elt *elt;
	uint64_t sums[TREV_HIST_VALS_MAX];
};

struct hist_snap {
	const struct hist_data *hd;
	struct trev_tmap *map;
	struct hist_row *rows;
	size_t n, cap;
	uint64_t hits;
};

static int hist_snap_one(struct trev_tmap_elt *elt, void *arg)
{
	struct hist_snap *s = arg;
	struct hist_row *r;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct hist_row *n = realloc(s->rows, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->rows = n;
		s->cap = cap;
	}
	r = &s->rows[s->n++];
	r->key = trev__tmap_elt_key(s->map, elt);
	r->elt = elt;
	for (unsigned int i = 0; i < s->hd->n_vals; i++)
		r->sums[i] = trev__tmap_read_sum(elt, i);
	s->hits += r->sums[0];
	return 0;
}

static int hist_cmp_field(const struct hist_data *hd, unsigned int idx,
			  const struct hist_row *a, const struct hist_row *b)
{
	const struct hist_field *f = &hd->fields[idx];
	uint64_t x, y;

	if (idx < hd->n_vals) {
		x = a->sums[idx];
		y = b->sums[idx];
	} else if (f->flags & HF_STACKTRACE) {
		return 0;
	} else if (f->flags & HF_STRING) {
		return strncmp((const char *)a->key + f->key_offset,
			       (const char *)b->key + f->key_offset, f->key_size);
	} else {
		memcpy(&x, a->key + f->key_offset, 8);
		memcpy(&y, b->key + f->key_offset, 8);
		if (f->is_signed && !(f->flags & (HF_LOG2 | HF_BUCKET | HF_HEX)))
			return (int64_t)x < (int64_t)y ? -1 : (int64_t)x > (int64_t)y;
	}
	return x < y ? -1 : x > y;
}

/* The sort keys in order; equal entries in key-byte order, so output is stable. */
static int hist_cmp(const void *pa, const void *pb, void *arg)
{
	const struct hist_snap *s = arg;
	const struct hist_row *a = pa, *b = pb;

	for (unsigned int i = 0; i < s->hd->n_sort; i++) {
		int c = hist_cmp_field(s->hd, s->hd->sort[i].idx, a, b);

		if (c)
			return s->hd->sort[i].descending ? -c : c;
	}
	return memcmp(a->key, b->key, s->hd->key_size);
}

static int hist_print_stack(struct trev_buf *out, const unsigned char *slot)
{
	char sym[256];
	int ret = trev__buf_puts(out, "stacktrace:\n");

	for (unsigned int i = 0; !ret && i < TREV_HIST_STACK_DEPTH; i++) {
		unsigned long a;

		memcpy(&a, slot + i * sizeof(a), sizeof(a));
		if (!a)
			break;
		trev__sym_snprint(sym, sizeof(sym), a, TREV_SYM_OFFSET);
		ret = trev__buf_printf(out, "%*c%s\n", 9, ' ', sym);
	}
	return ret;
}

/* "{ key: value, ... }" as the kernel's hist_trigger_print_key(). */
static int hist_print_key(struct trev_buf *out, const struct hist_data *hd,
			  const struct hist_row *r)
{
	bool multiline = false;
	int ret = trev__buf_puts(out, "{ ");

	for (unsigned int i = hd->n_vals; !ret && i < hd->n_vals + hd->n_keys; i++) {
		const struct hist_field *f = &hd->fields[i];
		const unsigned char *slot = r->key + f->key_offset;
		char sym[256];
		uint64_t v;

		if (i > hd->n_vals)
			ret = trev__buf_puts(out, ", ");
		if (ret)
			break;
		memcpy(&v, slot, 8);
		if (f->flags & HF_HEX) {
			ret = trev__buf_printf(out, "%s: %" PRIx64, f->name, v);
		} else if (f->flags & (HF_SYM | HF_SYM_OFFSET)) {
			bool off = f->flags & HF_SYM_OFFSET;

			trev__sym_snprint(sym, sizeof(sym), (unsigned long)v,
					  off ? TREV_SYM_OFFSET : TREV_SYM_NAME);
			ret = trev__buf_printf(out, "%s: [%" PRIx64 "] %-*s", f->name, v,
					       off ? 55 : 45, sym);
		} else if (f->flags & HF_EXECNAME) {
			ret = trev__buf_printf(out, "%s: %-16s[%10" PRIu64 "]", f->name,
					       r->elt->comm, v);
		} else if (f->flags & HF_SYSCALL) {
			const char *name = trev__syscall_name(v);

			if (name)
				snprintf(sym, sizeof(sym), "sys_%s", name);
			ret = trev__buf_printf(out, "%s: %-30s[%3" PRIu64 "]", f->name,
					       name ? sym : "unknown_syscall", v);
		} else if (f->flags & HF_STACKTRACE) {
			ret = hist_print_stack(out, slot);
			multiline = true;
		} else if (f->flags & HF_LOG2) {
			ret = trev__buf_printf(out, "%s: ~ 2^%-2" PRIu64, f->name, v);
		} else if (f->flags & HF_BUCKET) {
			ret = trev__buf_printf(out, "%s: ~ %" PRIu64 "-%" PRIu64, f->name, v,
					       v + f->buckets - 1);
		} else if (f->flags & HF_STRING) {
			ret = trev__buf_printf(out, "%s: %-50.*s", f->name, (int)f->key_size,
					       (const char *)slot);
		} else {
			ret = trev__buf_printf(out, "%s: %10" PRIu64, f->name, v);
		}
	}
	if (!ret && !multiline)
		ret = trev__buf_puts(out, " ");
	if (!ret)
		ret = trev__buf_puts(out, "}");
	return ret;
}

/*
 * What onmax()/onchange() keep, after the values (the kernel's
 * track_data_print()): "\n\tmax: N" or "\n\tchanged: N", then every field
 * save() keeps, a number in 10 columns, a string in 32.
 */
static int hist_print_tracked(struct trev_buf *out, const struct hist_data *hd,
			      const struct hist_row *r)
{
	struct trev_tmap_elt *elt = (struct trev_tmap_elt *)r->elt;
	const struct hist_action *save = NULL;
	int ret = 0;

	for (unsigned int i = 0; i < hd->n_actions; i++)
		if (hd->actions[i].kind == HA_SAVE)
			save = &hd->actions[i];
	for (unsigned int i = 0; !ret && i < hd->n_actions; i++) {
		const struct hist_action *a = &hd->actions[i];

		if (a->handler == HH_ONMATCH || a->kind == HA_SNAPSHOT)
			continue;
		ret = trev__buf_printf(out, "\n\t%s: %10" PRIu64,
				       a->handler == HH_ONMAX ? "max" : "changed",
				       trev__tmap_read_sum(elt, a->track_slot));
		for (unsigned int j = 0; save && !ret && j < save->n_saves; j++) {
			const struct hist_save *sv = &save->saves[j];

			if (sv->f.flags & HF_STRING) {
				char text[HIST_SAVE_STR_MAX];

				for (unsigned int w = 0; w < sv->n_slots; w++) {
					uint64_t v = trev__tmap_read_sum(elt, sv->slot + w);

					memcpy(text + 8 * w, &v, 8);
				}
				text[sizeof(text) - 1] = '\0';
				ret = trev__buf_printf(out, "  %s: %-32s", sv->f.name, text);
			} else {
				ret = trev__buf_printf(out, "  %s: %10" PRIu64, sv->f.name,
						       trev__tmap_read_sum(elt, sv->slot));
			}
		}
	}
	return ret;
}

/* One line: key, hitcount, then each value (hist_trigger_entry_print()). */
/* A value column's total and largest, for .percent and .graph (hist_val_stat). */
struct hist_val_stat {
	uint64_t total, max;
};

/* @v's share of @total in hundredths of a percent; UINT_MAX: none (a total of 0). */
static unsigned int hist_hundredths(uint64_t v, uint64_t total)
{
	if (!total)
		return v ? UINT_MAX : 0;
	if (v < UINT64_MAX / 10000)
		return (unsigned int)(v * 10000 / total);
	total /= 10000;
	return total ? (unsigned int)(v / total) : UINT_MAX;
}

/* One value, " name: N" (the kernel's hist_trigger_print_val()). */
static int hist_print_val(struct trev_buf *out, const struct hist_field *f, uint64_t v,
			  const struct hist_val_stat *st)
{
	unsigned int pc;
	char bar[21];

	if (f->flags & HF_PERCENT) {
		pc = hist_hundredths(v, st->total);
		if (pc == UINT_MAX)
			return trev__buf_printf(out, " %s (%%):[ERROR]", f->name);
		return trev__buf_printf(out, " %s (%%): %3u.%02u", f->name, pc / 100, pc % 100);
	}
	if (f->flags & HF_GRAPH) {
		/* 20 columns of '#' for the column's largest value. */
		pc = hist_hundredths(v, st->max);
		if (pc == UINT_MAX) {
			snprintf(bar, sizeof(bar), "[ERROR]");
		} else {
			unsigned int len = pc * 20 / 10000, i;

			for (i = 0; i < 20; i++)
				bar[i] = i < len ? '#' : ' ';
			bar[20] = '\0';
		}
		return trev__buf_printf(out, " %s: %20s", f->name, bar);
	}
	if (f->flags & HF_HEX)
		return trev__buf_printf(out, " %s: %10" PRIx64, f->name, v);
	return trev__buf_printf(out, " %s: %10" PRIu64, f->name, v);
}

/* One line: key, hitcount, then each value (hist_trigger_entry_print()). */
static int hist_print_entry(struct trev_buf *out, const struct hist_data *hd,
			    const struct hist_row *r, const struct hist_val_stat *st)
{
	int ret = hist_print_key(out, hd, r);

	if (!ret)
		ret = hist_print_val(out, &hd->fields[0], r->sums[0], &st[0]);
	for (unsigned int i = 1; !ret && i < hd->n_vals; i++) {
		ret = trev__buf_puts(out, " ");
		if (!ret)
			ret = hist_print_val(out, &hd->fields[i], r->sums[i], &st[i]);
	}
	if (!ret)
		ret = hist_print_tracked(out, hd, r);
	if (!ret)
		ret = trev__buf_puts(out, "\n");
	return ret;
}

int trev__hist_show(struct trev_hist_trigger *ht, int n, struct trev_buf *out)
{
	struct hist_snap s = { ht->hd, NULL, NULL, 0, 0, 0 };
	struct hist_val_stat stats[TREV_HIST_VALS_MAX];
	uint64_t drops;
	int ret = 0;

	s.map = atomic_load_explicit(&ht->sh->map, memory_order_acquire);
	if (n > 0)
		ret = trev__buf_puts(out, "\n\n");
	if (!ret)
		ret = trev__buf_puts(out, "# event histogram\n#\n# trigger info: ");
	if (!ret)
		ret = trev__hist_print(ht, out);
	if (!ret)
		ret = trev__buf_puts(out, "#\n\n");
	if (!ret)
		ret = trev__tmap_for_each(s.map, hist_snap_one, &s);
	if (!ret && s.n)
		qsort_r(s.rows, s.n, sizeof(*s.rows), hist_cmp, &s);
	/* Each value column's total and largest, for .percent and .graph. */
	for (unsigned int j = 0; j < s.hd->n_vals; j++) {
		stats[j] = (struct hist_val_stat){ 0, 0 };
		for (size_t i = 0; i < s.n; i++) {
			stats[j].total += s.rows[i].sums[j];
			if (s.rows[i].sums[j] > stats[j].max)
				stats[j].max = s.rows[i].sums[j];
		}
	}
	for (size_t i = 0; !ret && i < s.n; i++)
		ret = hist_print_entry(out, s.hd, &s.rows[i], stats);
	drops = trev__tmap_drops(s.map);
	/* Hits counts every event the map saw, dropped ones too (map->hits). */
	if (!ret)
		ret = trev__buf_printf(out, "\nTotals:\n    Hits: %" PRIu64 "\n    Entries: %zu\n"
				       "    Dropped: %" PRIu64 "\n", s.hits + drops, s.n, drops);
	free(s.rows);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The hist command of the trigger framework                            */

/* error_log's location of a hist error, "hist:<sys>:<ev>" (tracefs lock). */
static char hist_err_loc[2 * TREV_NAME_MAX + 8];

static const char *hist_loc(const struct trev_event_file *file)
{
	snprintf(hist_err_loc, sizeof(hist_err_loc), "hist:%s:%s", file->call->klass->system,
		 file->call->name);
	return hist_err_loc;
}

static bool hist_filter_same(const struct trev_event_trigger *a, const struct trev_event_trigger *b)
{
	if (!a->filter_text || !b->filter_text)
		return !a->filter_text && !b->filter_text;
	return strcmp(a->filter_text, b->filter_text) == 0;
}

/* The kernel's hist_trigger_match(): fields, sort keys, name and filter. */
static bool hist_cmd_match(const struct trev_event_trigger *a, const struct trev_event_trigger *b)
{
	const struct trev_hist_trigger *x = a->priv, *y = b->priv;

	if (a->cmd != b->cmd || !x || !y)
		return false;
	if (!!x->hd->name != !!y->hd->name || (x->hd->name && strcmp(x->hd->name, y->hd->name)))
		return false;
	return hist_filter_same(a, b) && hist_data_match(x->hd, y->hd);
}

static int hist_cmd_parse(struct trev_event_trigger *t, char *param, bool remove,
			  struct trev_trigger_err *err)
{
	struct trev_event_file *file = t->file;
	struct trev_event_trigger *old;
	struct trev_hist_trigger *ht;
	struct trev_hist_error herr;
	unsigned int attrs;
	int ret;

	err->loc = hist_loc(file);
	ret = hist_parse_full(file->call, file->tr, file, param ? param : "", remove, &ht, &herr);
	if (ret == -EINVAL) {
		/* The framework counts from the parameter, after "hist:". */
		err->msg = herr.msg;
		err->pos = herr.pos - HIST_PREFIX_LEN;
		return ret;
	}
	if (ret)
		return ret;
	ht->trig = t;
	t->priv = ht;
	/* The framework's t->paused is the one its :pause and :cont set, and the probe tests. */
	atomic_store_explicit(&ht->paused, false, memory_order_relaxed);
	if (remove)
		return 0;
	attrs = ht->hd->attrs;
	old = trev__trigger_find(file, t);
	if (attrs & (TREV_HIST_ATTR_PAUSE | TREV_HIST_ATTR_CONT | TREV_HIST_ATTR_CLEAR)) {
		/* existing_hist_update_only(): act on the trigger already there. */
		if (old) {
			if (attrs & TREV_HIST_ATTR_PAUSE)
				atomic_store(&old->paused, true);
			else if (attrs & TREV_HIST_ATTR_CONT)
				atomic_store(&old->paused, false);
			else if ((ret = trev__hist_clear(old->priv)) < 0)
				return ret;
			return 1;
		}
		if (attrs & (TREV_HIST_ATTR_CONT | TREV_HIST_ATTR_CLEAR)) {
			trev__tracing_log_err(file->tr, hist_loc(file), ht->cmd, 0, "%s",
					      trev__hist_err_text(TREV_HIST_ERR_TRIGGER_ENOENT_CLEAR));
			return -ENOENT;
		}
		/* :pause with nothing to pause makes a new trigger, paused. */
		atomic_store(&t->paused, true);
	}
	if (old) {
		trev__tracing_log_err(file->tr, hist_loc(file), ht->cmd, 0, "%s",
				      trev__hist_err_text(TREV_HIST_ERR_TRIGGER_EEXIST));
		return -EEXIST;
	}
	return 0;
}

/* Join the map of the name, before the trigger is published. */
static int hist_cmd_reg(struct trev_event_trigger *t)
{
	struct trev_hist_trigger *ht = t->priv;
	struct trev_hist_error herr;
	int ret = trev__hist_attach(ht, &herr);

	if (ret == -EINVAL)
		trev__tracing_log_err(t->file->tr, hist_loc(t->file), ht->cmd, herr.pos, "%s", herr.msg);
	/* snapshot(): the buffer exists before any event fires (tracing_alloc_snapshot). */
	if (!ret && ht->hd->has_snapshot)
		ret = trev__snapshot_arm(t->file->tr);
	if (ret)
		return ret;
	/* Now the hists it reads cannot go (hist_cmd_busy()). */
	pthread_mutex_lock(&hist_lock);
	for (unsigned int i = 0; i < ht->hd->n_refs; i++)
		if (ht->hd->refs[i].sh)
			ht->hd->refs[i].sh->var_users++;
	pthread_mutex_unlock(&hist_lock);
	ht->registered = true;
	return 0;
}

/* Remove the hists made for fields of other events ("!hist:..."); they may be gone already. */
static void hist_fv_remove(struct trev_event_trigger *t, struct trev_hist_trigger *ht)
{
	struct hist_data *hd = ht->hd;

	for (unsigned int i = 0; i < hd->n_fv; i++) {
		char *line = NULL;

		if (asprintf(&line, "!%s", hd->fv_cmd[i]) >= 0) {
			trev__trigger_write(t->file->tr, hd->fv_file[i], line);
			free(line);
		}
		free(hd->fv_cmd[i]);
	}
	hd->n_fv = 0;
}

/* A hist whose variables another hist reads stays until that one goes (-EBUSY). */
static bool hist_cmd_busy(const struct trev_event_trigger *t)
{
	const struct trev_hist_trigger *ht = t->priv;
	bool busy;

	if (!ht || !ht->hd->n_vars)
		return false;
	pthread_mutex_lock(&hist_lock);
	busy = ht->sh->var_users > 0;
	pthread_mutex_unlock(&hist_lock);
	return busy;
}

static void hist_cmd_unreg(struct trev_event_trigger *t)
{
	struct trev_hist_trigger *ht = t->priv;

	if (!ht)
		return;
	if (ht->hd->has_snapshot)
		trev__snapshot_disarm(t->file->tr);
	if (ht->registered) {
		pthread_mutex_lock(&hist_lock);
		for (unsigned int i = 0; i < ht->hd->n_refs; i++)
			if (ht->hd->refs[i].sh)
				ht->hd->refs[i].sh->var_users--;
		pthread_mutex_unlock(&hist_lock);
		ht->registered = false;
	}
	hist_fv_remove(t, ht);
}

static void hist_cmd_fire(struct trev_event_trigger *t, void *rec, unsigned int len)
{
	if (rec)
		trev__hist_event(t->priv, rec, len);
}

static int hist_cmd_print(const struct trev_event_trigger *t, struct trev_buf *out)
{
	return trev__hist_print(t->priv, out);
}

static void hist_cmd_free(struct trev_event_trigger *t)
{
	struct trev_hist_trigger *ht = t->priv;

	/* Never registered (refused, a duplicate, :pause of one there): what it made goes. */
	if (ht && !ht->registered)
		hist_fv_remove(t, ht);
	trev__hist_free(ht);
	t->priv = NULL;
}

const struct trev_trigger_cmd trev__hist_cmd = {
	.name = "hist",
	.type = TREV_TT_HIST,
	.flags = TREV_TRIGGER_CMD_NEEDS_REC,
	.parse = hist_cmd_parse,
	.match = hist_cmd_match,
	.reg = hist_cmd_reg,
	.unreg = hist_cmd_unreg,
	.busy = hist_cmd_busy,
	.fire = hist_cmd_fire,
	.print = hist_cmd_print,
	.free = hist_cmd_free,
};

int trev__hist_file_show(struct trev_event_file *file, struct trev_buf *out)
{
	struct trev_hist_trigger **list;
	int n = 0, ret = 0;

	for (struct trev_event_trigger *t = file ? file->triggers : NULL; t; t = t->next)
		n += t->cmd == &trev__hist_cmd && t->priv;
	if (!n)
		return 0;
	list = calloc((size_t)n, sizeof(*list));
	if (!list)
		return -ENOMEM;
	n = 0;
	/* The file lists triggers newest first; the kernel prints hists oldest first. */
	for (struct trev_event_trigger *t = file->triggers; t; t = t->next)
		if (t->cmd == &trev__hist_cmd && t->priv)
			list[n++] = t->priv;
	for (int i = n - 1, k = 0; !ret && i >= 0; i--, k++)
		ret = trev__hist_show(list[i], k, out);
	free(list);
	return ret;
}

/* ------------------------------------------------------------------ */
/* hist_debug                                                           */

/* The kernel's names of a field's flags (hist_field_debug_show_flags()). */
static const struct {
	unsigned int flag;
	const char *name;
} hist_flag_names[] = {
	{ HF_HITCOUNT, "HIST_FIELD_FL_HITCOUNT" }, { HF_KEY, "HIST_FIELD_FL_KEY" },
	{ HF_STRING, "HIST_FIELD_FL_STRING" }, { HF_HEX, "HIST_FIELD_FL_HEX" },
	{ HF_SYM, "HIST_FIELD_FL_SYM" }, { HF_SYM_OFFSET, "HIST_FIELD_FL_SYM_OFFSET" },
	{ HF_EXECNAME, "HIST_FIELD_FL_EXECNAME" }, { HF_SYSCALL, "HIST_FIELD_FL_SYSCALL" },
	{ HF_STACKTRACE, "HIST_FIELD_FL_STACKTRACE" }, { HF_LOG2, "HIST_FIELD_FL_LOG2" },
	{ HF_TIMESTAMP, "HIST_FIELD_FL_TIMESTAMP" },
	{ HF_USECS, "HIST_FIELD_FL_TIMESTAMP_USECS" }, { HF_BUCKET, "HIST_FIELD_FL_BUCKET" },
	{ HF_PERCENT, "HIST_FIELD_FL_PERCENT" }, { HF_GRAPH, "HIST_FIELD_FL_GRAPH" },
};

/* One field, as the kernel's hist_field_debug_show() lays it out. */
static int hist_debug_field(struct trev_buf *out, unsigned int idx, const struct hist_field *f,
			    bool key)
{
	int ret = trev__buf_printf(out, "\n# hist_data->fields[%u]:\n    flags:\n", idx);

	if (!ret && !key)
		ret = trev__buf_puts(out, f->flags & HF_HITCOUNT ? "      VAL: HIST_FIELD_FL_HITCOUNT\n" :
				     "      VAL: normal u64 value\n");
	for (size_t i = 0; !ret && i < sizeof(hist_flag_names) / sizeof(hist_flag_names[0]); i++)
		if ((f->flags & hist_flag_names[i].flag) &&
		    !(!key && hist_flag_names[i].flag == HF_HITCOUNT))
			ret = trev__buf_printf(out, "      %s\n", hist_flag_names[i].name);
	if (!ret && !(f->flags & (HF_HITCOUNT | HF_TIMESTAMP | HF_STACKTRACE)))
		ret = trev__buf_printf(out, "    ftrace_event_field name: %s\n", f->name);
	if (!ret)
		ret = trev__buf_printf(out, "    type: %s\n    size: %u\n    is_signed: %d\n",
				       f->type ? f->type : "u64",
				       key ? f->key_size : (unsigned int)(f->size ? f->size : 8),
				       f->is_signed);
	return ret;
}

/* One hist's debug text: its trigger line, then its fields, variables and references. */
static int hist_debug_one(struct trev_hist_trigger *ht, int n, struct trev_buf *out)
{
	const struct hist_data *hd = ht->hd;
	int ret = n ? trev__buf_puts(out, "\n\n") : 0;

	if (!ret)
		ret = trev__buf_puts(out, "# event histogram\n#\n# trigger info: ");
	if (!ret)
		ret = trev__hist_print(ht, out);
	if (!ret)
		ret = trev__buf_printf(out, "#\n\n# hist_data: %p\n\n# n_vals: %u\n# n_keys: %u\n"
				       "# n_fields: %u\n", (const void *)hd, hd->n_vals, hd->n_keys,
				       hd->n_vals + hd->n_keys);
	if (!ret)
		ret = trev__buf_puts(out, "\n# val fields:\n");
	for (unsigned int i = 0; !ret && i < hd->n_vals; i++)
		ret = hist_debug_field(out, i, &hd->fields[i], false);
	if (!ret)
		ret = trev__buf_puts(out, "\n# key fields:\n");
	for (unsigned int i = hd->n_vals; !ret && i < hd->n_vals + hd->n_keys; i++)
		ret = hist_debug_field(out, i, &hd->fields[i], true);
	if (!ret && hd->n_vars)
		ret = trev__buf_puts(out, "\n# variable fields:\n");
	for (unsigned int i = 0; !ret && i < hd->n_vars; i++)
		ret = trev__buf_printf(out, "\n# hist_data->vars[%u]:\n    flags:\n"
				       "      HIST_FIELD_FL_VAR\n    var.name: %s\n"
				       "    var.idx (into tracing_map_elt.vars[]): %u\n    expr: %s\n",
				       i, hd->vars[i].name, hd->vars[i].slot, hd->vars[i].text);
	if (!ret && hd->n_refs)
		ret = trev__buf_puts(out, "\n# variable reference fields:\n");
	for (unsigned int i = 0; !ret && i < hd->n_refs; i++)
		ret = trev__buf_printf(out, "\n# hist_data->var_refs[%u]:\n    flags:\n"
				       "      HIST_FIELD_FL_VAR_REF\n    name: %s\n"
				       "    var.idx (into tracing_map_elt.vars[]): %u\n"
				       "    var.hist_data: %s\n    type: %s\n    size: %d\n"
				       "    is_signed: %d\n", i, hd->refs[i].name, hd->refs[i].slot,
				       hd->refs[i].sh ? "another hist" : "this hist",
				       hd->refs[i].type ? hd->refs[i].type : "u64", hd->refs[i].size,
				       hd->refs[i].is_signed);
	return ret;
}

int trev__hist_debug_file_show(struct trev_event_file *file, struct trev_buf *out)
{
	int n = 0, k = 0, ret = 0;

	for (struct trev_event_trigger *t = file ? file->triggers : NULL; t; t = t->next)
		n += t->cmd == &trev__hist_cmd && t->priv;
	/* Oldest first, as the hist file: the list is newest first. */
	for (int i = n - 1; !ret && i >= 0; i--) {
		struct trev_event_trigger *t = file->triggers;
		int j = 0;

		for (; t; t = t->next)
			if (t->cmd == &trev__hist_cmd && t->priv && j++ == i)
				break;
		ret = hist_debug_one(t->priv, k++, out);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* enable_hist, disable_hist                                            */

/* What enable_hist:<sys>:<ev> acts on: the hist triggers of that event. */
struct hist_enable {
	struct trev_event_file *target;		/* same instance */
	bool enable;
};

/* "<system>:<event>[:N]", as enable_event takes it. */
static int hist_enable_parse(struct trev_event_trigger *t, char *param, bool remove,
			     struct trev_trigger_err *err)
{
	struct hist_enable *he = calloc(1, sizeof(*he));

	if (!he)
		return -ENOMEM;
	t->priv = he;
	he->enable = strcmp(t->cmd->name, "enable_hist") == 0;
	return trev__trigger_parse_target(t, param, remove, err, &he->target);
}

static bool hist_enable_match(const struct trev_event_trigger *a,
			      const struct trev_event_trigger *b)
{
	const struct hist_enable *x = a->priv, *y = b->priv;

	return a->cmd == b->cmd && x && y && x->target == y->target;
}

/* Pause or continue every hist trigger of the target (the kernel's hist_enable_trigger()). */
static void hist_enable_fire(struct trev_event_trigger *t, void *rec, unsigned int len)
{
	const struct hist_enable *he = t->priv;

	(void)rec, (void)len;
	/* The probe's RCU section covers the target's list too (rcu_dereference). */
	for (struct trev_event_trigger *h = __atomic_load_n(&he->target->triggers, __ATOMIC_ACQUIRE);
	     h; h = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE))
		if (h->cmd == &trev__hist_cmd)
			atomic_store_explicit(&h->paused, !he->enable, memory_order_relaxed);
}

static int hist_enable_print(const struct trev_event_trigger *t, struct trev_buf *out)
{
	const struct hist_enable *he = t->priv;
	char name[2 * TREV_NAME_MAX + 16];

	snprintf(name, sizeof(name), "%s:%s:%s", t->cmd->name, he->target->call->klass->system,
		 he->target->call->name);
	return trev__trigger_print_std(t, name, out);
}

static void hist_enable_free(struct trev_event_trigger *t)
{
	free(t->priv);
	t->priv = NULL;
}

static bool hist_enable_uses(const struct trev_event_trigger *t, const struct trev_event_call *call)
{
	const struct hist_enable *he = t->priv;

	return he && he->target->call == call;
}

const struct trev_trigger_cmd trev__enable_hist_cmd = {
	.name = "enable_hist",
	.type = TREV_TT_HIST_ENABLE,
	.parse = hist_enable_parse,
	.match = hist_enable_match,
	.fire = hist_enable_fire,
	.print = hist_enable_print,
	.free = hist_enable_free,
	.uses = hist_enable_uses,
};

const struct trev_trigger_cmd trev__disable_hist_cmd = {
	.name = "disable_hist",
	.type = TREV_TT_HIST_ENABLE,
	.parse = hist_enable_parse,
	.match = hist_enable_match,
	.fire = hist_enable_fire,
	.print = hist_enable_print,
	.free = hist_enable_free,
	.uses = hist_enable_uses,
};
