/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The end of ft_target's kmem translation unit (tests/kernel_headers/tu.c with KH_FIRE
 * naming this file): gen_fire.py's calls (FT_FIRE), and a kmalloc of the program's own
 * whose kmalloc event has the caller's address as call_site, as the kernel's _RET_IP_ (for
 * ftracetest's hist cases with call_site.sym and .sym-offset).
 */
#include FT_FIRE

void ft_kmalloc(size_t size);

__attribute__((noinline)) void ft_kmalloc(size_t size)
{
	void *ptr = malloc(size);

	trace_kmalloc((unsigned long)__builtin_return_address(0), ptr, size, size, 0, -1);
	free(ptr);
}
