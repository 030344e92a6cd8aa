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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

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
/* IS_ENABLED(CONFIG_FOO): 1 when CONFIG_FOO is defined as 1 (include/linux/kconfig.h's idea). */
#define __KH_ARG_PLACEHOLDER_1	0,
#define __kh_second(ignored, val, ...) val
#define __kh_is_defined(x)	___kh_is_defined(x)
#define ___kh_is_defined(val)	____kh_is_defined(__KH_ARG_PLACEHOLDER_##val)
#define ____kh_is_defined(arg1_or_junk) __kh_second(arg1_or_junk 1, 0)
#define IS_ENABLED(option)	__kh_is_defined(option)
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
struct signal_struct;
struct mm_struct;
struct task_struct {
	char comm[TASK_COMM_LEN];
	pid_t pid;
	pid_t tgid;
	int prio;
	int normal_prio;
	int exit_state;
	struct signal_struct *signal;
	struct mm_struct *mm;
	unsigned int flags;
	int nr_dirtied_pause;
	unsigned long dirty_paused_when;
	int kh_cpu;		/* task_cpu() */
	int kh_numa_group;	/* task_numa_group_id() */
};
extern struct signal_struct kh_signal;
extern struct mm_struct kh_mm;
static inline void kh_init_task_struct(struct task_struct *t)
{
	strcpy(t->comm, "kh-task");
	t->pid = 4242;
	t->tgid = 4240;
	t->prio = 120;
	t->normal_prio = 120;
	t->signal = &kh_signal;
	t->mm = &kh_mm;
	t->kh_cpu = 1;
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

/* Kernel configuration: the options the corpus headers test, as Debian's amd64 config sets them. */
#define CONFIG_64BIT 1
#define CONFIG_X86 1
#define CONFIG_SMP 1
#define CONFIG_MMU 1
#define CONFIG_NUMA 1
#define CONFIG_MODULES 1
#define CONFIG_MODULE_UNLOAD 1
#define CONFIG_TREE_RCU 1
#define CONFIG_PREEMPT_RCU 1
#define CONFIG_RCU_NOCB_CPU 1
#define CONFIG_SCHED_DEBUG 1
#define CONFIG_SCHEDSTATS 1
#define CONFIG_DETECT_HUNG_TASK 1
#define CONFIG_NUMA_BALANCING 1
#define CONFIG_NET_RX_BUSY_POLL 1
#define CONFIG_IPV6 1
#define CONFIG_COMPACTION 1
#define CONFIG_MEMCG 1
#define CONFIG_CGROUP_WRITEBACK 1
#define CONFIG_ARCH_USES_PG_UNCACHED 1
#define CONFIG_MEMORY_FAILURE 1
#define CONFIG_ZONE_DMA 1
#define CONFIG_ZONE_DMA32 1
#define CONFIG_TRANSPARENT_HUGEPAGE 1

#define BUG_ON(cond)		((void)(cond))
#define WARN_ON_ONCE(cond)	(cond)
#define READ_ONCE(x)		(x)
#define atomic_read(v)		((v)->counter)
typedef struct {
	int counter;
} atomic_t;
typedef struct {
	long counter;
} atomic_long_t;
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}
#define cpu_to_node(cpu)	((cpu) % 2)
#define smp_processor_id()	0
#define raw_smp_processor_id()	0
#define NUMA_NO_NODE		(-1)

/* Task states and the other task members the sched/task headers read (include/linux/sched.h). */
#define TASK_RUNNING			0x00000000
#define TASK_INTERRUPTIBLE		0x00000001
#define TASK_UNINTERRUPTIBLE		0x00000002
#define __TASK_STOPPED			0x00000004
#define __TASK_TRACED			0x00000008
#define EXIT_DEAD			0x00000010
#define EXIT_ZOMBIE			0x00000020
#define EXIT_TRACE			(EXIT_ZOMBIE | EXIT_DEAD)
#define TASK_PARKED			0x00000040
#define TASK_DEAD			0x00000080
#define TASK_WAKEKILL			0x00000100
#define TASK_WAKING			0x00000200
#define TASK_NOLOAD			0x00000400
#define TASK_NEW			0x00000800
#define TASK_RTLOCK_WAIT		0x00001000
#define TASK_FREEZABLE			0x00002000
#define TASK_FROZEN			0x00008000
#define TASK_STATE_MAX			0x00010000
#define TASK_IDLE			(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_REPORT			(TASK_RUNNING | TASK_INTERRUPTIBLE | \
					 TASK_UNINTERRUPTIBLE | __TASK_STOPPED | \
					 __TASK_TRACED | EXIT_DEAD | EXIT_ZOMBIE | \
					 TASK_PARKED)
#define TASK_REPORT_IDLE	(TASK_REPORT + 1)
#define TASK_REPORT_MAX		(TASK_REPORT_IDLE << 1)
static inline unsigned int __task_state_index(unsigned int tsk_state, unsigned int tsk_exit_state)
{
	unsigned int state = (tsk_state | tsk_exit_state) & TASK_REPORT;

	if ((tsk_state & TASK_IDLE) == TASK_IDLE)
		state = TASK_REPORT_IDLE;
	if ((tsk_state & TASK_RTLOCK_WAIT) || (tsk_state & TASK_FROZEN))
		state = TASK_UNINTERRUPTIBLE;
	return fls(state);
}
#define task_cpu(p)		((p)->kh_cpu)
#define task_pid_nr(p)		((p)->pid)
#define task_tgid_nr(p)		((p)->tgid)
#define task_numa_group_id(p)	((p)->kh_numa_group)
extern struct task_struct kh_current_task;
#define current			(&kh_current_task)
struct signal_struct {
	short oom_score_adj;
};
static inline void kh_init_signal_struct(struct signal_struct *s)
{
	s->oom_score_adj = -17;
}
struct linux_binprm {
	const char *filename;
};
static inline void kh_init_linux_binprm(struct linux_binprm *b)
{
	b->filename = "/bin/kh-exec";
}
enum numa_vmaskip_reason {
	NUMAB_SKIP_UNSUITABLE,
	NUMAB_SKIP_SHARED_RO,
	NUMAB_SKIP_INACCESSIBLE,
	NUMAB_SKIP_SCAN_DELAY,
	NUMAB_SKIP_PID_INACTIVE,
};

/* kthreads and workqueues (include/linux/kthread.h, workqueue.h, workqueue_internal.h). */
struct cfs_rq;
struct rq;
struct sched_entity;
struct root_domain;
struct kthread_work;
typedef void (*kthread_work_func_t)(struct kthread_work *work);
struct kthread_work {
	kthread_work_func_t func;
};
struct kthread_worker {
	int flags;
};
struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);
struct work_struct {
	work_func_t func;
};
#define WQ_NAME_LEN 24
struct workqueue_struct {
	char name[WQ_NAME_LEN];
};
struct worker_pool {
	int cpu;
};
struct pool_workqueue {
	struct worker_pool *pool;
	struct workqueue_struct *wq;
};
extern struct workqueue_struct kh_workqueue;
extern struct worker_pool kh_worker_pool;
static inline void kh_init_pool_workqueue(struct pool_workqueue *pwq)
{
	pwq->pool = &kh_worker_pool;
	pwq->wq = &kh_workqueue;
}

/* Modules (include/linux/module.h, panic.h) and initcalls (init.h). */
#define MODULE_NAME_LEN		56
#define TAINT_PROPRIETARY_MODULE	0
#define TAINT_FORCED_MODULE		1
#define TAINT_CRAP			10
#define TAINT_OOT_MODULE		12
#define TAINT_UNSIGNED_MODULE		13
struct module {
	char name[MODULE_NAME_LEN];
	unsigned long taints;
	atomic_t refcnt;
};
static inline int module_refcount(struct module *mod)
{
	return atomic_read(&mod->refcnt);
}
static inline void kh_init_module(struct module *mod)
{
	strcpy(mod->name, "kh_module");
	mod->taints = 1UL << TAINT_OOT_MODULE;
	mod->refcnt.counter = 2;
}
typedef int (*initcall_t)(void);

/* Networking (include/linux/skbuff.h, netdevice.h, if_vlan.h, ip.h, net/inet_sock.h). */
#define IFNAMSIZ	16
struct net_device {
	char name[IFNAMSIZ];
	int ifindex;
};
extern struct net_device kh_net_device;
static inline void kh_init_net_device(struct net_device *dev)
{
	strcpy(dev->name, "kh-eth0");
	dev->ifindex = 3;
}
static inline const char *netdev_drivername(const struct net_device *dev)
{
	return dev ? "kh-driver" : "";
}
struct skb_shared_info {
	u8 flags;
	u8 nr_frags;
	u8 tx_flags;
	unsigned short gso_size;
	unsigned short gso_segs;
	unsigned int gso_type;
};
struct sk_buff {
	struct net_device *dev;
	u32 mark;
	struct sock *sk;
	u16 queue_mapping;
	u8 ip_summed:2;
	u8 l4_hash:1;
	u8 vlan_present:1;
	__be16 vlan_proto;
	u16 vlan_tci;
	__be16 protocol;
	u16 transport_header;
	u16 network_header;
	u16 mac_header;
	u32 hash;
	unsigned int napi_id;
	unsigned int len;
	unsigned int data_len;
	unsigned int truesize;
	unsigned char *head;
	unsigned char *data;
	struct skb_shared_info kh_shinfo;
	unsigned char kh_head[256];
};
#define skb_shinfo(skb)		(&(skb)->kh_shinfo)
#define skb_vlan_tag_present(skb)	((skb)->vlan_present)
#define skb_vlan_tag_get(skb)		((skb)->vlan_tci)
#define skb_mac_header_was_set(skb)	((skb)->mac_header != (u16)~0U)
#define skb_transport_header_was_set(skb) ((skb)->transport_header != (u16)~0U)
#define skb_mac_header(skb)		((skb)->head + (skb)->mac_header)
#define skb_network_offset(skb)		((int)((skb)->network_header - ((skb)->data - (skb)->head)))
#define skb_transport_offset(skb)	((int)((skb)->transport_header - ((skb)->data - (skb)->head)))
static inline void kh_init_sk_buff(struct sk_buff *skb)
{
	skb->dev = &kh_net_device;
	skb->head = skb->kh_head;
	skb->data = skb->kh_head + 16;
	skb->mac_header = 2;
	skb->network_header = 16;
	skb->transport_header = 36;
	skb->len = 84;
	skb->truesize = 768;
	skb->protocol = 0x0008;
	skb->queue_mapping = 1;
	skb->kh_shinfo.nr_frags = 1;
}
struct napi_struct {
	struct net_device *dev;
	unsigned int napi_id;
};
static inline void kh_init_napi_struct(struct napi_struct *napi)
{
	napi->dev = &kh_net_device;
	napi->napi_id = 9;
}
#define NO_DEV "(no_device)"

/* Sockets (include/net/sock.h, inet_sock.h, tcp.h, request_sock.h, dropreason.h). */
typedef struct {
	int refs;
} refcount_t;
#define refcount_read(r)	((r)->refs)
struct proto {
	char name[32];
	long *sysctl_mem;
	int *sysctl_rmem;
	int *sysctl_wmem;
};
extern long kh_sysctl_mem[3];
extern int kh_sysctl_rmem[3];
extern int kh_sysctl_wmem[3];
static inline void kh_init_proto(struct proto *prot)
{
	strcpy(prot->name, "KHTCP");
	prot->sysctl_mem = kh_sysctl_mem;
	prot->sysctl_rmem = kh_sysctl_rmem;
	prot->sysctl_wmem = kh_sysctl_wmem;
}
#define SK_MEM_SEND	0
#define SK_MEM_RECV	1
struct sock {
	unsigned short sk_family;
	u16 sk_protocol;
	volatile unsigned char sk_state;
	int sk_rcvbuf;
	int sk_err;
	int sk_wmem_queued;
	atomic_t sk_rmem_alloc;
	refcount_t sk_wmem_alloc;
	struct in6_addr sk_v6_daddr;
	struct in6_addr sk_v6_rcv_saddr;
	struct proto *sk_prot;
};
struct ipv6_pinfo {
	struct in6_addr saddr;
};
struct inet_sock {
	struct sock sk;
	struct ipv6_pinfo kh_pinet6;	/* inet6_sk() */
	__be32 inet_saddr;
	__be32 inet_daddr;
	__be16 inet_sport;
	__be16 inet_dport;
	__u16 inet_num;
};
#define inet_sk(sk)	((struct inet_sock *)(sk))
#define inet6_sk(sk)	(&((struct inet_sock *)(sk))->kh_pinet6)
static inline int sk_get_rmem0(const struct sock *sk, const struct proto *proto)
{
	(void)sk;
	return proto->sysctl_rmem[0];
}
static inline int sk_get_wmem0(const struct sock *sk, const struct proto *proto)
{
	(void)sk;
	return proto->sysctl_wmem[0];
}
struct tcp_sock {
	struct inet_sock inet;
	u32 snd_nxt;
	u32 snd_una;
	u32 snd_wnd;
	u32 rcv_wnd;
	u32 srtt_us;
	u32 snd_cwnd;
	u32 snd_ssthresh;
};
#define tcp_sk(sk)	((struct tcp_sock *)(sk))
static inline u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}
static inline u32 tcp_current_ssthresh(const struct sock *sk)
{
	return tcp_sk(sk)->snd_ssthresh;
}
static inline u64 sock_gen_cookie(struct sock *sk)
{
	return (u64)(uintptr_t)sk >> 4;
}
static inline void kh_init_sock(struct sock *sk)
{
	struct inet_sock *inet = inet_sk(sk);

	sk->sk_family = AF_INET;
	sk->sk_protocol = IPPROTO_TCP;
	sk->sk_state = 1;
	sk->sk_rcvbuf = 131072;
	sk->sk_wmem_queued = 3;
	sk->sk_rmem_alloc.counter = 4096;
	inet->inet_saddr = htonl(0x0a000001);
	inet->inet_daddr = htonl(0x0a000002);
	inet->inet_sport = htons(4000);
	inet->inet_dport = htons(80);
	inet->inet_num = 4000;
	tcp_sk(sk)->snd_cwnd = 10;
	tcp_sk(sk)->snd_nxt = 0x1000;
}
struct tcphdr {
	__be16 source;
	__be16 dest;
	__be32 seq;
	__be32 ack_seq;
	__u16 res1:4, doff:4, fin:1, syn:1, rst:1, psh:1, ack:1, urg:1, ece:1, cwr:1;
	__be16 window;
	u16 check;
	__be16 urg_ptr;
};
static inline unsigned int __tcp_hdrlen(const struct tcphdr *th)
{
	return th->doff * 4;
}
struct iphdr {
	__u8 ihl:4, version:4;
	__u8 tos;
	__be16 tot_len;
	__be16 id;
	__be16 frag_off;
	__u8 ttl;
	__u8 protocol;
	u16 check;
	__be32 saddr;
	__be32 daddr;
};
struct ipv6hdr {
	__u8 priority:4, version:4;
	__u8 flow_lbl[3];
	__be16 payload_len;
	__u8 nexthdr;
	__u8 hop_limit;
	struct in6_addr saddr;
	struct in6_addr daddr;
};
#define ip_hdr(skb)	((struct iphdr *)((skb)->head + (skb)->network_header))
#define ipv6_hdr(skb)	((struct ipv6hdr *)((skb)->head + (skb)->network_header))
#define tcp_hdr(skb)	((struct tcphdr *)((skb)->head + (skb)->transport_header))
static inline void ipv6_addr_set_v4mapped(const __be32 addr, struct in6_addr *v4mapped)
{
	memset(v4mapped, 0, sizeof(*v4mapped));
	v4mapped->s6_addr[10] = 0xff;
	v4mapped->s6_addr[11] = 0xff;
	memcpy(&v4mapped->s6_addr[12], &addr, 4);
}
struct request_sock {
	struct sock *rsk_listener;
};
struct inet_request_sock {
	struct request_sock req;
	__be32 ir_loc_addr;
	__be32 ir_rmt_addr;
	__be16 ir_rmt_port;
	__u16 ir_num;
	struct in6_addr ir_v6_rmt_addr;
	struct in6_addr ir_v6_loc_addr;
};
#define inet_rsk(req)	((struct inet_request_sock *)(req))
enum {
	TCP_ESTABLISHED = 1,
	TCP_SYN_SENT,
	TCP_SYN_RECV,
	TCP_FIN_WAIT1,
	TCP_FIN_WAIT2,
	TCP_TIME_WAIT,
	TCP_CLOSE,
	TCP_CLOSE_WAIT,
	TCP_LAST_ACK,
	TCP_LISTEN,
	TCP_CLOSING,
	TCP_NEW_SYN_RECV,
	TCP_MAX_STATES
};
enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4
};

/* A subset of the drop reasons (include/net/dropreason.h), in its form: an FN() list. */
#define DEFINE_DROP_REASON(FN, FNe)	\
	FN(NOT_SPECIFIED)		\
	FN(NO_SOCKET)			\
	FN(PKT_TOO_SMALL)		\
	FN(TCP_CSUM)			\
	FNe(MAX)
enum skb_drop_reason {
	SKB_NOT_DROPPED_YET = 0,
	SKB_DROP_REASON_NOT_SPECIFIED,
	SKB_DROP_REASON_NO_SOCKET,
	SKB_DROP_REASON_PKT_TOO_SMALL,
	SKB_DROP_REASON_TCP_CSUM,
	SKB_DROP_REASON_MAX,
};

/* XDP and BPF (include/uapi/linux/bpf.h, net/xdp.h, net/xdp_priv.h; a subset of the map types). */
enum xdp_action {
	XDP_ABORTED = 0,
	XDP_DROP,
	XDP_PASS,
	XDP_TX,
	XDP_REDIRECT,
};
enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC = 0,
	BPF_MAP_TYPE_DEVMAP = 14,
	BPF_MAP_TYPE_DEVMAP_HASH = 25,
};
enum xdp_mem_type {
	MEM_TYPE_PAGE_SHARED = 0,
	MEM_TYPE_PAGE_ORDER0,
	MEM_TYPE_PAGE_POOL,
	MEM_TYPE_XSK_BUFF_POOL,
	MEM_TYPE_MAX,
};
struct bpf_prog_aux {
	u32 id;
};
struct bpf_prog {
	struct bpf_prog_aux *aux;
};
extern struct bpf_prog_aux kh_bpf_prog_aux;
static inline void kh_init_bpf_prog(struct bpf_prog *prog)
{
	prog->aux = &kh_bpf_prog_aux;
}
struct xdp_cpumap_stats {
	unsigned int redirect;
	unsigned int pass;
	unsigned int drop;
};
struct xdp_mem_info {
	u32 type;
	u32 id;
};
struct xdp_mem_allocator {
	struct xdp_mem_info mem;
	void *allocator;
};
struct xdp_rxq_info {
	struct net_device *dev;
	u32 queue_index;
	struct xdp_mem_info mem;
};
static inline void kh_init_xdp_rxq_info(struct xdp_rxq_info *rxq)
{
	rxq->dev = &kh_net_device;
}
struct page;

/* Power management and cpufreq (include/linux/pm.h, pm_qos.h, cpufreq.h, device.h). */
#define PM_EVENT_FREEZE		0x0001
#define PM_EVENT_SUSPEND	0x0002
#define PM_EVENT_HIBERNATE	0x0004
#define PM_EVENT_QUIESCE	0x0008
#define PM_EVENT_RESUME		0x0010
#define PM_EVENT_THAW		0x0020
#define PM_EVENT_RESTORE	0x0040
#define PM_EVENT_RECOVER	0x0080
enum pm_qos_req_action {
	PM_QOS_ADD_REQ,
	PM_QOS_UPDATE_REQ,
	PM_QOS_REMOVE_REQ
};
enum dev_pm_qos_req_type {
	DEV_PM_QOS_RESUME_LATENCY = 1,
	DEV_PM_QOS_LATENCY_TOLERANCE,
	DEV_PM_QOS_MIN_FREQUENCY,
	DEV_PM_QOS_MAX_FREQUENCY,
	DEV_PM_QOS_FLAGS,
};
struct device {
	struct device *parent;
	const char *kh_name;		/* dev_name() */
	const char *kh_driver;		/* dev_driver_string() */
	u32 devt;
};
static inline const char *dev_name(const struct device *dev)
{
	return dev->kh_name ? dev->kh_name : "";
}
static inline const char *dev_driver_string(const struct device *dev)
{
	return dev->kh_driver ? dev->kh_driver : "";
}
static inline void kh_init_device(struct device *dev)
{
	dev->kh_name = "kh-dev0";
	dev->kh_driver = "kh-drv";
}
struct cpufreq_policy {
	unsigned int cpu;
	unsigned int min;
	unsigned int max;
};
static inline void kh_init_cpufreq_policy(struct cpufreq_policy *policy)
{
	policy->cpu = 1;
	policy->min = 800000;
	policy->max = 3200000;
}

/*
 * Block devices (include/linux/blkdev.h, blk_types.h, kdev_t.h, buffer_head.h, blktrace_api.h).
 * dev_t stays glibc's (8 bytes; the kernel's is 4): both sides see the same.
 */
#define MINORBITS	20
#define MINORMASK	((1U << MINORBITS) - 1)
#define MAJOR(dev)	((unsigned int) ((dev) >> MINORBITS))
#define MINOR(dev)	((unsigned int) ((dev) & MINORMASK))
#define MKDEV(ma,mi)	(((ma) << MINORBITS) | (mi))
typedef u64 sector_t;
typedef u8 blk_status_t;
typedef u32 blk_opf_t;
struct gendisk {
	dev_t kh_devt;
};
#define disk_devt(disk)	((disk)->kh_devt)
struct request_queue {
	struct gendisk *disk;
};
extern struct request_queue kh_request_queue;
struct block_device {
	dev_t bd_dev;
};
extern struct block_device kh_block_device;
struct bvec_iter {
	sector_t bi_sector;
	unsigned int bi_size;
};
struct bio {
	struct block_device *bi_bdev;
	blk_opf_t bi_opf;
	blk_status_t bi_status;
	struct bvec_iter bi_iter;
};
#define bio_dev(bio)		((bio)->bi_bdev ? (bio)->bi_bdev->bd_dev : 0)
#define bio_sectors(bio)	((bio)->bi_iter.bi_size >> 9)
static inline void kh_init_bio(struct bio *bio)
{
	bio->bi_bdev = &kh_block_device;
	bio->bi_opf = 1;
	bio->bi_iter.bi_sector = 2048;
	bio->bi_iter.bi_size = 4096;
}
struct request {
	struct request_queue *q;
	blk_opf_t cmd_flags;
	sector_t __sector;
	unsigned int __data_len;
	struct bio *bio;
};
#define blk_rq_pos(rq)			((rq)->__sector)
#define blk_rq_bytes(rq)		((rq)->__data_len)
#define blk_rq_sectors(rq)		(blk_rq_bytes(rq) >> 9)
#define blk_rq_trace_sector(rq)		blk_rq_pos(rq)
#define blk_rq_trace_nr_sectors(rq)	blk_rq_sectors(rq)
#define blk_rq_count_bios(rq)		((rq)->bio ? 1U : 0U)
static inline void kh_init_request(struct request *rq)
{
	rq->q = &kh_request_queue;
	rq->cmd_flags = 1;
	rq->__sector = 4096;
	rq->__data_len = 8192;
}
static inline int blk_status_to_errno(blk_status_t status)
{
	return status ? -EIO : 0;
}
/* The kernel's rwbs: W/R/D/F/N, then F, S, M, A, M (a subset: the op and sync bits). */
static inline void blk_fill_rwbs(char *rwbs, blk_opf_t opf)
{
	int i = 0;

	rwbs[i++] = (opf & 1) ? 'W' : 'R';
	if (opf & (1u << 11))
		rwbs[i++] = 'S';
	rwbs[i] = '\0';
}
struct buffer_head {
	struct block_device *b_bdev;
	sector_t b_blocknr;
	size_t b_size;
};
static inline void kh_init_buffer_head(struct buffer_head *bh)
{
	bh->b_bdev = &kh_block_device;
	bh->b_blocknr = 99;
	bh->b_size = 4096;
}

/* Memory management: what trace/events/mmflags.h prints (linux/gfp_types.h, page-flags.h, mm.h,
 * mmzone.h, compaction.h), with the kernel's values. */
#define ___GFP_DMA		0x01u
#define ___GFP_HIGHMEM		0x02u
#define ___GFP_DMA32		0x04u
#define ___GFP_MOVABLE		0x08u
#define ___GFP_RECLAIMABLE	0x10u
#define ___GFP_HIGH		0x20u
#define ___GFP_IO		0x40u
#define ___GFP_FS		0x80u
#define ___GFP_ZERO		0x100u
#define ___GFP_ATOMIC		0x200u
#define ___GFP_DIRECT_RECLAIM	0x400u
#define ___GFP_KSWAPD_RECLAIM	0x800u
#define ___GFP_WRITE		0x1000u
#define ___GFP_NOWARN		0x2000u
#define ___GFP_RETRY_MAYFAIL	0x4000u
#define ___GFP_NOFAIL		0x8000u
#define ___GFP_NORETRY		0x10000u
#define ___GFP_MEMALLOC		0x20000u
#define ___GFP_COMP		0x40000u
#define ___GFP_NOMEMALLOC	0x80000u
#define ___GFP_HARDWALL		0x100000u
#define ___GFP_THISNODE		0x200000u
#define ___GFP_ACCOUNT		0x400000u
#define ___GFP_ZEROTAGS		0x800000u
#define __GFP_DMA	((__force gfp_t)___GFP_DMA)
#define __GFP_HIGHMEM	((__force gfp_t)___GFP_HIGHMEM)
#define __GFP_DMA32	((__force gfp_t)___GFP_DMA32)
#define __GFP_MOVABLE	((__force gfp_t)___GFP_MOVABLE)
#define __GFP_RECLAIMABLE ((__force gfp_t)___GFP_RECLAIMABLE)
#define __GFP_WRITE	((__force gfp_t)___GFP_WRITE)
#define __GFP_HARDWALL   ((__force gfp_t)___GFP_HARDWALL)
#define __GFP_THISNODE	((__force gfp_t)___GFP_THISNODE)
#define __GFP_ACCOUNT	((__force gfp_t)___GFP_ACCOUNT)
#define __GFP_ATOMIC	((__force gfp_t)___GFP_ATOMIC)
#define __GFP_HIGH	((__force gfp_t)___GFP_HIGH)
#define __GFP_MEMALLOC	((__force gfp_t)___GFP_MEMALLOC)
#define __GFP_NOMEMALLOC ((__force gfp_t)___GFP_NOMEMALLOC)
#define __GFP_IO	((__force gfp_t)___GFP_IO)
#define __GFP_FS	((__force gfp_t)___GFP_FS)
#define __GFP_DIRECT_RECLAIM	((__force gfp_t)___GFP_DIRECT_RECLAIM)
#define __GFP_KSWAPD_RECLAIM	((__force gfp_t)___GFP_KSWAPD_RECLAIM)
#define __GFP_RECLAIM ((__force gfp_t)(___GFP_DIRECT_RECLAIM|___GFP_KSWAPD_RECLAIM))
#define __GFP_RETRY_MAYFAIL	((__force gfp_t)___GFP_RETRY_MAYFAIL)
#define __GFP_NOFAIL	((__force gfp_t)___GFP_NOFAIL)
#define __GFP_NORETRY	((__force gfp_t)___GFP_NORETRY)
#define __GFP_NOWARN	((__force gfp_t)___GFP_NOWARN)
#define __GFP_COMP	((__force gfp_t)___GFP_COMP)
#define __GFP_ZERO	((__force gfp_t)___GFP_ZERO)
#define __GFP_ZEROTAGS	((__force gfp_t)___GFP_ZEROTAGS)
#define GFP_ATOMIC	(__GFP_HIGH|__GFP_ATOMIC|__GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL	(__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_KERNEL_ACCOUNT (GFP_KERNEL | __GFP_ACCOUNT)
#define GFP_NOWAIT	(__GFP_KSWAPD_RECLAIM)
#define GFP_NOIO	(__GFP_RECLAIM)
#define GFP_NOFS	(__GFP_RECLAIM | __GFP_IO)
#define GFP_USER	(__GFP_RECLAIM | __GFP_IO | __GFP_FS | __GFP_HARDWALL)
#define GFP_DMA		__GFP_DMA
#define GFP_DMA32	__GFP_DMA32
#define GFP_HIGHUSER	(GFP_USER | __GFP_HIGHMEM)
#define GFP_HIGHUSER_MOVABLE	(GFP_HIGHUSER | __GFP_MOVABLE)
#define GFP_TRANSHUGE_LIGHT	((GFP_HIGHUSER_MOVABLE | __GFP_COMP | \
			 __GFP_NOMEMALLOC | __GFP_NOWARN) & ~__GFP_RECLAIM)
#define GFP_TRANSHUGE	(GFP_TRANSHUGE_LIGHT | __GFP_DIRECT_RECLAIM)

enum pageflags {
	PG_locked, PG_referenced, PG_uptodate, PG_dirty, PG_lru, PG_active, PG_workingset,
	PG_waiters, PG_error, PG_slab, PG_owner_priv_1, PG_arch_1, PG_reserved, PG_private,
	PG_private_2, PG_writeback, PG_head, PG_mappedtodisk, PG_reclaim, PG_swapbacked,
	PG_unevictable, PG_mlocked, PG_uncached, PG_hwpoison, __NR_PAGEFLAGS
};

#define BIT(nr)			(1UL << (nr))
#define VM_NONE		0x00000000
#define VM_READ		0x00000001
#define VM_WRITE	0x00000002
#define VM_EXEC		0x00000004
#define VM_SHARED	0x00000008
#define VM_MAYREAD	0x00000010
#define VM_MAYWRITE	0x00000020
#define VM_MAYEXEC	0x00000040
#define VM_MAYSHARE	0x00000080
#define VM_GROWSDOWN	0x00000100
#define VM_UFFD_MISSING	0x00000200
#define VM_PFNMAP	0x00000400
#define VM_UFFD_WP	0x00001000
#define VM_LOCKED	0x00002000
#define VM_IO           0x00004000
#define VM_SEQ_READ	0x00008000
#define VM_RAND_READ	0x00010000
#define VM_DONTCOPY	0x00020000
#define VM_DONTEXPAND	0x00040000
#define VM_LOCKONFAULT	0x00080000
#define VM_ACCOUNT	0x00100000
#define VM_NORESERVE	0x00200000
#define VM_HUGETLB	0x00400000
#define VM_SYNC		0x00800000
#define VM_ARCH_1	0x01000000
#define VM_WIPEONFORK	0x02000000
#define VM_DONTDUMP	0x04000000
#define VM_SOFTDIRTY	0
#define VM_MIXEDMAP	0x10000000
#define VM_HUGEPAGE	0x20000000
#define VM_NOHUGEPAGE	0x40000000
#define VM_MERGEABLE	BIT(31)
#define VM_PAT		VM_ARCH_1
#define VM_GROWSUP	VM_NONE
#define VM_UFFD_MINOR	VM_NONE

enum zone_type {
	ZONE_DMA,
	ZONE_DMA32,
	ZONE_NORMAL,
	ZONE_MOVABLE,
	ZONE_DEVICE,
	__MAX_NR_ZONES
};
#define LRU_BASE	0
#define LRU_ACTIVE	1
#define LRU_FILE	2
enum lru_list {
	LRU_INACTIVE_ANON = LRU_BASE,
	LRU_ACTIVE_ANON = LRU_BASE + LRU_ACTIVE,
	LRU_INACTIVE_FILE = LRU_BASE + LRU_FILE,
	LRU_ACTIVE_FILE = LRU_BASE + LRU_FILE + LRU_ACTIVE,
	LRU_UNEVICTABLE,
	NR_LRU_LISTS
};
enum compact_priority {
	COMPACT_PRIO_SYNC_FULL,
	MIN_COMPACT_PRIORITY = COMPACT_PRIO_SYNC_FULL,
	COMPACT_PRIO_SYNC_LIGHT,
	MIN_COMPACT_COSTLY_PRIORITY = COMPACT_PRIO_SYNC_LIGHT,
	DEF_COMPACT_PRIORITY = COMPACT_PRIO_SYNC_LIGHT,
	COMPACT_PRIO_ASYNC,
	INIT_COMPACT_PRIORITY = COMPACT_PRIO_ASYNC
};
enum compact_result {
	COMPACT_NOT_SUITABLE_ZONE,
	COMPACT_SKIPPED,
	COMPACT_DEFERRED,
	COMPACT_NO_SUITABLE_PAGE,
	COMPACT_CONTINUE,
	COMPACT_COMPLETE,
	COMPACT_PARTIAL_SKIPPED,
	COMPACT_CONTENDED,
	COMPACT_SUCCESS,
};
static inline bool compaction_failed(enum compact_result result)
{
	return result == COMPACT_COMPLETE;
}
static inline bool compaction_withdrawn(enum compact_result result)
{
	return result == COMPACT_SKIPPED || result == COMPACT_DEFERRED ||
	       result == COMPACT_CONTENDED || result == COMPACT_PARTIAL_SKIPPED;
}

/* Pages, folios, zones, nodes (include/linux/mm_types.h, mm.h, mmzone.h). */
#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define MAX_ORDER	11
struct address_space;
struct page {
	unsigned long flags;
	struct address_space *mapping;
	unsigned long index;
	unsigned long kh_pfn;		/* page_to_pfn() */
};
/* A folio begins as its first page does. */
struct folio {
	unsigned long flags;
	struct address_space *mapping;
	unsigned long index;
	unsigned long kh_pfn;
};
#define page_to_pfn(page)	((page) ? (page)->kh_pfn : 0UL)
/* x86-64's sparse vmemmap (asm-generic/memory_model.h, asm/pgtable_64*.h): an address, not read. */
extern unsigned long vmemmap_base;
#define VMEMMAP_START	vmemmap_base
#define vmemmap		((struct page *)VMEMMAP_START)
#define __pfn_to_page(pfn)	(vmemmap + (pfn))
#define pfn_to_page __pfn_to_page
#define folio_pfn(folio)	((folio)->kh_pfn)
#define page_folio(p)		((struct folio *)(p))
#define folio_page(folio, n)	((struct page *)(folio))
#define folio_nr_pages(folio)	1L
#define folio_index(folio)	((folio)->index)
#define folio_mapping(folio)	((folio)->mapping)
#define page_mapping(page)	((page)->mapping)
#define page_to_nid(page)	0
#define folio_nid(folio)	0
#define PageSwapBacked(page)	0
#define page_ref_count(page)	1
#define PageCompound(page)	0
#define compound_order(page)	0
extern struct address_space kh_address_space;
static inline void kh_init_page(struct page *page)
{
	page->flags = (1UL << PG_uptodate) | (1UL << PG_lru);
	page->mapping = &kh_address_space;
	page->kh_pfn = 0x1234;
	page->index = 7;
}
static inline void kh_init_folio(struct folio *folio)
{
	kh_init_page((struct page *)folio);
}
struct pglist_data {
	int node_id;
};
typedef struct pglist_data pg_data_t;
struct zone {
	struct pglist_data *zone_pgdat;
	const char *name;
	unsigned int compact_considered;
	unsigned int compact_defer_shift;
	int compact_order_failed;
};
extern struct pglist_data kh_pglist_data;
static inline void kh_init_zone(struct zone *zone)
{
	zone->zone_pgdat = &kh_pglist_data;
	zone->name = "Normal";
}
#define zone_idx(zone)		ZONE_NORMAL
#define zone_to_nid(zone)	((zone)->zone_pgdat ? (zone)->zone_pgdat->node_id : 0)
struct kmem_cache {
	unsigned int flags;
	const char *name;
	unsigned int size;
	unsigned int object_size;
};

/* Address spaces, slab, reclaim, compaction (mm_types.h, slab.h, vmstat.h, mm/internal.h). */
#define SLAB_ACCOUNT	((unsigned int)0x04000000U)
#define pageblock_order	9
#define get_pageblock_migratetype(page)	1
enum {
	MM_FILEPAGES,
	MM_ANONPAGES,
	MM_SWAPENTS,
	MM_SHMEMPAGES,
	NR_MM_COUNTERS
};
struct mm_struct {
	unsigned long total_vm;
	atomic_long_t rss_stat[NR_MM_COUNTERS];
	atomic_long_t pgtables_bytes;
};
#define get_mm_counter(mm, member)	((mm) ? (mm)->rss_stat[member].counter : 0L)
#define mm_pgtables_bytes(mm)		((mm) ? (unsigned long)(mm)->pgtables_bytes.counter : 0UL)
#define PF_KTHREAD	0x00200000
extern struct mm_struct kh_mm;
/* lib/vsprintf.c's %p hashing: here the address folded, not keyed. */
static inline int ptr_to_hashval(const void *ptr, unsigned long *hashval_out)
{
	*hashval_out = (unsigned long)(uintptr_t)ptr ^ 0x5a5a5a5aUL;
	return 0;
}
struct zoneref {
	struct zone *zone;
	int zone_idx;
};
extern struct zone kh_zone;
static inline void kh_init_zoneref(struct zoneref *z)
{
	z->zone = &kh_zone;
	z->zone_idx = ZONE_NORMAL;
}
struct compact_control {
	unsigned long nr_migratepages;
	unsigned long free_pfn;
	unsigned long migrate_pfn;
	struct zone *zone;
};
typedef unsigned isolate_mode_t;
enum vmscan_throttle_state {
	VMSCAN_THROTTLE_WRITEBACK,
	VMSCAN_THROTTLE_ISOLATED,
	VMSCAN_THROTTLE_NOPROGRESS,
	VMSCAN_THROTTLE_CONGESTED,
	NR_VMSCAN_THROTTLE,
};
#define ANON_AND_FILE	2
struct reclaim_stat {
	unsigned nr_dirty;
	unsigned nr_unqueued_dirty;
	unsigned nr_congested;
	unsigned nr_writeback;
	unsigned nr_immediate;
	unsigned nr_pageout;
	unsigned nr_activate[ANON_AND_FILE];
	unsigned nr_ref_keep;
	unsigned nr_unmap_fail;
	unsigned nr_lazyfree_fail;
};
struct shrink_control {
	gfp_t gfp_mask;
	int nid;
	unsigned long nr_to_scan;
	unsigned long nr_scanned;
};
struct shrinker {
	unsigned long (*scan_objects)(struct shrinker *, struct shrink_control *sc);
};
#define folio_is_file_lru(folio)	0
#define folio_order(folio)		0U

/* Files and inodes (include/linux/fs.h, errseq.h). */
typedef u32 errseq_t;
typedef unsigned short umode_t;
struct super_block {
	dev_t s_dev;
};
extern struct super_block kh_super_block;
struct inode {
	unsigned long i_ino;
	dev_t i_rdev;
	struct super_block *i_sb;
	umode_t i_mode;
	unsigned long i_state;
	unsigned long dirtied_when;
	struct address_space *i_mapping;
};
extern struct inode kh_inode;
struct address_space {
	struct inode *host;
	errseq_t wb_err;
	unsigned long writeback_index;
};
extern struct address_space kh_address_space;
struct file {
	struct address_space *f_mapping;
	errseq_t f_wb_err;
};
static inline void kh_init_address_space(struct address_space *m)
{
	m->host = &kh_inode;
	m->wb_err = 3;
}
static inline void kh_init_inode(struct inode *inode)
{
	inode->i_ino = 1234;
	inode->i_sb = &kh_super_block;
	inode->i_mapping = &kh_address_space;
}
static inline void kh_init_file(struct file *file)
{
	file->f_mapping = &kh_address_space;
	file->f_wb_err = 2;
}

/* Writeback (include/linux/fs.h's inode states, writeback.h, backing-dev*.h, memcontrol.h). */
typedef unsigned long pgoff_t;
#define HZ			250
#define I_DIRTY_SYNC		(1 << 0)
#define I_DIRTY_DATASYNC	(1 << 1)
#define I_DIRTY_PAGES		(1 << 2)
#define __I_NEW			3
#define I_NEW			(1 << __I_NEW)
#define I_WILL_FREE		(1 << 4)
#define I_FREEING		(1 << 5)
#define I_CLEAR			(1 << 6)
#define __I_SYNC		7
#define I_SYNC			(1 << __I_SYNC)
#define I_REFERENCED		(1 << 8)
#define I_DIRTY_TIME		(1 << 11)
enum wb_reason {
	WB_REASON_BACKGROUND,
	WB_REASON_VMSCAN,
	WB_REASON_SYNC,
	WB_REASON_PERIODIC,
	WB_REASON_LAPTOP_TIMER,
	WB_REASON_FS_FREE_SPACE,
	WB_REASON_FORKER_THREAD,
	WB_REASON_FOREIGN_FLUSH,
	WB_REASON_MAX,
};
enum writeback_sync_modes {
	WB_SYNC_NONE,
	WB_SYNC_ALL,
};
struct cgroup {
	u64 kh_ino;			/* cgroup_ino() */
};
#define cgroup_ino(cgrp)	((cgrp) ? (cgrp)->kh_ino : 1)
struct cgroup_subsys_state {
	struct cgroup *cgroup;
	int id;
};
extern struct cgroup_subsys_state kh_css;
struct mem_cgroup {
	struct cgroup_subsys_state css;
};
extern struct mem_cgroup kh_mem_cgroup;
#define folio_memcg(folio)	(&kh_mem_cgroup)
struct backing_dev_info {
	u64 id;
	const char *kh_dev_name;	/* bdi_dev_name() */
};
extern struct backing_dev_info kh_bdi;
static inline const char *bdi_dev_name(struct backing_dev_info *bdi)
{
	if (!bdi || !bdi->kh_dev_name)
		return "(unknown)";
	return bdi->kh_dev_name;
}
static inline void kh_init_backing_dev_info(struct backing_dev_info *bdi)
{
	bdi->id = 5;
	bdi->kh_dev_name = "8:0";
}
struct bdi_writeback {
	struct backing_dev_info *bdi;
	struct cgroup_subsys_state *memcg_css;
	unsigned long write_bandwidth;
	unsigned long avg_write_bandwidth;
	unsigned long dirty_ratelimit;
	unsigned long balanced_dirty_ratelimit;
};
extern struct bdi_writeback kh_bdi_writeback;
static inline void kh_init_bdi_writeback(struct bdi_writeback *wb)
{
	wb->bdi = &kh_bdi;
	wb->memcg_css = &kh_css;
	wb->write_bandwidth = 2560;
}
#define inode_to_bdi(inode)	(&kh_bdi)
#define inode_to_wb(inode)	(&kh_bdi_writeback)
struct writeback_control {
	long nr_to_write;
	long pages_skipped;
	loff_t range_start;
	loff_t range_end;
	enum writeback_sync_modes sync_mode;
	unsigned for_kupdate:1;
	unsigned for_background:1;
	unsigned tagged_writepages:1;
	unsigned for_reclaim:1;
	unsigned range_cyclic:1;
	unsigned for_sync:1;
	struct bdi_writeback *wb;
};
struct wb_writeback_work {
	long nr_pages;
	struct super_block *sb;
	enum writeback_sync_modes sync_mode;
	unsigned int tagged_writepages:1;
	unsigned int for_kupdate:1;
	unsigned int range_cyclic:1;
	unsigned int for_background:1;
	unsigned int for_sync:1;
	unsigned int auto_free:1;
	enum wb_reason reason;
};
struct wb_domain {
	unsigned long dirty_limit;
};
extern struct wb_domain global_wb_domain;
enum node_stat_item {
	NR_FILE_DIRTY,
	NR_WRITEBACK,
	NR_DIRTIED,
	NR_WRITTEN,
	NR_VM_NODE_STAT_ITEMS
};
#define global_node_page_state(item)	((unsigned long)(item) * 10)
/* The kernel's strscpy_pad(): copy, terminate, zero the rest; -E2BIG when truncated. */
static inline long strscpy_pad(char *dst, const char *src, size_t count)
{
	size_t len = strnlen(src, count);

	if (!count)
		return -E2BIG;
	if (len == count) {
		memcpy(dst, src, count - 1);
		dst[count - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len);
	memset(dst + len, 0, count - len);
	return (long)len;
}

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
