/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A library that tests/control/sym_app.c dlopen()s after trev record has
 * read its maps: a trace_printk() call site in a file mapped later.
 */
#include <trev/trev.h>

__attribute__((visibility("default"))) void sym_mod_printk(int i);

__attribute__((noinline, noclone)) void sym_mod_printk(int i)
{
	trace_printk("sym_mod_printk %d\n", i);
}
