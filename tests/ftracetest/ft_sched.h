/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The end of ft_target's sched translation unit (tests/kernel_headers/tu.c with KH_FIRE
 * naming this file): gen_fire.py's calls (FT_FIRE; ftracetest.sh takes sched_process_fork
 * and sched_process_exit out of them), and those two fired for a real fork and exit, with
 * the stand-in task_struct of tests/kernel_headers/standin/ filled as the kernel fills its
 * own.
 */
#include FT_FIRE

void ft_sched_fork(int parent_pid, const char *parent_comm, int child_pid,
		   const char *child_comm);
void ft_sched_exit(int pid, const char *comm);

void ft_sched_fork(int parent_pid, const char *parent_comm, int child_pid,
		   const char *child_comm)
{
	struct task_struct parent = kh_current_task;
	struct task_struct child = kh_current_task;

	snprintf(parent.comm, sizeof(parent.comm), "%s", parent_comm);
	parent.pid = parent_pid;
	snprintf(child.comm, sizeof(child.comm), "%s", child_comm);
	child.pid = child_pid;
	trace_sched_process_fork(&parent, &child);
}

void ft_sched_exit(int pid, const char *comm)
{
	struct task_struct p = kh_current_task;

	snprintf(p.comm, sizeof(p.comm), "%s", comm);
	p.pid = pid;
	trace_sched_process_exit(&p);
}
