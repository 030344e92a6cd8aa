// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * System call names by number (syscall_name.h). The table is the C library's
 * kernel headers' (asm/unistd.h, read by CMakeLists.txt at configure time);
 * the kernel names a call by its SYSCALL_DEFINE, which for a few differs from
 * the __NR_ name: those are renamed here.
 */
#include <stddef.h>
#include <string.h>

#include "trigger/syscall_name.h"

static const char *const nr_names[] = {
#include "syscall_table.h"
};

/* __NR_ name -> the kernel's SYSCALL_DEFINE name, where they differ (x86-64). */
static const struct {
	const char *nr, *kernel;
} renamed[] = {
	{ "uname", "newuname" },
	{ "stat", "newstat" },
	{ "fstat", "newfstat" },
	{ "lstat", "newlstat" },
};

const char *trev__syscall_name(uint64_t nr)
{
	const char *name;

	if (nr >= sizeof(nr_names) / sizeof(nr_names[0]) || !nr_names[nr])
		return NULL;
	name = nr_names[nr];
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (strcmp(name, renamed[i].nr) == 0)
			return renamed[i].kernel;
	return name;
}
