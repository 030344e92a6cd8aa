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
 * compares them (trigger-multihist's named hist on both events). For an exec in the tree
 * (the inter-event cases' `ping`) it fires sched_process_exec, then sched_waking,
 * sched_wakeup and sched_switch from ft-forks to the new program, as the scheduler's of its
 * first run, with its comm, prio and CPU from /proc. The thread runs SCHED_FIFO, so each
 * event is fired before the shell goes on, as the kernel's. Without the connector (not root,
 * no CONFIG_PROC_EVENTS) it says so on stderr and the rest goes on.
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
#include "ft_task.h"

/* One per header, from gen_fire.py's kh_fire_all() renamed (ftracetest.sh). */
void ft_fire_sched(void);
void ft_fire_irq(void);
void ft_fire_timer(void);
void ft_fire_kmem(void);
void ft_fire_signal(void);
/* The sched translation unit's (ft_sched.h) are in ft_task.h. */
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
	/*
	 * Every process event of the machine comes here (only the tree's are
	 * kept): a parallel build beside the run makes thousands a second, and a
	 * full queue drops them (ENOBUFS). Root may go past rmem_max.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){ 32 << 20 }, sizeof(int)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){ 32 << 20 }, sizeof(int));
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
 * @tid's prio and CPU from /proc/PID/task/TID/stat: field 18, priority, is the kernel's
 * p->prio - MAX_RT_PRIO (100), field 39 the CPU it last ran on. -1 if it is gone or the line
 * is not understood (the comm, field 2, may hold spaces and parentheses: the fields after it
 * are counted from its last ')').
 */
static int ft_stat(int tid, struct ft_task *t)
{
	char path[64], buf[1024], *p, *end;
	long prio = 0, cpu = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* p is at field 2's end; each space starts the next field. */
	for (field = 2; field < 39; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
		if (field + 1 == 18 || field + 1 == 39) {
			long v = strtol(p, &end, 10);

			if (end == p || (*end != ' ' && *end != '\n'))
				return -1;
			if (field + 1 == 18)
				prio = v;
			else
				cpu = v;
		}
	}
	if (prio < -100 || prio > 40 || cpu < 0 || cpu > 65535)
		return -1;
	t->prio = (int)prio + 100;
	t->cpu = (int)cpu;
	return 0;
}

/*
 * The live processes of ROOT's tree, as the connector told them (ft-forks only): ROOT, then
 * each child of one of them, with its comm as the kernel's task->comm (the parent's at the
 * fork, read from /proc at an exec, the connector's at a comm change), so the exit has it
 * even when the process is reaped before ft-forks reads it. A full table takes no more (said
 * once on stderr).
 */
#define FT_TREE_MAX	4096
static struct {
	int pid;
	char comm[16];
} tree[FT_TREE_MAX];
static int tree_len;

static int ft_tree_find(int pid)
{
	for (int i = 0; i < tree_len; i++)
		if (tree[i].pid == pid)
			return i;
	return -1;
}

static void ft_tree_add(int pid, const char *comm)
{
	static int said;

	if (ft_tree_find(pid) >= 0)
		return;
	if (tree_len < FT_TREE_MAX) {
		tree[tree_len].pid = pid;
		snprintf(tree[tree_len].comm, sizeof(tree[tree_len].comm), "%s", comm);
		tree_len++;
	} else if (!said) {
		said = 1;
		fprintf(stderr, "ft_target: more than %d live processes under ROOT\n",
			FT_TREE_MAX);
	}
}

/*
 * An exec of @pid, a process of the tree: sched_process_exec as the kernel's exec fires it
 * (the file the process now runs; pid and old_pid the same, as for a process that is its
 * only thread), then the scheduler's events of the new program's first run: sched_waking and
 * sched_wakeup of it, and sched_switch from ft-forks (@self), the task switched out as it
 * goes back to wait for the connector, to it. Its comm and prio are read now, when ft-forks
 * runs at the exec (SCHED_FIFO), before the program can change them.
 */
static void ft_exec(int i, const struct ft_task *self)
{
	struct ft_task t = { .pid = tree[i].pid };
	char path[64], filename[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", t.pid);
	n = readlink(path, filename, sizeof(filename) - 1);
	ft_comm(t.pid, t.comm);
	if (n <= 0 || !t.comm[0] || ft_stat(t.pid, &t))
		return;		/* gone already: no event of a task the kernel no longer has */
	filename[n] = '\0';
	snprintf(tree[i].comm, sizeof(tree[i].comm), "%s", t.comm);
	ft_sched_exec(&t, t.pid, filename);
	ft_sched_wake(&t);
	ft_sched_switch_to(self, &t);
}

/*
 * The connector's fork, exec, comm change or exit, as the kernel's sched events when it is
 * ROOT's tree's. @self is ft-forks.
 */
static void ft_proc_event(const struct proc_event *ev, const struct ft_task *self)
{
	char comm[16];
	int i;

	switch (ev->what) {
	case PROC_EVENT_FORK:
		i = ft_tree_find(ev->event_data.fork.parent_pid);
		if (i < 0)
			i = ft_tree_find(ev->event_data.fork.parent_tgid);
		if (i < 0)
			return;
		/* A child starts with its parent's comm, as the kernel's event shows it. */
		ft_comm(ev->event_data.fork.parent_pid, comm);
		if (!comm[0])
			snprintf(comm, sizeof(comm), "%s", tree[i].comm);
		ft_tree_add(ev->event_data.fork.child_pid, comm);
		/*
		 * The kernel's fork runs kernel_clone(), whose locks func_stack_tracer.tc's
		 * stack_trace shows right after the shell's fork (docs/ftracetest.md).
		 */
		kernel_clone(NULL);
		/*
		 * The kernel records the fork in the parent's context: the thread that
		 * fires it carries the parent's name meanwhile, which is what
		 * common_pid.execname shows (trigger-hist-mod.tc).
		 */
		pthread_setname_np(pthread_self(), comm);
		ft_sched_fork(ev->event_data.fork.parent_pid, comm, ev->event_data.fork.child_pid,
			      comm);
		pthread_setname_np(pthread_self(), "ft-forks");
		break;
	case PROC_EVENT_EXEC:
		i = ft_tree_find(ev->event_data.exec.process_pid);
		if (i >= 0)
			ft_exec(i, self);
		break;
	case PROC_EVENT_COMM:
		i = ft_tree_find(ev->event_data.comm.process_pid);
		if (i >= 0)
			snprintf(tree[i].comm, sizeof(tree[i].comm), "%.*s",
				 (int)sizeof(ev->event_data.comm.comm) - 1,
				 ev->event_data.comm.comm);
		break;
	case PROC_EVENT_EXIT:
		i = ft_tree_find(ev->event_data.exit.process_pid);
		if (i < 0)
			return;
		ft_sched_exit(ev->event_data.exit.process_pid, tree[i].comm);
		tree[i] = tree[--tree_len];
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

	struct ft_task self = { .pid = (int)gettid() };

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
	/* Itself as sched_switch's prev: its comm, and the prio SCHED_FIFO gave it. */
	ft_comm(self.pid, self.comm);
	if (ft_stat(self.pid, &self))
		fprintf(stderr, "ft_target: cannot read ft-forks' own /proc stat\n");
	for (;;) {
		ssize_t len = recv(fd, &msg, sizeof(msg), 0);
		struct nlmsghdr *nl;

		if (len < 0 && errno == EINTR)
			continue;
		/* Messages were dropped: say so (a case may miss a fork) and go on. */
		if (len < 0 && errno == ENOBUFS) {
			fprintf(stderr, "ft_target: the process events connector dropped messages "
				"(ENOBUFS): a fork or exit of the tree may be missing\n");
			continue;
		}
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
			ft_proc_event(&ev, &self);
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
	tree[0].pid = (int)root;
	ft_comm((int)root, tree[0].comm);
	tree_len = 1;
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
