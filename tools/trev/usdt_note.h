/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A SystemTap SDT note (.note.stapsdt, type 3), decoded for `trev list
 * --usdt FILE` (docs/usdt.md): the note's descriptor is untrusted bytes of a
 * file, so every string must end inside it and every argument must parse.
 */
#ifndef TREV_CLI_USDT_NOTE_H
#define TREV_CLI_USDT_NOTE_H

#include <stddef.h>
#include <stdint.h>

#define USDT_NOTE_TYPE		3	/* NT_STAPSDT */
#define USDT_MAX_ARGS		12	/* what the consumers read */

/*
 * The descriptor of a version 3 note (addresses as the link left them):
 *
 *	OFFSET	SIZE	MEANING
 *	0	8	pc: the probe's address (a nop)
 *	8	8	base: the link-time address of _.stapsdt.base
 *	16	8	semaphore: the 16-bit counter's address, or 0 for none
 *	24	...	provider, name, arguments: three NUL-terminated strings
 */
struct usdt_note {
	uint64_t pc, base, semaphore;
	const char *provider, *name, *args;	/* point into the descriptor */
	unsigned int nr_args;
	struct {
		int size;		/* 1, 2, 4 or 8; negative: signed */
		const char *op;		/* the operand, e.g. "%rdi"; not NUL-terminated */
		size_t op_len;
	} arg[USDT_MAX_ARGS];
};

/*
 * usdt_note_parse() - decode a note descriptor
 * @desc: its bytes (not NUL-terminated)
 * @len: how many
 * @n: the result; its strings point into @desc
 * @why: on error, what is wrong (a constant string)
 *
 * An argument is SIZE@OPERAND, SIZE one of 1 2 4 8 -1 -2 -4 -8 (a bare
 * operand, of a version 1 note, is 8 bytes, unsigned), OPERAND one or more
 * characters other than a space; arguments are separated by single spaces.
 * Return: 0, or -EINVAL with @why set.
 */
int usdt_note_parse(const void *desc, size_t len, struct usdt_note *n, const char **why);

#endif /* TREV_CLI_USDT_NOTE_H */
