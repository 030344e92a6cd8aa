/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Functions and their parameters from DWARF (libdw, libdwfl): the function
 * at an address of this process or of an ELF file, its parameters with
 * their C types and where each is at the function's entry, the members of
 * struct types. What src/probe/probe_dwarf.c turns probe arguments by name
 * into, and what `trev list --functions` prints. The debug information is
 * the object's own or a separate file found by build id (/usr/lib/debug).
 */
#ifndef TREV_DWARF_FUNC_H
#define TREV_DWARF_FUNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

struct trev_dwarf;	/* an open session: the objects of this process, or one file */

/*
 * trev__dwarf_open_self() - the objects loaded in this process, at their
 * run-time addresses (/proc/self/maps). trev__dwarf_open_file() - the ELF
 * file @path at its link-time addresses. Return: 0, -ENOENT (no such
 * file), -ENOEXEC (not an ELF file), -ENOMEM. Context: any thread, not a
 * probed site's (reads files, allocates).
 */
int trev__dwarf_open_self(struct trev_dwarf **out);
int trev__dwarf_open_file(const char *path, struct trev_dwarf **out);
void trev__dwarf_close(struct trev_dwarf *d);

/* A function's DIE. */
struct trev_dwarf_func {
	Dwarf_Die die;		/* DW_TAG_subprogram (its out-of-line instance) */
	uint64_t low_pc;	/* its entry, as an address of the session */
	uint64_t bias;		/* session address - DWARF address */
};

/*
 * trev__dwarf_func_at() - the function that holds @addr (an address of the
 * session). Return: 0; -ESRCH (no object there), -ENODATA (the object has
 * no DWARF), -ENOENT (its DWARF has no function there).
 */
int trev__dwarf_func_at(struct trev_dwarf *d, uint64_t addr, struct trev_dwarf_func *f);

/* What a type is, typedefs and qualifiers skipped. */
enum trev_dwarf_kind {
	TREV_DW_VOID,		/* no type */
	TREV_DW_INT,		/* base integer types, bool, char, enum */
	TREV_DW_FLOAT,		/* float, double, long double, complex */
	TREV_DW_PTR,		/* pointers, references */
	TREV_DW_STRUCT,		/* struct, union, class */
	TREV_DW_ARRAY,
	TREV_DW_OTHER,		/* a function type ... */
};

struct trev_dwarf_type {
	Dwarf_Die die;		/* the type, typedefs and qualifiers skipped (not VOID) */
	enum trev_dwarf_kind kind;
	unsigned int size;	/* bytes (0: unknown) */
	bool is_signed;		/* TREV_DW_INT */
	bool char_data;		/* a pointer to or array of a 1-byte integer type (char) */
};

/*
 * trev__dwarf_type() - the type named by @owner's DW_AT_type (a parameter,
 * member, function's return, pointer). Return: 0, -EINVAL (a bad
 * reference: the DWARF is malformed).
 */
int trev__dwarf_type(Dwarf_Die *owner, struct trev_dwarf_type *t);

/* trev__dwarf_type_name() - the C text of @owner's type: "const char *". Return: 0, -ENOSPC. */
int trev__dwarf_type_name(Dwarf_Die *owner, char *buf, size_t size);

/* Where a parameter is at the function's entry. */
enum trev_dwarf_where {
	TREV_DW_IN_REG,		/* a general register: reg (DWARF's number: 0 rax, 5 rdi ...) */
	TREV_DW_ON_STACK,	/* at stack bytes above the entry's stack pointer (8: the first) */
	TREV_DW_NOWHERE,	/* a vector register, or a place this reader does not know */
};

struct trev_dwarf_param {
	const char *name;	/* NULL: unnamed */
	Dwarf_Die die;		/* DW_TAG_formal_parameter */
	enum trev_dwarf_where where;
	int reg;
	long stack;
};

/*
 * trev__dwarf_params() - the parameters of @f, at most @max into @p, each
 * with where it is at entry address @pc: a location of its own there (a
 * register of the location list), else the x86-64 ABI's place (integer
 * class in di si dx cx r8 r9, then the stack; floats in vector registers;
 * structs over 16 bytes on the stack; a smaller struct by value makes the
 * places after it unknown). Return: their number, or -E2BIG.
 */
int trev__dwarf_params(const struct trev_dwarf_func *f, uint64_t pc, struct trev_dwarf_param *p,
		       int max);

/*
 * trev__dwarf_member() - member @name of struct or union type @st, also
 * inside its anonymous members: its DIE, byte offset in @st, and for a
 * bitfield its bit size and bit offset from that byte (0, 0 otherwise).
 * Return: 0, -ENOENT.
 */
int trev__dwarf_member(Dwarf_Die *st, const char *name, Dwarf_Die *member, long *byte_off,
		       unsigned int *bit_size, unsigned int *bit_off);

/*
 * trev__dwarf_for_each_func() - each defined function symbol of the file of
 * session @d (.symtab, else .dynsym; of the debug file too), in address
 * order, one each address and name: @fn(name, address, its DIE or NULL
 * when the file has no DWARF for it, @arg); a non-zero return stops.
 * Return: what @fn returned, 0, or -ENOMEM.
 */
int trev__dwarf_for_each_func(struct trev_dwarf *d,
			      int (*fn)(const char *name, uint64_t addr,
					struct trev_dwarf_func *f, void *arg),
			      void *arg);

#endif /* TREV_DWARF_FUNC_H */
