// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the stand-ins declare and trev's side links (ours): kernel globals the event headers'
 * TP_fast_assign reads, and the functions a header names but its module defines.
 */
#include "kernel_types.h"

unsigned long volatile jiffies = 4295000000UL;
struct signal_struct kh_signal = { .oom_score_adj = -17 };
struct task_struct kh_current_task = { .comm = "kh-current", .pid = 4200, .tgid = 4200,
				       .prio = 120, .signal = &kh_signal };
struct workqueue_struct kh_workqueue = { .name = "kh-wq" };
struct worker_pool kh_worker_pool = { .cpu = 1 };
long kh_sysctl_mem[3] = { 100, 200, 300 };
int kh_sysctl_rmem[3] = { 4096, 131072, 6291456 };
int kh_sysctl_wmem[3] = { 4096, 16384, 4194304 };
struct net_device kh_net_device = { .name = "kh-eth0", .ifindex = 3 };

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
