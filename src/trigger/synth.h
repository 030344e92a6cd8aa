/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Synthetic events (the kernel's trace_events_synth.c): events defined at
 * run time through the synthetic_events file, registered under
 * events/synthetic/ like any event, and fired with a value per field.
 */
#ifndef TREV_SYNTH_H
#define TREV_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

struct trev_buf;
struct trev_synth_event;

/* The kernel's limits: fields of one event (SYNTH_FIELDS_MAX), a string's slot (STR_VAR_LEN_MAX). */
#define TREV_SYNTH_FIELDS_MAX	64
#define TREV_SYNTH_STR_MAX	256
#define TREV_SYNTH_SYSTEM	"synthetic"
/* Addresses of an unsigned long[] stack field at most (the kernel's HIST_STACKTRACE_DEPTH). */
#define TREV_SYNTH_STACK_MAX	16

/* The kernel's error texts (trace_events_synth.c ERRORS), in its order. */
#define TREV_SYNTH_ERRORS							\
	C(BAD_NAME,		"Illegal name"),				\
	C(INVALID_CMD,		"Command must be of the form: <name> field[;field] ..."), \
	C(INVALID_DYN_CMD,	"Command must be of the form: s or -:[synthetic/]<name> field[;field] ..."), \
	C(EVENT_EXISTS,		"Event already exists"),			\
	C(TOO_MANY_FIELDS,	"Too many fields"),				\
	C(INCOMPLETE_TYPE,	"Incomplete type"),				\
	C(INVALID_TYPE,		"Invalid type"),				\
	C(INVALID_FIELD,	"Invalid field"),				\
	C(INVALID_ARRAY_SPEC,	"Invalid array specification"),

#define C(a, b)	TREV_SYNTH_ERR_##a
enum trev_synth_err { TREV_SYNTH_ERRORS TREV_SYNTH_ERR__COUNT };
#undef C

/* Why a command was refused: the message and its column in the command. */
struct trev_synth_error {
	const char *msg;	/* NULL: refused without an error_log entry (-ENOENT, -EBUSY) */
	int pos;		/* in the command as the error_log shows it (blanks before it skipped) */
	const char *cmd;	/* that command: a pointer into the text given */
};

/*
 * trev__synth_command() - one line written to synthetic_events: define
 * "<name> <type> <field>[; <type> <field>]..." or remove "!<name> ...".
 * A line of blanks does nothing. Return: 0; -EINVAL with @err filled
 * (INVALID_*, BAD_NAME, ...), -EEXIST (EVENT_EXISTS), -ENOENT (removing an
 * event that does not exist), -EBUSY (removing one that is enabled, in soft
 * mode, or fired by a trigger), -ENOMEM.
 * Context: the tracefs lock; not under the registry lock.
 */
int trev__synth_command(const char *line, struct trev_synth_error *err);

/*
 * trev__synth_release_all() - remove every synthetic event (the file opened
 * with O_TRUNC), or none: -EBUSY when one of them is busy.
 * Context: as trev__synth_command().
 */
int trev__synth_release_all(void);

/* The file's text: "name\ttype field; type field\n" per event, oldest first. */
int trev__synth_show(struct trev_buf *out);

/*
 * dynamic_events' synthetic events (the kernel's create_synth_event() and
 * synth_event_show()): trev__synth_dyn_create() defines from one line
 * "s:[synthetic/]<name> <type> <field>[; ...]", with the errors of
 * trev__synth_command() (their columns in the whole line); -ECANCELED: the
 * line is not an "s:" one (another kind's). A line of blanks does nothing.
 * trev__synth_dyn_remove() removes event @name of @system (NULL: any):
 * 0, -ENOENT (none), -EBUSY. trev__synth_dyn_show(): a line
 * "s:synthetic/<name>\t<fields>" per event. Context: as trev__synth_command().
 */
int trev__synth_dyn_create(const char *line, struct trev_synth_error *err);
int trev__synth_dyn_remove(const char *system, const char *name);
int trev__synth_dyn_show(struct trev_buf *out);

/*
 * A synthetic event by name, with a reference that keeps it from being
 * removed (-EBUSY) until trev__synth_put(). NULL: none of that name.
 * Context: the tracefs lock (not synth.c's own: a hist trigger's parse calls
 * it under the registry lock).
 */
struct trev_synth_event *trev__synth_get(const char *name);
void trev__synth_put(struct trev_synth_event *se);
unsigned int trev__synth_nr_fields(const struct trev_synth_event *se);
const char *trev__synth_field_name(const struct trev_synth_event *se, unsigned int i);
/* Field @i is a string: its value is a pointer to the text (char *). */
bool trev__synth_field_is_string(const struct trev_synth_event *se, unsigned int i);
/* Field @i's type as the format shows it ("u64", "char[16]"), its size there, its sign, char[]. */
const char *trev__synth_field_type(const struct trev_synth_event *se, unsigned int i);
unsigned int trev__synth_field_size(const struct trev_synth_event *se, unsigned int i);
bool trev__synth_field_is_signed(const struct trev_synth_event *se, unsigned int i);
bool trev__synth_field_is_dynamic(const struct trev_synth_event *se, unsigned int i);

/*
 * Field @i is an unsigned long[] stack (the kernel's stacktrace field): its
 * value is a pointer to return addresses, innermost first, ending at the
 * first 0 or after TREV_SYNTH_STACK_MAX of them.
 */
bool trev__synth_field_is_stack(const struct trev_synth_event *se, unsigned int i);

/*
 * trev__synth_trace() - fire @se with one value per field (numbers, or
 * string pointers cast to uint64_t), in every instance where it is enabled:
 * a record written, filtered and triggered like any event's.
 * Context: any thread, inside or outside a probe; no allocation or lock.
 */
void trev__synth_trace(struct trev_synth_event *se, const uint64_t *vals);

#endif /* TREV_SYNTH_H */
