/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Histogram triggers (the kernel's trace_events_hist.c): the `hist:`
 * command of events/<sys>/<ev>/trigger and the events/<sys>/<ev>/hist file.
 * The parser, the event-path update and the printer are here; the map is
 * tracing_map.h; the trigger framework calls in through its command table.
 */
#ifndef TREV_HIST_H
#define TREV_HIST_H

#include <stdbool.h>

struct trev_event_call;
struct trev_event_file;
struct trev_trace_array;
struct trev_buf;

/* The kernel's limits (TRACING_MAP_*_MAX, HIST_STACKTRACE_DEPTH). */
#define TREV_HIST_KEYS_MAX	3
#define TREV_HIST_VALS_MAX	3	/* hitcount included */
#define TREV_HIST_SORT_MAX	2
#define TREV_HIST_STACK_DEPTH	16
#define TREV_HIST_STR_MAX	256	/* a __data_loc string key (MAX_FILTER_STR_VAL) */
#define TREV_HIST_VARS_MAX	16	/* variables of one hist, and references (TRACING_MAP_VARS_MAX) */
#define TREV_HIST_ACTIONS_MAX	8	/* onmatch/onmax/onchange handlers of one hist */

/*
 * The error texts: the kernel's where it has one (trace_events_hist.c
 * ERRORS), ours where the kernel refuses with a bare -EINVAL.
 */
#define TREV_HIST_ERRORS							\
	C(NONE,			"No error"),					\
	C(FIELD_NOT_FOUND,	"Couldn't find field"),				\
	C(BAD_FIELD_MODIFIER,	"Invalid field modifier"),			\
	C(EMPTY_ASSIGNMENT,	"Empty assignment"),				\
	C(INVALID_SORT_MODIFIER, "Invalid sort modifier"),			\
	C(EMPTY_SORT_FIELD,	"Empty sort field"),				\
	C(TOO_MANY_SORT_FIELDS,	"Too many sort fields (Max = 2)"),		\
	C(INVALID_SORT_FIELD,	"Sort field must be a key or a val"),		\
	C(TRIGGER_EEXIST,	"Hist trigger already exists"),			\
	C(TRIGGER_ENOENT_CLEAR,	"Can't clear or continue a nonexistent hist trigger"), \
	C(NAMED_MISMATCH,	"Named hist trigger doesn't match existing named trigger (includes variables)"), \
	C(HIST_CREATE_FAIL,	"Couldn't create histogram for field"),		\
	C(SET_CLOCK_FAIL,	"Couldn't set trace_clock"),			\
	C(ACTION_NOT_FOUND,	"No action found"),				\
	C(MISSING_KEYS,		"Missing keys"),				\
	C(TOO_MANY_KEYS,	"Too many keys (Max = 3)"),			\
	C(TOO_MANY_VALS,	"Too many values (Max = 2)"),			\
	C(DUPLICATE_FIELD,	"Duplicate field"),				\
	C(KEY_TOO_LARGE,	"Key too large"),				\
	C(INVALID_SIZE,		"Invalid map size (2^7 .. 2^17)"),		\
	C(NO_VARIABLES,		"Expressions in keys and values are not supported"), \
	C(BAD_FILTER,		"Invalid filter"),				\
	C(EMPTY_TRIGGER,	"Empty hist trigger"),				\
	C(DUPLICATE_VAR,	"Variable already defined"),			\
	C(VAR_NOT_UNIQUE,	"Variable name not unique, need to use fully qualified name (subsys.event.var) for variable"), \
	C(TOO_MANY_VARS,	"Too many variables defined"),			\
	C(MALFORMED_ASSIGNMENT,	"Malformed assignment"),			\
	C(TOO_MANY_SUBEXPR,	"Too many subexpressions (3 max)"),		\
	C(TIMESTAMP_MISMATCH,	"Timestamp units in expression don't match"),	\
	C(SYNTH_EVENT_NOT_FOUND, "Couldn't find synthetic event"),		\
	C(SYNTH_TYPE_MISMATCH,	"Param type doesn't match synthetic event field type"), \
	C(SYNTH_COUNT_MISMATCH,	"Param count doesn't match synthetic event field count"), \
	C(FIELD_VAR_CREATE_FAIL, "Couldn't create field variable"),		\
	C(ONX_NOT_VAR,		"For onmax(x) or onchange(x), x must be a variable"), \
	C(ONX_VAR_NOT_FOUND,	"Couldn't find onmax or onchange variable"),	\
	C(ONX_VAR_CREATE_FAIL,	"Couldn't create onmax or onchange variable"),	\
	C(HIST_NOT_FOUND,	"Matching event histogram not found"),		\
	C(TOO_MANY_PARAMS,	"Too many action params"),			\
	C(PARAM_NOT_FOUND,	"Couldn't find param"),				\
	C(INVALID_PARAM,	"Invalid action param"),			\
	C(TOO_MANY_SAVE_ACTIONS, "Can't have more than one save() action per hist"), \
	C(ACTION_MISMATCH,	"Handler doesn't support action"),		\
	C(NO_CLOSING_PAREN,	"No closing paren found"),			\
	C(SUBSYS_NOT_FOUND,	"Missing subsystem"),				\
	C(INVALID_SUBSYS_EVENT,	"Invalid subsystem or event name"),		\
	C(INVALID_REF_KEY,	"Using variable references in keys not supported"), \
	C(VAR_NOT_FOUND,	"Couldn't find variable"),			\
	C(INVALID_STR_OPERAND,	"String type can not be an operand in expression"), \
	C(EXPECT_NUMBER,	"Expecting numeric literal"),			\
	C(UNARY_MINUS_SUBEXPR,	"Unary minus not supported in sub-expressions"), \
	C(DIVISION_BY_ZERO,	"Division by zero"),				\
	C(STRING_VAR,		"A string variable must be a string field"),	\
	C(TOO_MANY_ACTIONS,	"Too many actions (Max = 8)"),			\
	C(MISSING_OPERAND,	"Missing operand"),				\
	C(UNARY_MINUS_PAREN,	"Unary minus needs parentheses: -(expression)"), \
	C(VAR_IN_USE,		"Variable in use by another hist trigger"),

#define C(a, b)	TREV_HIST_ERR_##a
enum trev_hist_err { TREV_HIST_ERRORS TREV_HIST_ERR__COUNT };
#undef C

/* Why a hist command was refused: a static text and its column in the command. */
struct trev_hist_error {
	const char *msg;
	int pos;		/* in "hist:<param>", as the kernel's error_log shows it */
};

/* One hist trigger on one event file (struct event_trigger_data + hist_trigger_data). */
struct trev_hist_trigger;

/*
 * trev__hist_parse() - compile "keys=...[:...][ if <filter>]" for @call
 * @tr: the instance (common_timestamp reads its trace clock)
 * @param: the text after "hist:"
 * Return: 0 and *@out, -EINVAL with *@err filled, or -ENOMEM.
 * Context: the registry lock (the fields stay put); the tracefs lock (names).
 */
int trev__hist_parse(struct trev_event_call *call, struct trev_trace_array *tr,
		     const char *param, struct trev_hist_trigger **out,
		     struct trev_hist_error *err);

/* Free a trigger that was never registered, or after a grace period. */
void trev__hist_free(struct trev_hist_trigger *ht);

/*
 * trev__hist_event() - count one event in @ht's map
 * Context: the event's probe (inside an RCU read section); no allocation,
 * no lock, signal-safe (except the stacktrace key: see docs/hist.md).
 */
void trev__hist_event(struct trev_hist_trigger *ht, const void *rec, unsigned int len);

/* The trigger line, "hist:keys=...:size=2048 [active]\n", as the trigger file lists it. */
int trev__hist_print(struct trev_hist_trigger *ht, struct trev_buf *out);

/* Histogram number @n of an event's hist file, with its header and totals. */
int trev__hist_show(struct trev_hist_trigger *ht, int n, struct trev_buf *out);

/*
 * Same keys, values, sort keys, name and filter (the kernel's
 * hist_trigger_match(); size= and :pause/:cont/:clear are not compared).
 */
bool trev__hist_match(const struct trev_hist_trigger *a, const struct trev_hist_trigger *b);

/* The :pause, :cont, :clear flags of a parsed command. */
#define TREV_HIST_ATTR_PAUSE	0x1u
#define TREV_HIST_ATTR_CONT	0x2u
#define TREV_HIST_ATTR_CLEAR	0x4u
unsigned int trev__hist_attrs(const struct trev_hist_trigger *ht);

/* Act on the registered @ht as a :pause, :cont or :clear command does. */
void trev__hist_pause(struct trev_hist_trigger *ht, bool pause);
/* Context: the tracefs lock, not inside an RCU read-side section. */
int trev__hist_clear(struct trev_hist_trigger *ht);

/*
 * Registering: a named trigger joins the map shared under its name (and
 * leaves it in trev__hist_free()). Return: 0, or -EINVAL with *@err
 * (NAMED_MISMATCH). Context: the tracefs lock.
 */
int trev__hist_attach(struct trev_hist_trigger *ht, struct trev_hist_error *err);

/* The commands of the trigger framework (trigger_internal.h): hist, enable_hist, disable_hist. */
struct trev_trigger_cmd;
extern const struct trev_trigger_cmd trev__hist_cmd;
extern const struct trev_trigger_cmd trev__enable_hist_cmd;
extern const struct trev_trigger_cmd trev__disable_hist_cmd;

/*
 * trev__hist_file_show() - the text of events/<sys>/<ev>/hist: every hist
 * trigger of @file (NULL: none), oldest first; empty when there is none.
 * Context: the tracefs lock and the registry lock for reading.
 */
int trev__hist_file_show(struct trev_event_file *file, struct trev_buf *out);

/*
 * trev__hist_debug_file_show() - the text of events/<sys>/<ev>/hist_debug:
 * each hist trigger of @file, oldest first, with its fields' flags, types and
 * sizes, its variables and references (the kernel's
 * CONFIG_HIST_TRIGGERS_DEBUG file). Context: as trev__hist_file_show().
 */
int trev__hist_debug_file_show(struct trev_event_file *file, struct trev_buf *out);

/* The message of a code. */
const char *trev__hist_err_text(enum trev_hist_err code);

#endif /* TREV_HIST_H */
