// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions with the names of the kernel's that ftracetest's function-tracer cases filter on
 * (schedule, sch?dule, *schedule*, *pin*lock, mutex*unl*, [Ss]y[Ss]_*, *lock*, *try*lock, c*unlock*,
 * do_execve*, kernel_clone), and vfs_read, which the kprobe cases probe (kprobe_syntax_errors.tc),
 * built with trev's function-tracer flags (ftracetest.sh), so that they are in
 * available_filter_functions; ft_target's event thread calls ft_funcs_run() every round, as
 * the kernel calls its own all the time. Nothing else: they only call each other. vfs_read and
 * kernel_clone have the kernel's signatures: the kprobe cases' $retval is typed by DWARF, and
 * a void function has none ("This function returns 'void' type", as the kernel's with BTF).
 */
#include <stddef.h>

#include "ft_funcs.h"

/* The calls stay calls: no inlining, no folding of the empty bodies. */
#define FT_FUNC __attribute__((noinline, noclone))
#define FT_BODY() __asm__ volatile("" ::: "memory")

FT_FUNC void _raw_spin_lock(void) { FT_BODY(); }
FT_FUNC void _raw_spin_unlock(void) { FT_BODY(); }
FT_FUNC int _raw_spin_trylock(void) { FT_BODY(); return 1; }
FT_FUNC void mutex_lock(void) { FT_BODY(); }
FT_FUNC void mutex_unlock(void) { FT_BODY(); }
FT_FUNC void console_unlock(void) { FT_BODY(); }
FT_FUNC void scheduler_tick(void) { _raw_spin_lock(); _raw_spin_unlock(); }
FT_FUNC void schedule(void) { _raw_spin_lock(); _raw_spin_unlock(); }
FT_FUNC void preempt_schedule(void) { schedule(); }
FT_FUNC void schedule_timeout(void) { schedule(); }
FT_FUNC void do_execveat_common(void) { mutex_lock(); mutex_unlock(); }
FT_FUNC void do_execve(void) { do_execveat_common(); }
FT_FUNC void sys_getpid(void) { console_unlock(); }
FT_FUNC pid_t kernel_clone(struct kernel_clone_args *args)
{
	if (_raw_spin_trylock())
		_raw_spin_unlock();
	return args ? 1 : 0;
}
FT_FUNC ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)
{
	FT_BODY();
	return file && buf && pos ? (ssize_t)count : 0;
}

void ft_funcs_run(void)
{
	sys_getpid();
	scheduler_tick();
	preempt_schedule();
	schedule_timeout();
	do_execve();
	kernel_clone(NULL);
}
