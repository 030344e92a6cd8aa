/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stack tracer (stack_tracer.c, the kernel's trace_stack.c): the
 * deepest stack a traced function was entered with, kept with each frame's
 * size. ftrace.c patches the functions of stack_trace_filter while it is on
 * and calls trev__st_check() from the trampoline; tracefs shows and resets
 * what it found (docs/function-tracer.md, "The stack tracer").
 */
#ifndef TREV_STACK_TRACER_H
#define TREV_STACK_TRACER_H

#include <stdbool.h>

struct trev_buf;

/*
 * trev__st_check() - the trampoline's call while the stack tracer is on
 * @ip: the traced function's patched site
 * @parent_ip: the return address into its caller
 * @slot: where @parent_ip is on the stack (the function's frame starts below it)
 * A stack deeper than stack_max_size becomes the new maximum: its frames
 * (the unwinder's return addresses) are found on the stack, each with its
 * depth. Context: any thread, in the trampoline's RCU read section; no lock
 * (a thread that finds another saving a maximum leaves it), no allocation
 * but the thread's first call, which reads its stack's bounds.
 */
void trev__st_check(unsigned long ip, unsigned long parent_ip, unsigned long *slot);

/* Prime the unwinder before the tracer goes on (its first call loads libgcc_s). */
void trev__st_prepare(void);

/* stack_trace: the kernel's t_show() text of the deepest stack. Return: 0 or -ENOMEM. */
int trev__st_show(struct trev_buf *out, bool enabled);
/* stack_max_size: its bytes; a write sets it (0: start over), the frames stay until a deeper one. */
unsigned long trev__st_max(void);
void trev__st_set_max(unsigned long v);

#endif /* TREV_STACK_TRACER_H */
