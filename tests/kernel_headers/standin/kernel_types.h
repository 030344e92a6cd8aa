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
struct task_struct {
	char comm[TASK_COMM_LEN];
	pid_t pid;
	pid_t tgid;
	int prio;
	int normal_prio;
	int exit_state;
	struct signal_struct *signal;
	int kh_cpu;		/* task_cpu() */
	int kh_numa_group;	/* task_numa_group_id() */
};
extern struct signal_struct kh_signal;
static inline void kh_init_task_struct(struct task_struct *t)
{
	strcpy(t->comm, "kh-task");
	t->pid = 4242;
	t->tgid = 4240;
	t->prio = 120;
	t->normal_prio = 120;
	t->signal = &kh_signal;
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
