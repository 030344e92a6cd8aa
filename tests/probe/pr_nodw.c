// SPDX-License-Identifier: LGPL-2.1-or-later
/* A function of an object without DWARF (libpr_nodw.so, built with -g0). */
#include "pr_dwarf.h"

PR_NOIPA __attribute__((visibility("default"))) int pr_nodw(int a)
{
	return a + 1;
}
