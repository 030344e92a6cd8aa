/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The end of ft_target's sched translation unit (tests/kernel_headers/tu.c with KH_FIRE
 * naming this file): gen_fire.py's calls (FT_FIRE; ftracetest.sh takes sched_process_fork
 * and sched_process_exit out of them), and those two fired for a real fork and exit, with
 * the stand-in task_struct of tests/kernel_headers/standin/ filled as the kernel fills its
 * own; for a real exec, sched_process_exec, then sched_waking, sched_wakeup and
 * sched_switch for the new program's first run (ft_target.c, docs/ftracetest.md).
 */
#include FT_FIRE

#include "ft_task.h"

/* @t as the kernel's task_struct of the task (the stand-in's other fields as the corpus'). */
static void ft_task_struct(struct task_struct *t, const struct ft_task *p)
{
	*t = kh_current_task;
	snprintf(t->comm, sizeof(t->comm), "%s", p->comm);
	t->pid = p->pid;
	t->tgid = p->pid;
	t->prio = p->prio;
	t->normal_prio = p->prio;
	t->kh_cpu = p->cpu;
}

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

void ft_sched_exec(const struct ft_task *p, int old_pid, const char *filename)
{
	struct linux_binprm bprm = { .filename = filename };
	struct task_struct t;

	ft_task_struct(&t, p);
	trace_sched_process_exec(&t, old_pid, &bprm);
}

/* The kernel's try_to_wake_up() of a sleeping task: sched_waking, then sched_wakeup. */
void ft_sched_wake(const struct ft_task *p)
{
	struct task_struct t;

	ft_task_struct(&t, p);
	trace_sched_waking(&t);
	trace_sched_wakeup(&t);
}

/* @prev, going to sleep (not preempted: TASK_INTERRUPTIBLE, "S"), switched out for @next. */
void ft_sched_switch_to(const struct ft_task *prev, const struct ft_task *next)
{
	struct task_struct tp, tn;

	ft_task_struct(&tp, prev);
	ft_task_struct(&tn, next);
	trace_sched_switch(false, &tp, &tn, TASK_INTERRUPTIBLE);
}
