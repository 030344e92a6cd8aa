/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A task of the shell's process tree as ft_target's "ft-forks" sees it (ft_target.c), handed
 * to the sched translation unit (ft_sched.h), which fills the kernel's task_struct stand-in
 * from it: the fields the kernel's sched events take from a task_struct.
 */
#ifndef FT_TASK_H
#define FT_TASK_H

struct ft_task {
	int pid;		/* p->pid: the thread's id */
	int prio;		/* p->prio: 120 + nice for a normal task, 99 - rtprio for SCHED_FIFO */
	int cpu;		/* task_cpu(p): the CPU it last ran on */
	char comm[16];		/* p->comm */
};

void ft_sched_fork(int parent_pid, const char *parent_comm, int child_pid,
		   const char *child_comm);
void ft_sched_exit(int pid, const char *comm);
void ft_sched_exec(const struct ft_task *p, int old_pid, const char *filename);
void ft_sched_wake(const struct ft_task *p);
void ft_sched_switch_to(const struct ft_task *prev, const struct ft_task *next);

#endif /* FT_TASK_H */
