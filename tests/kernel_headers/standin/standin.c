// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the stand-ins declare and trev's side links (ours): kernel globals the event headers'
 * TP_fast_assign reads, and the functions a header names but its module defines.
 */
#include "kernel_types.h"

unsigned long volatile jiffies = 4295000000UL;
struct signal_struct kh_signal = { .oom_score_adj = -17 };
struct task_struct kh_current_task = { .comm = "kh-current", .pid = 4200, .tgid = 4200,
				       .prio = 120, .signal = &kh_signal, .mm = &kh_mm };
struct workqueue_struct kh_workqueue = { .name = "kh-wq" };
struct worker_pool kh_worker_pool = { .cpu = 1 };
long kh_sysctl_mem[3] = { 100, 200, 300 };
int kh_sysctl_rmem[3] = { 4096, 131072, 6291456 };
int kh_sysctl_wmem[3] = { 4096, 16384, 4194304 };
struct bpf_prog_aux kh_bpf_prog_aux = { .id = 31 };
struct gendisk kh_gendisk = { .kh_devt = (8 << 20) | 16 };
struct request_queue kh_request_queue = { .disk = &kh_gendisk };
struct block_device kh_block_device = { .bd_dev = (8 << 20) | 1 };
struct pglist_data kh_pglist_data = { .node_id = 0 };
struct zone kh_zone = { .zone_pgdat = &kh_pglist_data, .name = "Normal" };
struct super_block kh_super_block = { .s_dev = (8 << 20) | 2 };
struct address_space kh_address_space;
struct inode kh_inode = { .i_ino = 1234, .i_sb = &kh_super_block,
			  .i_mapping = &kh_address_space };
struct address_space kh_address_space = { .host = &kh_inode, .wb_err = 3 };
struct cgroup kh_cgroup = { .kh_ino = 4711 };
struct cgroup_subsys_state kh_css = { .cgroup = &kh_cgroup, .id = 12 };
struct mem_cgroup kh_mem_cgroup = { .css = { .cgroup = &kh_cgroup, .id = 12 } };
struct backing_dev_info kh_bdi = { .id = 5, .kh_dev_name = "8:0" };
struct bdi_writeback kh_bdi_writeback = { .bdi = &kh_bdi, .memcg_css = &kh_css };
struct wb_domain global_wb_domain = { .dirty_limit = 100000 };
unsigned long vmemmap_base = 0xffffea0000000000UL;
struct mm_struct kh_mm = { .total_vm = 2048 };
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
