/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A library that tests/control/sym_app.c dlopen()s after trev record has
 * read its maps: a trace_printk() call site in a file mapped later.
 */
#include <trev/trev.h>

__attribute__((visibility("default"))) void sym_mod_printk(int i);

/* Kept whole under its own name: GCC could clone it (.constprop); clang knows no noclone. */
#ifdef __clang__
#define KEEP_WHOLE	__attribute__((noinline))
#else
#define KEEP_WHOLE	__attribute__((noinline, noclone))
#endif

KEEP_WHOLE void sym_mod_printk(int i)
{
	trace_printk("sym_mod_printk %d\n", i);
}
