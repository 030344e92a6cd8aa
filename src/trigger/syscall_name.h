/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * System call names by number, for the hist .syscall modifier
 * (docs/hist.md, "Syntax").
 */
#ifndef TREV_TRIGGER_SYSCALL_NAME_H
#define TREV_TRIGGER_SYSCALL_NAME_H

#include <stdint.h>

/*
 * trev__syscall_name() - the kernel's name of system call @nr without its
 * "sys_" ("read", "newuname")
 * Return: a static string; NULL for a number this machine's kernel headers
 * do not name (the hist prints unknown_syscall, as the kernel does).
 */
const char *trev__syscall_name(uint64_t nr);

#endif /* TREV_TRIGGER_SYSCALL_NAME_H */
