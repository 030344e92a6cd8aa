/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-ins for the kernel types, macros and helpers that the event headers of the
 * corpus test name (ours, not the kernel's): forced into every compilation of a header
 * (-include), on both sides, the reference (kernel stages) and trev's. Only the members that
 * TP_STRUCT__entry, TP_fast_assign and TP_printk touch exist. Where a name reaches a print fmt
 * (a macro in TP_printk's arguments is expanded into it), it is spelt as the kernel spells it,
 * so that the reference format is the kernel's; enums stay enums for the same reason.
 *
 * kh_init_<tag>() functions are found by gen_fire.py: the generated caller runs one on the
 * zeroed block that a pointer argument of that type points at.
 */
#ifndef KH_KERNEL_TYPES_H
#define KH_KERNEL_TYPES_H

/*
 * Every system and trev header first: below, kernel names are defined as macros (errno is
 * taken back, since the kernel's headers use it as a field name).
 */
#ifdef KH_TREV
#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif
#include <urcu/urcu-bp.h>
#include <trev/trev.h>
#include <trev/trace_event.h>
#include <trev/tracepoint.h>
#endif
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#define KH_STANDIN_READY
#undef errno
#ifndef __cplusplus
/* A typedef, as in the kernel: a field's type is shown as written, "bool", not "_Bool". */
#undef bool
typedef _Bool bool;
#endif

/* Compiler and preprocessor helpers (include/linux/compiler*.h, stringify.h). */
#define __stringify_1(x...)	#x
#define __stringify(x...)	__stringify_1(x)
#define __used			__attribute__((__used__))
#define __section(s)		__attribute__((__section__(s)))
#define __maybe_unused		__attribute__((__unused__))
#define __packed		__attribute__((__packed__))
#define __aligned(x)		__attribute__((__aligned__(x)))
#define __force
#define __user
#define __rcu
#define __iomem
#define notrace
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define is_signed_type(type)	(((type)(-1)) < (__force type)1)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BITS_PER_BYTE		8
#define BITS_PER_LONG		64
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]
#define IS_ENABLED(option)	0
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))

/* include/linux/types.h */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s8 __s8;
typedef s16 __s16;
typedef s32 __s32;
typedef s64 __s64;
typedef u16 __le16;
typedef u16 __be16;
typedef u32 __le32;
typedef u32 __be32;
typedef u64 __le64;
typedef u64 __be64;
typedef s64 ktime_t;
typedef unsigned int gfp_t;

/* The kernel's strlcpy() (glibc 2.36 has none): copy at most size - 1, always terminate. */
static inline size_t kh_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#define strlcpy kh_strlcpy

/* Time (include/vdso/time64.h, linux/time64.h). */
#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L
struct timespec64 {
	s64 tv_sec;
	long tv_nsec;
};
struct itimerspec64 {
	struct timespec64 it_interval;
	struct timespec64 it_value;
};

/* CPU masks (include/linux/cpumask.h): 64 possible CPUs, 4 of them present. */
#define NR_CPUS		64
#define nr_cpumask_bits	NR_CPUS
struct cpumask {
	DECLARE_BITMAP(bits, NR_CPUS);
};
typedef struct cpumask cpumask_t;
#define cpumask_bits(maskp)	((maskp)->bits)
#define num_possible_cpus()	4
static inline void kh_init_cpumask(struct cpumask *m)
{
	m->bits[0] = 0x5;
}

/* Tasks (include/linux/sched.h). */
#define TASK_COMM_LEN	16
struct task_struct {
	char comm[TASK_COMM_LEN];
	pid_t pid;
	pid_t tgid;
	int prio;
};
static inline void kh_init_task_struct(struct task_struct *t)
{
	strcpy(t->comm, "kh-task");
	t->pid = 4242;
	t->tgid = 4240;
	t->prio = 120;
}

struct pid {
	int nr;
};
static inline pid_t pid_nr(struct pid *pid)
{
	return pid ? pid->nr : 0;
}
static inline void kh_init_pid(struct pid *p)
{
	p->nr = 77;
}

/* Signals (include/linux/signal_types.h, sched/signal.h). */
struct kernel_siginfo {
	int si_signo;
	int si_errno;
	int si_code;
};
/* The kernel's struct sigaction (glibc's spells sa_handler as a macro of its own). */
#undef sa_handler
struct kh_sigaction {
	void (*sa_handler)(int);
	unsigned long sa_flags;
};
struct k_sigaction {
	struct kh_sigaction sa;
};
#define SEND_SIG_NOINFO	((struct kernel_siginfo *) 0)
#define SEND_SIG_PRIV	((struct kernel_siginfo *) 1)

/* Interrupts (include/linux/interrupt.h). */
struct irqaction {
	const char *name;
};
static inline void kh_init_irqaction(struct irqaction *a)
{
	a->name = "kh-irq";
}
struct softirq_action;
struct tasklet_struct;
enum {
	HI_SOFTIRQ = 0,
	TIMER_SOFTIRQ,
	NET_TX_SOFTIRQ,
	NET_RX_SOFTIRQ,
	BLOCK_SOFTIRQ,
	IRQ_POLL_SOFTIRQ,
	TASKLET_SOFTIRQ,
	SCHED_SOFTIRQ,
	HRTIMER_SOFTIRQ,
	RCU_SOFTIRQ,
	NR_SOFTIRQS
};

/* Timers (include/linux/timer.h, hrtimer.h, tick.h). */
#define TIMER_CPUMASK		0x0003FFFF
#define TIMER_MIGRATING		0x00040000
#define TIMER_BASEMASK		(TIMER_CPUMASK | TIMER_MIGRATING)
#define TIMER_DEFERRABLE	0x00080000
#define TIMER_PINNED		0x00100000
#define TIMER_IRQSAFE		0x00200000
#define TIMER_INIT_FLAGS	(TIMER_DEFERRABLE | TIMER_PINNED | TIMER_IRQSAFE)
#define TIMER_ARRAYSHIFT	22
#define TIMER_ARRAYMASK		0xFFC00000
#define TIMER_TRACE_FLAGMASK	(TIMER_MIGRATING | TIMER_DEFERRABLE | TIMER_PINNED | TIMER_IRQSAFE)
struct timer_list {
	unsigned long expires;
	void (*function)(struct timer_list *);
	u32 flags;
};
extern unsigned long volatile jiffies;

enum hrtimer_mode {
	HRTIMER_MODE_ABS	= 0x00,
	HRTIMER_MODE_REL	= 0x01,
	HRTIMER_MODE_PINNED	= 0x02,
	HRTIMER_MODE_SOFT	= 0x04,
	HRTIMER_MODE_HARD	= 0x08,
	HRTIMER_MODE_ABS_PINNED = HRTIMER_MODE_ABS | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_REL_PINNED = HRTIMER_MODE_REL | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_ABS_SOFT	= HRTIMER_MODE_ABS | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_SOFT	= HRTIMER_MODE_REL | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_ABS_PINNED_SOFT = HRTIMER_MODE_ABS_PINNED | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_PINNED_SOFT = HRTIMER_MODE_REL_PINNED | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_ABS_HARD	= HRTIMER_MODE_ABS | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_HARD	= HRTIMER_MODE_REL | HRTIMER_MODE_HARD,
	HRTIMER_MODE_ABS_PINNED_HARD = HRTIMER_MODE_ABS_PINNED | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_PINNED_HARD = HRTIMER_MODE_REL_PINNED | HRTIMER_MODE_HARD,
};
struct hrtimer {
	ktime_t node_expires;
	ktime_t _softexpires;
	int (*function)(struct hrtimer *);
};
static inline s64 hrtimer_get_expires(const struct hrtimer *timer)
{
	return timer->node_expires;
}
static inline s64 hrtimer_get_softexpires(const struct hrtimer *timer)
{
	return timer->_softexpires;
}
static inline void kh_init_hrtimer(struct hrtimer *t)
{
	t->node_expires = 5000000;
	t->_softexpires = 4000000;
}

#define CONFIG_NO_HZ_COMMON 1
enum tick_dep_bits {
	TICK_DEP_BIT_POSIX_TIMER	= 0,
	TICK_DEP_BIT_PERF_EVENTS	= 1,
	TICK_DEP_BIT_SCHED		= 2,
	TICK_DEP_BIT_CLOCK_UNSTABLE	= 3,
	TICK_DEP_BIT_RCU		= 4,
	TICK_DEP_BIT_RCU_EXP		= 5
};
#define TICK_DEP_BIT_MAX TICK_DEP_BIT_RCU_EXP
#define TICK_DEP_MASK_NONE		0
#define TICK_DEP_MASK_POSIX_TIMER	(1 << TICK_DEP_BIT_POSIX_TIMER)
#define TICK_DEP_MASK_PERF_EVENTS	(1 << TICK_DEP_BIT_PERF_EVENTS)
#define TICK_DEP_MASK_SCHED		(1 << TICK_DEP_BIT_SCHED)
#define TICK_DEP_MASK_CLOCK_UNSTABLE	(1 << TICK_DEP_BIT_CLOCK_UNSTABLE)
#define TICK_DEP_MASK_RCU		(1 << TICK_DEP_BIT_RCU)
#define TICK_DEP_MASK_RCU_EXP		(1 << TICK_DEP_BIT_RCU_EXP)

/* What the generated callers (gen_fire.py) use. */
#define KH_OBJ_SIZE	8192
#define KH_OBJ_PTRS	16
#define KH_SCALAR(type, k) ({							\
	union { type v; unsigned char b[sizeof(type)]; } kh_u_;			\
	memset(&kh_u_, 0, sizeof(kh_u_));					\
	kh_u_.b[0] = (k);							\
	kh_u_.v; })
static inline void kh_fill_ptrs(void **ptrs)
{
	static unsigned char blocks[KH_OBJ_PTRS][KH_OBJ_SIZE] __attribute__((aligned(64)));
	int i;

	for (i = 0; i < KH_OBJ_PTRS; i++)
		ptrs[i] = blocks[i];
}

#endif /* KH_KERNEL_TYPES_H */
