// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The program whose tracefs tree the kernel's ftracetest runs against (ftracetest.sh): the
 * kernel's own sched, irq, timer, kmem and signal event headers compiled with trev (the two
 * include lines changed, tests/kernel_headers/'s stand-ins), and their events fired from a
 * thread named "ft-events" every millisecond, as the kernel fires them all the time, until
 * SIGTERM. The thread also calls functions named as the kernel's (ft_funcs.c), for the
 * function tracer's cases, and allocates with a kmalloc event whose call_site is its own
 * code (ft_kmem.h).
 *
 * ftracetest's hist cases fork its shell and look for sched_process_fork with the shell's
 * comm and pid: a thread "ft-forks" listens to the kernel's process events connector
 * (netlink, root only) and fires sched_process_fork and sched_process_exit for the forks and
 * exits of process ROOT and its descendants (ftracetest.sh, and so ftracetest's shells), with
 * the pids and comms the kernel's events have; the event thread does not fire those two. Only
 * those: the rest of the machine's would change a hist between two reads of a case that
 * compares them (trigger-multihist's named hist on both events). The thread runs SCHED_FIFO,
 * so each event is fired before the shell goes on, as the kernel's. Without the connector (not
 * root, no CONFIG_PROC_EVENTS) it says so on stderr and the rest goes on.
 *
 *	ft_target ROOT	prints "ready PID" once the thread runs and the control socket listens
 *
 * SIGTERM ends it with exit(0), so the library's exit handlers run.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include <trev/trev.h>

#include "ft_funcs.h"

/* One per header, from gen_fire.py's kh_fire_all() renamed (ftracetest.sh). */
void ft_fire_sched(void);
void ft_fire_irq(void);
void ft_fire_timer(void);
void ft_fire_kmem(void);
void ft_fire_signal(void);
/* In the sched translation unit (ft_sched.h). */
void ft_sched_fork(int parent_pid, const char *parent_comm, int child_pid,
		   const char *child_comm);
void ft_sched_exit(int pid, const char *comm);
/* In the kmem translation unit (ft_kmem.h): malloc, kmalloc event, free. */
void ft_kmalloc(size_t size);

static sem_t running;		/* posted once the thread has its name */

static void *ft_events(void *arg)
{
	const struct timespec ms = { 0, 1000000 };

	(void)arg;
	pthread_setname_np(pthread_self(), "ft-events");
	sem_post(&running);
	for (;;) {
		ft_fire_sched();
		ft_fire_irq();
		ft_fire_timer();
		ft_fire_kmem();
		ft_fire_signal();
		ft_funcs_run();
		ft_kmalloc(64);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

/* The comm of thread @tid, as the kernel's task->comm; "" if it is gone already. */
static void ft_comm(int tid, char comm[16])
{
	char path[64];
	ssize_t n;
	int fd;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, 15);
	close(fd);
	if (n <= 0)
		n = 0;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/* The process events connector, subscribed; -errno. */
static int ft_forks_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	union {
		struct nlmsghdr nl;
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))];
	} req;
	struct cn_msg *cn;
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	int fd;

	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto out_close;
	memset(&req, 0, sizeof(req));
	req.nl.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	req.nl.nlmsg_type = NLMSG_DONE;
	req.nl.nlmsg_pid = (unsigned int)getpid();
	cn = NLMSG_DATA(&req.nl);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (send(fd, &req, req.nl.nlmsg_len, 0) < 0)
		goto out_close;
	return fd;

out_close:
	{
		int err = -errno;

		close(fd);
		return err;
	}
}

/*
 * The live processes of ROOT's tree, as the connector told them (ft-forks only): ROOT, then
 * each child of one of them. A full table takes no more (said once on stderr).
 */
#define FT_TREE_MAX	4096
static int tree[FT_TREE_MAX];
static int tree_len;

static int ft_tree_find(int pid)
{
	for (int i = 0; i < tree_len; i++)
		if (tree[i] == pid)
			return i;
	return -1;
}

static void ft_tree_add(int pid)
{
	static int said;

	if (ft_tree_find(pid) >= 0)
		return;
	if (tree_len < FT_TREE_MAX) {
		tree[tree_len++] = pid;
	} else if (!said) {
		said = 1;
		fprintf(stderr, "ft_target: more than %d live processes under ROOT\n",
			FT_TREE_MAX);
	}
}

/* The connector's fork or exit, as sched_process_fork or _exit when it is ROOT's tree's. */
static void ft_proc_event(const struct proc_event *ev)
{
	char comm[16];
	int i;

	switch (ev->what) {
	case PROC_EVENT_FORK:
		if (ft_tree_find(ev->event_data.fork.parent_pid) < 0 &&
		    ft_tree_find(ev->event_data.fork.parent_tgid) < 0)
			return;
		ft_tree_add(ev->event_data.fork.child_pid);
		/*
		 * The kernel's fork runs kernel_clone(), whose locks func_stack_tracer.tc's
		 * stack_trace shows right after the shell's fork (docs/ftracetest.md).
		 */
		kernel_clone();
		/* A child starts with its parent's comm, as the kernel's event shows it. */
		ft_comm(ev->event_data.fork.parent_pid, comm);
		ft_sched_fork(ev->event_data.fork.parent_pid, comm, ev->event_data.fork.child_pid,
			      comm);
		break;
	case PROC_EVENT_EXIT:
		i = ft_tree_find(ev->event_data.exit.process_pid);
		if (i < 0)
			return;
		tree[i] = tree[--tree_len];
		ft_comm(ev->event_data.exit.process_pid, comm);
		ft_sched_exit(ev->event_data.exit.process_pid, comm);
		break;
	default:
		break;
	}
}

/* Every fork and exit the connector reports. */
static void *ft_forks(void *arg)
{
	int fd = (int)(long)arg;
	union {
		struct nlmsghdr nl;
		char buf[8192];
	} msg;

	pthread_setname_np(pthread_self(), "ft-forks");
	/*
	 * The kernel queues the connector's message at the fork itself; a
	 * real-time thread runs as soon as it is queued, so the event is
	 * fired before the shell's next command (a grep of snapshot, say)
	 * can read the tree, as with the kernel's own event, however loaded
	 * the machine.
	 */
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO,
				  &(struct sched_param){ .sched_priority = 10 }))
		fprintf(stderr, "ft_target: ft-forks stays a normal thread: its events may come "
			"after the shell's next command\n");
	for (;;) {
		ssize_t len = recv(fd, &msg, sizeof(msg), 0);
		struct nlmsghdr *nl;

		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0)
			break;
		for (nl = &msg.nl; NLMSG_OK(nl, (size_t)len); nl = NLMSG_NEXT(nl, len)) {
			struct cn_msg *cn = NLMSG_DATA(nl);
			struct proc_event ev;

			if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn)) ||
			    cn->len < sizeof(ev) ||
			    nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(ev)))
				continue;
			memcpy(&ev, cn->data, sizeof(ev));
			ft_proc_event(&ev);
		}
	}
	fprintf(stderr, "ft_target: the process events connector ended: %s\n",
		strerror(errno));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t thread;
	char *end;
	long root;
	int forks;

	root = argc == 2 ? strtol(argv[1], &end, 10) : 0;
	if (argc != 2 || *end || root <= 0 || root > INT32_MAX) {
		fprintf(stderr, "usage: ft_target ROOT (a process id)\n");
		return 2;
	}
	tree[tree_len++] = (int)root;
	sigset_t term;
	int sig;

	/* SIGTERM blocked in every thread and taken here, so exit() runs its handlers. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);
	/* The library's start-up (and with it the control socket) before "ready". */
	if (trev_write("tracing_on", "1")) {
		fprintf(stderr, "ft_target: tracing_on: cannot write\n");
		return 1;
	}
	sem_init(&running, 0, 0);
	if (pthread_create(&thread, NULL, ft_events, NULL)) {
		fprintf(stderr, "ft_target: cannot start the event thread\n");
		return 1;
	}
	while (sem_wait(&running))
		;
	forks = ft_forks_open();
	if (forks < 0)
		fprintf(stderr, "ft_target: no process events connector (%s): "
			"no sched_process_fork or _exit\n", strerror(-forks));
	else if (pthread_create(&thread, NULL, ft_forks, (void *)(long)forks))
		fprintf(stderr, "ft_target: cannot start the fork thread\n");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (sigwait(&term, &sig))
		;
	return 0;
}
