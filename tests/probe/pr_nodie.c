// SPDX-License-Identifier: LGPL-2.1-or-later
/* A function without DWARF in a program that has DWARF (built with -g0). */
#include "pr_dwarf.h"

PR_NOIPA int pr_nodie(int a)
{
	return a + 2;
}
