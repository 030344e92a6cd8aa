/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Probe events (the kernel's trace_probe.c, trace_kprobe.c and
 * trace_uprobe.c; docs/probes.md): definitions written to uprobe_events,
 * kprobe_events and dynamic_events, each an event of its own, fired at a
 * site with the registers the site hands over (struct trev_regs) and the
 * fetch arguments read from them.
 *
 * Two parts: the definition parser and the fetch interpreter (probe_arg.c),
 * which know nothing of events and are tested and fuzzed alone; the events,
 * their records and sites (probe_event.c).
 */
#ifndef TREV_PROBE_H
#define TREV_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "patch/regs.h"

struct trev_buf;
struct trev_seq;

/* The kernel's limits (trace_probe.h). */
#define TREV_PROBE_MAX_ARGS	128
#define TREV_PROBE_ARGSTR_MAX	63	/* MAX_ARGSTR_LEN */
#define TREV_PROBE_ARRAY_MAX	64	/* MAX_ARRAY_LEN */
#define TREV_PROBE_ARGNAME_MAX	32	/* MAX_ARG_NAME_LEN */
#define TREV_PROBE_NAME_MAX	64	/* MAX_EVENT_NAME_LEN */
#define TREV_PROBE_STR_MAX	4096	/* MAX_STRING_SIZE (PATH_MAX) */
#define TREV_PROBE_DEREF_MAX	14	/* dereferences: FETCH_INSN_MAX's room (probe_ops_full()) */

/* The kernel's error texts (trace_probe.h ERRORS), in its order. */
#define TREV_PROBE_ERRORS							\
	C(FILE_NOT_FOUND,	"Failed to find the given file"),		\
	C(NO_REGULAR_FILE,	"Not a regular file"),				\
	C(BAD_REFCNT,		"Invalid reference counter offset"),		\
	C(REFCNT_OPEN_BRACE,	"Reference counter brace is not closed"),	\
	C(BAD_REFCNT_SUFFIX,	"Reference counter has wrong suffix"),		\
	C(BAD_UPROBE_OFFS,	"Invalid uprobe offset"),			\
	C(MAXACT_NO_KPROBE,	"Maxactive is not for kprobe"),			\
	C(BAD_MAXACT,		"Invalid maxactive number"),			\
	C(MAXACT_TOO_BIG,	"Maxactive is too big"),			\
	C(BAD_PROBE_ADDR,	"Invalid probed address or symbol"),		\
	C(BAD_RETPROBE,		"Retprobe address must be an function entry"),	\
	C(BAD_ADDR_SUFFIX,	"Invalid probed address suffix"),		\
	C(NO_GROUP_NAME,	"Group name is not specified"),			\
	C(GROUP_TOO_LONG,	"Group name is too long"),			\
	C(BAD_GROUP_NAME,	"Group name must follow the same rules as C identifiers"), \
	C(NO_EVENT_NAME,	"Event name is not specified"),			\
	C(EVENT_TOO_LONG,	"Event name is too long"),			\
	C(BAD_EVENT_NAME,	"Event name must follow the same rules as C identifiers"), \
	C(RETVAL_ON_PROBE,	"$retval is not available on probe"),		\
	C(BAD_STACK_NUM,	"Invalid stack number"),			\
	C(BAD_ARG_NUM,		"Invalid argument number"),			\
	C(BAD_VAR,		"Invalid $-valiable specified"),		\
	C(BAD_REG_NAME,		"Invalid register name"),			\
	C(BAD_MEM_ADDR,		"Invalid memory address"),			\
	C(BAD_IMM,		"Invalid immediate value"),			\
	C(IMMSTR_NO_CLOSE,	"String is not closed with '\"'"),		\
	C(FILE_ON_KPROBE,	"File offset is not available with kprobe"),	\
	C(BAD_FILE_OFFS,	"Invalid file offset value"),			\
	C(SYM_ON_UPROBE,	"Symbol is not available with uprobe"),		\
	C(TOO_MANY_OPS,		"Dereference is too much nested"),		\
	C(DEREF_NEED_BRACE,	"Dereference needs a brace"),			\
	C(BAD_DEREF_OFFS,	"Invalid dereference offset"),			\
	C(DEREF_OPEN_BRACE,	"Dereference brace is not closed"),		\
	C(COMM_CANT_DEREF,	"$comm can not be dereferenced"),		\
	C(BAD_FETCH_ARG,	"Invalid fetch argument"),			\
	C(ARRAY_NO_CLOSE,	"Array is not closed"),				\
	C(BAD_ARRAY_SUFFIX,	"Array has wrong suffix"),			\
	C(BAD_ARRAY_NUM,	"Invalid array size"),				\
	C(ARRAY_TOO_BIG,	"Array number is too big"),			\
	C(BAD_TYPE,		"Unknown type is specified"),			\
	C(BAD_STRING,		"String accepts only memory argument"),		\
	C(BAD_BITFIELD,		"Invalid bitfield"),				\
	C(ARG_NAME_TOO_LONG,	"Argument name is too long"),			\
	C(NO_ARG_NAME,		"Argument name is not specified"),		\
	C(BAD_ARG_NAME,		"Argument name must follow the same rules as C identifiers"), \
	C(USED_ARG_NAME,	"This argument name is already used"),		\
	C(ARG_TOO_LONG,		"Argument expression is too long"),		\
	C(NO_ARG_BODY,		"No argument expression"),			\
	C(BAD_INSN_BNDRY,	"Probe point is not an instruction boundary"),	\
	C(FAIL_REG_PROBE,	"Failed to register probe event"),		\
	C(DIFF_PROBE_TYPE,	"Probe type is different from existing probe"),	\
	C(DIFF_ARG_TYPE,	"Argument type or name is different from existing probe"), \
	C(SAME_PROBE,		"There is already the exact same probe event"),	\
	C(NOSUP_BTFARG,		"BTF is not available or not supported"),	\
	C(NO_BTFARG,		"This variable is not found at this probe point"), \
	C(NO_BTF_ENTRY,		"No BTF entry for this probe point"),		\
	C(BAD_VAR_ARGS,		"$arg* must be an independent parameter without name etc."), \
	C(NOFENTRY_ARGS,	"$arg* can be used only on function entry or exit"), \
	C(DOUBLE_ARGS,		"$arg* can be used only once in the parameters"), \
	C(NO_PTR_STRCT,		"This is not a pointer to union/structure."),	\
	C(NOSUP_DAT_ARG,	"Non pointer structure/union argument is not supported."), \
	C(BAD_HYPHEN,		"Failed to parse single hyphen. Forgot '>'?"),	\
	C(NO_BTF_FIELD,		"This field is not found."),			\
	C(BAD_BTF_TID,		"Failed to get BTF type info."),		\
	C(BAD_TYPE4STR,		"This type does not fit for string."),		\
	C(NO_RETVAL,		"This function returns 'void' type"),		\
	C(TOO_MANY_ARGS,	"Too many arguments are specified"),

#define C(a, b)	TREV_PROBE_ERR_##a
enum trev_probe_err { TREV_PROBE_ERRORS TREV_PROBE_ERR__COUNT };
#undef C

/* The text of error @code. */
const char *trev__probe_err_text(enum trev_probe_err code);

/*
 * Why a definition was refused, as the kernel's error_log shows it: the
 * command (the words joined by one blank) and the caret's column in it.
 */
struct trev_probe_error {
	const char *msg;	/* NULL: refused without an entry (-ENOMEM, -ENOENT ...) */
	int pos;
	char cmd[512];		/* truncated past 511 bytes, @pos then at most its end + 1 */
};

/* A type of fetch argument (the kernel's struct fetch_type). */
struct trev_probe_type {
	const char *name;	/* as written: "u32", "x64", "string" */
	unsigned int size;	/* in the record (4: a string's __data_loc word) */
	bool is_signed;
	const char *fmt;	/* in the print fmt */
	const char *fmttype;	/* in the format file */
	char kind;		/* 'u' 's' 'x' 'c' (char) 'y' (symbol) 'S' (string, ustring, symstr) */
};

/* Where a fetch starts (the kernel's stage-1 fetch ops). */
enum trev_probe_base {
	TREV_PB_REG,		/* a register: param is its word in struct trev_regs */
	TREV_PB_STACK,		/* $stackN: param N */
	TREV_PB_STACKP,		/* $stack */
	TREV_PB_RETVAL,		/* $retval */
	TREV_PB_IMM,		/* \IMM, @ADDR, @SYM: imm */
	TREV_PB_COMM,		/* $comm */
	TREV_PB_ARG,		/* $argN: param N - 1 */
	TREV_PB_DATA,		/* \"string": data */
	TREV_PB_SYM,		/* @SYM not resolved yet: data "SYM[+-offs]" (resolved at creation) */
	TREV_PB_VAR,		/* a parameter by name, "$retval->..": data "NAME[->M.M...]" (DWARF, at creation) */
	TREV_PB_ARGS,		/* $arg*: every parameter (expanded at creation) */
};

struct trev_probe_arg {
	char *name;
	char *comm;		/* the fetch argument as written (after "NAME=") */
	const struct trev_probe_type *type;
	unsigned int count;	/* [N]; 0: not an array */
	unsigned int offset;	/* in the record's argument area */
	bool dynamic;		/* a string: a __data_loc word and data after the fixed part */
	enum trev_probe_base base;
	unsigned int param;
	unsigned long imm;
	char *data;
	unsigned int nderef;	/* dereferences: the last one is the store's address */
	struct {
		long offset;
		bool user;
	} deref[TREV_PROBE_DEREF_MAX];
	unsigned char bf_lshift, bf_rshift;	/* b<bits>@<off>/<size>: shifts in the type's width */
	bool bitfield;
	bool typed;		/* TYPE written: DWARF does not type it */
	bool retval;		/* a plain $retval: typed by DWARF when untyped */
	int col;		/* TREV_PB_VAR/ARGS: the column of data in the error's command */
	unsigned int word;	/* the word of the command it is (2: the first argument) */
	char *type_str;		/* TYPE as written (after ':'), NULL: none */
};

/* What a definition's target is. */
struct trev_probe_target {
	char *path;		/* PATH: of PATH:OFFSET or PATH:SYMBOL; NULL: a symbol */
	char *module;		/* MODULE: of MODULE:SYMBOL (a library's name); NULL: any */
	char *symbol;		/* SYMBOL (NULL with an offset) */
	unsigned long offset;	/* PATH:OFFSET's file offset, SYMBOL+offs's offs */
	bool has_offset;	/* PATH:OFFSET */
};

struct trev_probe_def {
	bool is_return;
	char *group;
	char *event;
	struct trev_probe_target target;
	unsigned int nr_args;
	struct trev_probe_arg *args;
	unsigned int size;	/* of the argument area */
};

/* Who parses: which file, for the default group and the error log's subsystem. */
enum trev_probe_file {
	TREV_PROBE_UPROBE,	/* uprobe_events: group "uprobes", "trace_uprobe" */
	TREV_PROBE_KPROBE,	/* kprobe_events: group "kprobes", "trace_kprobe" */
	TREV_PROBE_DYNAMIC,	/* dynamic_events: a PATH target a uprobe, else a kprobe */
};

/*
 * trev__probe_parse() - one definition line "p[:[GRP/]EVENT] TARGET
 * [FETCHARGS]" or "r...": its words, checked as the kernel's
 * trace_kprobe/trace_uprobe parsers check them.
 * Return: 0 with @def filled (trev__probe_def_free() it); -ECANCELED: not a
 * p/r line; -EINVAL with @err filled; -ENOMEM. @uprobe: set to whether it
 * is a uprobe (its error log's subsystem, "trace_uprobe").
 */
int trev__probe_parse(const char *line, enum trev_probe_file file, struct trev_probe_def *def,
		      struct trev_probe_error *err, bool *uprobe);
void trev__probe_def_free(struct trev_probe_def *def);

/*
 * trev__probe_dwarf_resolve() - the arguments by name, "name->member" and
 * $arg* of @def made fetch programs from the DWARF of the function at
 * run-time address @addr (probe_dwarf.c), and a plain $retval typed: each
 * becomes a register or stack read with dereferences and a type, which
 * trev__probe_fetch() runs as any other. @err->cmd is the command (from
 * trev__probe_parse()). Return: 0; -EINVAL with @err's message and caret;
 * -ENOMEM. Context: not a probed site's (reads files, allocates).
 */
int trev__probe_dwarf_resolve(struct trev_probe_def *def, uintptr_t addr,
			      struct trev_probe_error *err);
/* Whether @def has arguments for trev__probe_dwarf_resolve(). */
bool trev__probe_def_dwarf(const struct trev_probe_def *def);
/* The type of fetch argument @name ("u32", NULL: the default x64), or NULL. */
const struct trev_probe_type *trev__probe_type(const char *name);
/* @a's slot and the definition's size made again after its arguments changed. */
void trev__probe_layout(struct trev_probe_def *def);

/* The kernel's is_good_name(): [A-Za-z_][A-Za-z0-9_]*. */
bool trev__probe_good_name(const char *name);

/*
 * trev__probe_fetch() - the fetch interpreter: store @arg for this hit, its
 * slot at @slot, its strings (each with its NUL, @dyn_room bytes at most)
 * at @dyn, @dyn_off bytes from the record's start. Return: the bytes of
 * strings written. A read that faults stores 0 (numbers) or a
 * __data_loc of length 0 (strings: "(fault)"). Context: any thread, at the
 * probed site; every memory read is a fault-safe copy (process_vm_readv()
 * of the own process).
 */
unsigned int trev__probe_fetch(const struct trev_probe_arg *arg, const struct trev_regs *regs,
			       unsigned char *slot, unsigned char *dyn, unsigned int dyn_off,
			       unsigned int dyn_room);

/* Copy @len bytes from @addr in this process without faulting. Return: 0 or -EFAULT. */
int trev__probe_read(void *dst, unsigned long addr, size_t len);

/* " name=value" of @arg from its record @rec of @size bytes, the kernel's print. */
void trev__probe_print_arg(struct trev_seq *s, const struct trev_probe_arg *arg,
			   const unsigned char *rec, unsigned int size, unsigned int base);

/*
 * A probe compiled for the trampoline's fast call (probe_fast.c): a p:
 * probe whose arguments are numbers (no string, array or bitfield) read
 * from what the fast call has (the argument registers, rbp, the stack
 * pointer, constants) and from memory, with a fixed part of 72 bytes at
 * most. Every other probe takes the full call.
 */
#define TREV_PROBE_FAST_WORDS	8	/* the record past its common fields, in words */

struct trev_probe_cfetch {
	unsigned char src;	/* PF_SRC_* (probe_fast.c) */
	unsigned char size;	/* 1, 2, 4 or 8 bytes */
	unsigned char nread;	/* word reads: v = *(v + off[k]) */
	bool last;		/* then the value: @size bytes at v + last_off; else v itself */
	bool slow;		/* reads memory or the stack pointer: out of line */
	unsigned short at;	/* in the record, past the common fields */
	int word;		/* PF_SRC_SLOT: slot[word] */
	unsigned char reg;	/* with all the registers (a site's): their word reg ... */
	bool rimm;		/* ... or imm */
	bool noslot;		/* not in the trampoline's frame (rbx, r12-r15) */
	unsigned long imm;	/* PF_SRC_IMM */
	long last_off;
	long off[TREV_PROBE_DEREF_MAX + 1];
};

struct trev_tracepoint;

struct trev_probe_fast {
	uintptr_t site;			/* the address it was compiled for (%ip is this) */
	const uintptr_t *where;		/* the probe's address now: the fast call only while equal */
	struct trev_tracepoint *tp;	/* the event's: its key and its probes */
	_Atomic unsigned long *nhit;
	void *write;			/* the event's probe: the only one the fast call writes for */
	unsigned int fixed;		/* the record's length */
	unsigned int nargs;
	bool slot_ok;			/* the fast call at a patchable entry has every argument */
	bool regs8;			/* every argument 8 bytes of a saved register: rword[] */
	signed char rword[TREV_PROBE_FAST_WORDS - 1];	/* argument i: slot[rword[i]] */
	bool rregs8;			/* the same with all the registers: rreg[] */
	unsigned char rreg[TREV_PROBE_FAST_WORDS - 1];	/* argument i: word rreg[i] of them */
	struct trev_probe_cfetch a[];
};

/*
 * trev__probe_compile() - @def (at site @addr, record of @fixed bytes, its
 * arguments from byte @base) compiled for the fast call. Return: it
 * (free() it), or NULL: the probe takes the full call (or no memory).
 */
struct trev_probe_fast *trev__probe_compile(const struct trev_probe_def *def, uintptr_t addr,
					    unsigned int fixed, unsigned int base);

/* A probe's site and its compiled form (NULL: the full call) for trev__probe_fast_publish(). */
struct trev_probe_fast_site {
	uintptr_t addr;
	const struct trev_probe_fast *f;
};

/*
 * trev__probe_fast_publish() - the table the fast call looks sites up in:
 * @n probes; a site with more than one probe, or none compiled, takes the
 * full call; @n 0: no table (allocates nothing). Return: the old table,
 * to free() after a grace period (NULL: there was none); on -ENOMEM in
 * *@err (0 else) NULL, and the table stays.
 * Context: probe_event.c's lock.
 */
void *trev__probe_fast_publish(const struct trev_probe_fast_site *s, size_t n, int *err);

/* The fast call (trev_ft_probe_fast_fn, ftrace.h); it takes its own RCU read section. */
int trev__probe_fast_hit(unsigned long ip, unsigned long *slot);

/*
 * trev__probe_fast_regs() - @f's record for a hit with all the registers
 * @regs (a src/patch/ site's handler), as the fast call writes it.
 * Return: 0, or TREV_FT_FULL: nothing was done, the caller fires the probe
 * the general way. Context: an RCU read section, on the probed thread.
 */
int trev__probe_fast_regs(const struct trev_probe_fast *f, const struct trev_regs *regs);

/*
 * The probe events (probe_event.c). trev__probe_command(): one line of
 * @file ("p..", "r..", "-:..."); -ECANCELED: not a probe's line.
 * trev__probe_release_all(): all or none (-EBUSY). trev__probe_show(): the
 * definitions of @file's kind (TREV_PROBE_DYNAMIC: all) as the kernel lists
 * them. Context: the tracefs lock.
 */
int trev__probe_command(const char *line, enum trev_probe_file file,
			struct trev_probe_error *err, const char **subsystem);
int trev__probe_remove(const char *group, const char *event, enum trev_probe_file file);
int trev__probe_release_all(enum trev_probe_file file);
int trev__probe_show(struct trev_buf *out, enum trev_probe_file file);
/* kprobe_profile and uprobe_profile: each probe of @file's kind and its hits. */
int trev__probe_profile_show(struct trev_buf *out, enum trev_probe_file file);

#endif /* TREV_PROBE_H */
