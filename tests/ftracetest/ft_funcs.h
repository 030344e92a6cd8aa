/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ft_funcs.c: the kernel-named functions ft_target's event thread calls. */
#ifndef FT_FUNCS_H
#define FT_FUNCS_H

#include <sys/types.h>

struct file;
struct kernel_clone_args;

void _raw_spin_lock(void);
void _raw_spin_unlock(void);
int _raw_spin_trylock(void);
void mutex_lock(void);
void mutex_unlock(void);
void console_unlock(void);
void scheduler_tick(void);
void schedule(void);
void preempt_schedule(void);
void schedule_timeout(void);
void do_execveat_common(void);
void do_execve(void);
void sys_getpid(void);
/* The kernel's signatures: probes name their DWARF types ($retval typed, docs/probes.md). */
pid_t kernel_clone(struct kernel_clone_args *args);
ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos);

/* One round of calls: each function at least once. */
void ft_funcs_run(void);

#endif
