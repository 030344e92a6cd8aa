// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the stand-ins declare and trev's side links (ours): kernel globals the event headers'
 * TP_fast_assign reads, and the functions a header names but its module defines.
 */
#include "kernel_types.h"

unsigned long volatile jiffies = 4295000000UL;

/* samples/trace_events: TRACE_EVENT_FN's reg and unreg callbacks (trace-events-sample.c). */
int foo_bar_reg(void);
void foo_bar_unreg(void);

int foo_bar_reg(void)
{
	return 0;
}

void foo_bar_unreg(void)
{
}
