/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rewriting 5-byte sites of the program's text while other threads run them
 * (x86-64): the int3 protocol with membarrier(SYNC_CORE) and a SIGTRAP
 * handler that finishes what a thread hit half-way; the near stubs that
 * reach a far target; writing text through /proc/self/mem. The function
 * tracer (src/ftrace/) patches function entries with it, the jump labels of
 * tracepoint guards (src/tracepoint/jump_label.c) their asm goto sites.
 * docs/function-tracer.md, "Patching", has the protocol and its pitfalls.
 *
 * A site is 5 bytes holding one of three instructions:
 *
 *   nop5:  0f 1f 44 00 00      nopl 0x0(%rax,%rax,1)
 *   call:  e8 <rel32>          call stub-or-trampoline   (function entries)
 *   jmp:   e9 <rel32>          jmp target                (jump labels)
 *
 * Changing a batch of sites from one to the other (trev__text_patch_batch()):
 *
 *   1. publish the batch (sorted by address) for the SIGTRAP handler
 *   2. byte 0 of every site := 0xcc (int3);             sync_core
 *   3. bytes 1-4 of every site := the new ones;         sync_core
 *   4. byte 0 of every site := the new one;             sync_core
 *   5. unpublish; wait until no handler still reads the batch
 *
 * sync_core is membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE): when
 * it returns, every thread of the process has serialized its instruction
 * stream, so none still executes bytes it fetched before the write. Between
 * 2 and 4 a thread that reaches a site traps on byte 0 and never sees bytes
 * 1-4 half-written; the handler then does what the site's new instruction
 * does (calls the trampoline, jumps, or steps over the nop), so a call made
 * during the change is either traced whole or not traced, never torn.
 *
 * Locking: text_lock serializes every batch and every write of a site (its
 * users' own locks are taken before it, never under it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "base/log.h"
#include "patch/probe_site.h"
#include "patch/text_patch.h"

#define INT3		0xcc
#define CALL_REL32	0xe8
#define JMP_REL32	0xe9

const uint8_t trev__text_nop5[TEXT_SITE_SIZE] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* ------------------------------------------------------------------ */
/* Writing text                                                         */

static pthread_mutex_t text_lock = PTHREAD_MUTEX_INITIALIZER;
static int mem_fd = -1;		/* /proc/self/mem, opened on first use (text_lock) */
static pid_t mem_pid;		/* the process that opened it (text_lock) */

/*
 * Write @len bytes at @addr of the program's text. Through /proc/self/mem:
 * the kernel writes into the mapping with FOLL_FORCE, so the text is never
 * writable to the program. Where /proc is missing or refuses, the page is
 * made writable for the store and put back to r-x.
 * Context: holds text_lock.
 */
static int text_write(uintptr_t addr, const void *bytes, size_t len)
{
	/*
	 * A fork()ed child inherits the descriptor, which still writes into
	 * the parent's memory: the child opens its own.
	 */
	if (mem_fd >= 0 && mem_pid != getpid()) {
		close(mem_fd);
		mem_fd = -1;
	}
	if (mem_fd < 0) {
		mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
		mem_pid = getpid();
	}
	if (mem_fd >= 0 && pwrite(mem_fd, bytes, len, (off_t)addr) == (ssize_t)len)
		return 0;

	{
		long pg = sysconf(_SC_PAGESIZE);
		uintptr_t lo = addr & ~(uintptr_t)(pg - 1);
		size_t span = (size_t)(addr + len - lo);
		volatile uint8_t *dst = (volatile uint8_t *)addr;

		if (mprotect((void *)lo, span, PROT_READ | PROT_WRITE | PROT_EXEC))
			return -errno;
		for (size_t i = 0; i < len; i++)
			dst[i] = ((const uint8_t *)bytes)[i];
		if (mprotect((void *)lo, span, PROT_READ | PROT_EXEC))
			return -errno;
	}
	return 0;
}

static bool membarrier_ok;

/*
 * The registration is the process's (its mm's); a fork()ed child inherits
 * it (measured on 6.18: the child's first SYNC_CORE returns 0).
 * Context: holds text_lock.
 */
static void sync_core(void)
{
	if (membarrier_ok)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

/* Register for SYNC_CORE once. Return: 0, or -ENOSYS when the kernel lacks it. */
static int sync_core_init(void)
{
	long q;

	if (membarrier_ok)
		return 0;
	q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (q < 0 || !(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) ||
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0))
		return -ENOSYS;
	membarrier_ok = true;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The SIGTRAP handler                                                  */

/* The batch being applied, for the handler. */
struct text_batch {
	const struct trev_text_patch *p;	/* sorted by addr */
	size_t n;
};

static _Atomic(struct text_batch *) cur_batch;
static _Atomic(const struct trev_text_moves *) cur_moves;	/* with cur_batch, or NULL */

/*
 * The threads a batch with moves signalled (text_lock): each handler sets
 * its own entry's @done. sival_ptr of the signal is &move_token.
 */
struct text_mover {
	pid_t tid;
	atomic_int done;
};
static struct text_mover *movers;
static _Atomic size_t nr_movers;
static int move_token;
static atomic_int moves_left;		/* movers not done yet, a futex */

static void trap_move(greg_t *gr);
static atomic_int handlers_in;		/* handlers between reading cur_batch and done */
static struct sigaction old_trap;	/* the handler before ours; chained to */
static atomic_ulong traps_done;		/* int3s of a batch the handler finished */
static bool trap_installed;

static const struct trev_text_patch *batch_find(const struct text_batch *b, uintptr_t addr)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->p[mid].addr == addr)
			return &b->p[mid];
		if (b->p[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Not our int3: whatever the program had, or the default (which ends it). */
static void trap_chain(int sig, siginfo_t *si, void *uc)
{
	if (old_trap.sa_flags & SA_SIGINFO) {
		old_trap.sa_sigaction(sig, si, uc);
	} else if (old_trap.sa_handler != SIG_DFL && old_trap.sa_handler != SIG_IGN) {
		old_trap.sa_handler(sig);
	} else {
		/* The int3 runs again and kills the process as it would have. */
		signal(SIGTRAP, SIG_DFL);
	}
}

/*
 * A batch with moves signalled this thread between its steps 2 and 3
 * (move_handler()): if
 * it stopped inside the old bytes of a site, move it (probe_site.c says
 * where), then say it is done.
 * Context: SIGTRAP, any thread; async-signal-safe.
 */
static void trap_move(greg_t *gr)
{
	const struct trev_text_moves *mv = atomic_load(&cur_moves);
	pid_t me = (pid_t)syscall(SYS_gettid);
	size_t n = atomic_load(&nr_movers);

	if (mv && mv->move) {
		uintptr_t to = mv->move((uintptr_t)gr[REG_RIP]);

		if (to)
			gr[REG_RIP] = (greg_t)to;
	}
	for (size_t i = 0; i < n; i++)
		if (movers[i].tid == me) {
			atomic_store(&movers[i].done, 1);
			/* Wakes the patcher (text_move_threads()). */
			if (atomic_fetch_sub(&moves_left, 1) == 1)
				syscall(SYS_futex, &moves_left, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
			break;	/* the patcher may free @movers now */
		}
}

/*
 * The signal of the moves: one of the real-time signals, not SIGTRAP, which
 * is not queued: a thread that executes a site's int3 while a move signal
 * is pending loses the int3's SIGTRAP, and its handler, seeing ip = site + 1,
 * could not tell it from a thread stopped after the site's first
 * instruction. Its handler ignores what it did not send.
 * Context: any thread; async-signal-safe.
 */
static void move_handler(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	if (si->si_code == SI_QUEUE && si->si_pid == getpid() &&
	    si->si_value.sival_ptr == &move_token)
		trap_move(((ucontext_t *)ucv)->uc_mcontext.gregs);
}

static int move_sig;	/* the signal of the moves, once chosen (text_lock) */

/*
 * The highest real-time signal the program leaves at its default (or that
 * has move_handler already), with move_handler installed; it stays
 * installed (a late signal must not take the default action, which ends the
 * process). Return: the signal, or -EBUSY (the program uses every one).
 * Context: holds text_lock.
 */
static int move_sig_get(void)
{
	struct sigaction cur, sa;

	for (int sig = move_sig ? move_sig : SIGRTMAX; sig >= SIGRTMIN + 4; sig--) {
		if (sigaction(sig, NULL, &cur))
			continue;
		if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == move_handler)
			return move_sig = sig;
		if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL) {
			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = move_handler;
			sa.sa_flags = SA_SIGINFO | SA_RESTART;
			sigemptyset(&sa.sa_mask);
			if (sigaction(sig, &sa, NULL))
				continue;
			return move_sig = sig;
		}
	}
	return -EBUSY;
}

/*
 * A thread hit byte 0 of a site while a batch changes it: do what the new
 * instruction does. For a call, push the return address below the
 * interrupted rsp (the kernel put the signal frame below the red zone, and
 * nothing is live below rsp at a function's entry) and go to its target;
 * for a jmp, go to its target; for the nop, go past it.
 * Context: SIGTRAP, any thread; async-signal-safe.
 */
static void trap_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *gr = uc->uc_mcontext.gregs;
	uintptr_t site = (uintptr_t)gr[REG_RIP] - 1;
	const struct trev_text_patch *p = NULL;
	struct text_batch *b;

	if (si->si_code != SI_KERNEL) {
		trap_chain(sig, si, ucv);
		return;
	}
	/*
	 * Sequentially consistent, as the patcher's store of NULL and load of
	 * handlers_in: either it sees this handler, or this handler sees NULL.
	 */
	atomic_fetch_add(&handlers_in, 1);
	b = atomic_load(&cur_batch);
	if (b)
		p = batch_find(b, site);
	if (p) {
		atomic_fetch_add_explicit(&traps_done, 1, memory_order_relaxed);
		if (p->bytes[0] == CALL_REL32) {
			int32_t rel;
			uintptr_t *sp = (uintptr_t *)(uintptr_t)gr[REG_RSP];

			memcpy(&rel, p->bytes + 1, sizeof(rel));
			*--sp = site + TEXT_SITE_SIZE;
			gr[REG_RSP] = (greg_t)(uintptr_t)sp;
			gr[REG_RIP] = (greg_t)(site + TEXT_SITE_SIZE + (intptr_t)rel);
		} else if (p->bytes[0] == JMP_REL32) {
			int32_t rel;

			memcpy(&rel, p->bytes + 1, sizeof(rel));
			gr[REG_RIP] = (greg_t)(site + TEXT_SITE_SIZE + (intptr_t)rel);
		} else if (!memcmp(p->bytes, trev__text_nop5, TEXT_SITE_SIZE)) {
			gr[REG_RIP] = (greg_t)(site + TEXT_SITE_SIZE);
		} else {
			/* The original instructions of a relocated prologue, out of line. */
			const struct trev_text_moves *mv = atomic_load(&cur_moves);
			uintptr_t to = mv && mv->trap_to ? mv->trap_to(site) : 0;

			if (to)
				gr[REG_RIP] = (greg_t)to;
			else
				p = NULL;
		}
	}
	atomic_fetch_sub(&handlers_in, 1);
	if (p)
		return;
	/* A probe's int3 (probe_site.c) */
	if (trev__site_trap(uc, site))
		return;
	/*
	 * Trapped on an int3 that is gone now: a batch finished between the
	 * trap and this handler. Run the site again, as it is now.
	 */
	if (*(volatile const uint8_t *)site != INT3) {
		gr[REG_RIP] = (greg_t)site;
		return;
	}
	trap_chain(sig, si, ucv);
}

/*
 * Install the handler, or put it back if the program replaced it (the
 * program's then becomes the one chained to). Context: holds text_lock.
 */
static int trap_install(void)
{
	struct sigaction sa, cur;

	if (sigaction(SIGTRAP, NULL, &cur))
		return -errno;
	if (trap_installed && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == trap_handler)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (trap_installed)
		trev__log(TREV_LOG_WARN, "text patching: SIGTRAP's handler was replaced; "
			  "trev's is put back and calls the program's\n");
	old_trap = cur;
	if (sigaction(SIGTRAP, &sa, NULL))
		return -errno;
	trap_installed = true;
	return 0;
}

#if defined(__SANITIZE_THREAD__)
#define TEXT_TSAN	1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEXT_TSAN	1
#endif
#endif

/*
 * Signals 1-31 but SIGKILL and SIGSTOP: the mask of a thread that blocks
 * everything it can, as ThreadSanitizer's own background thread does. In a
 * TSan build such a thread is taken for the runtime's (it never runs the
 * program's functions) and not counted; docs/function-tracer.md.
 */
#define TEXT_ALL_BLOCKABLE	(0x7fffffffull & ~(1ull << (SIGKILL - 1)) & ~(1ull << (SIGSTOP - 1)))

static bool trap_mask_fatal(unsigned long long mask)
{
	if (!(mask & (1ull << (SIGTRAP - 1))))
		return false;
#ifdef TEXT_TSAN
	if ((mask & TEXT_ALL_BLOCKABLE) == TEXT_ALL_BLOCKABLE)
		return false;
#endif
	return true;
}

/*
 * The id of a thread that blocks SIGTRAP (it would die at an int3), or 0.
 * Reads /proc/self/task/{*}/status: SigBlk is the blocked mask in hex.
 */
static pid_t trap_blocker(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char path[300], line[128];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long mask;

			if (sscanf(line, "SigBlk: %llx", &mask) == 1) {
				if (trap_mask_fatal(mask))
					found = (pid_t)atoi(de->d_name);
				break;
			}
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

void (*trev__text_step_hook)(int step);

unsigned long trev__text_traps(void)
{
	return atomic_load_explicit(&traps_done, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Batches                                                              */

static int patch_cmp(const void *a, const void *b)
{
	const struct trev_text_patch *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool task_alive(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) == 0;
}

/*
 * Whether thread @tid can be left unsignalled although it blocks the move
 * signal @sig (trev's control thread blocks all but SIGTRAP; a program's
 * sigwaitinfo() thread blocks everything): it is parked in a system call
 * (/proc's "syscall" file) at a return address @mv->move does not move
 * (0: outside the old bytes). It can only come back to a site through byte 0, the int3. Return: 1
 * (it does not block @sig: signal it), 0 (parked outside: leave it),
 * -EAGAIN (it blocks @sig and runs, or is parked inside the old bytes).
 */
static int move_needs_signal(pid_t tid, int sig, const struct trev_text_moves *mv)
{
	char path[64], line[512];
	unsigned long long blk = 0;
	bool blocks = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &blk) == 1) {
			blocks = (blk >> (sig - 1)) & 1;
			break;
		}
	fclose(f);
	if (!blocks)
		return 1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -EAGAIN;
	if (!fgets(line, sizeof(line), f) || !strncmp(line, "running", 7) ||
	    !strncmp(line, "-1", 2)) {
		fclose(f);
		return -EAGAIN;
	}
	fclose(f);
	{
		/* "NR ARG1 .. ARG6 SP PC": the last word is where the call returns to. */
		char *last = strrchr(line, ' ');
		uintptr_t pc = last ? (uintptr_t)strtoull(last + 1, NULL, 16) : 0;

		if (!pc || (mv && mv->move && mv->move(pc)))
			return -EAGAIN;
	}
	return 0;
}

/*
 * Signal every other thread of the process and wait until each ran
 * trap_move() or is gone; a thread that blocks the signal and is parked
 * in a system call outside the old bytes is left as it is
 * (move_needs_signal()). A thread started meanwhile starts in the C
 * library, never inside a site. Context: holds text_lock, the batch's
 * int3s written and synced.
 * Return: 0, or -EIO (a thread that lives on did not take the signal).
 */
static int text_move_threads(const struct trev_text_moves *mv)
{
	pid_t me = (pid_t)syscall(SYS_gettid), pid = getpid();
	size_t cap = 64, n = 0;
	struct text_mover *m = calloc(cap, sizeof(*m));
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int ret = 0, park = 1, sig = move_sig_get();

	if (sig < 0) {
		free(m);
		if (d)
			closedir(d);
		trev__log(TREV_LOG_ERR, "text patching: every real-time signal is the program's: "
			  "no signal to move threads with\n");
		return sig;
	}
	if (!m || !d) {
		free(m);
		if (d)
			closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || tid == me)
			continue;
		/* One that blocks the signal: parked outside, or refused after about 100 ms. */
		for (int tries = 0; tries < 100; tries++) {
			park = move_needs_signal(tid, sig, mv);
			if (park != -EAGAIN)
				break;
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		}
		if (park == 0)
			continue;
		if (park < 0) {
			trev__log(TREV_LOG_ERR, "text patching: thread %d blocks the move signal "
				  "and is not parked in a system call\n", (int)tid);
			ret = -EBUSY;
			break;
		}
		if (n == cap) {
			struct text_mover *q = realloc(m, 2 * cap * sizeof(*m));

			if (!q) {
				ret = -ENOMEM;
				break;
			}
			m = q;
			cap *= 2;
		}
		m[n].tid = tid;
		atomic_init(&m[n].done, 0);
		n++;
	}
	closedir(d);
	if (ret) {
		free(m);
		return ret;
	}
	movers = m;
	atomic_store(&moves_left, (int)n);
	atomic_store(&nr_movers, n);
	for (size_t i = 0; i < n; i++) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		si.si_signo = sig;
		si.si_code = SI_QUEUE;
		si.si_pid = pid;
		si.si_uid = getuid();
		si.si_value.sival_ptr = &move_token;
		if (syscall(SYS_rt_tgsigqueueinfo, pid, m[i].tid, sig, &si)) {
			atomic_store(&m[i].done, 1);	/* gone already */
			atomic_fetch_sub(&moves_left, 1);
		}
	}
	/*
	 * Every thread takes the signal when it next runs (none blocks SIGTRAP:
	 * the batch checked); one that exits first never does. The bound only
	 * ends a wait for a thread that stays alive and never runs.
	 */
	for (unsigned long k = 0; !ret; k++) {
		int left = atomic_load(&moves_left);
		bool gone_all = true;

		if (left <= 0)
			break;
		/* Sleep until the last one is done; every 10 ms, see which are gone. */
		syscall(SYS_futex, &moves_left, FUTEX_WAIT_PRIVATE, left,
			&(struct timespec){ .tv_nsec = 10000000 }, NULL, 0);
		for (size_t i = 0; i < n; i++)
			if (!atomic_load(&m[i].done) && task_alive(m[i].tid))
				gone_all = false;
		if (gone_all)
			break;
		if (k > 100000)		/* a thread alive and not run for about 17 minutes */
			ret = -EIO;
	}
	atomic_store(&nr_movers, 0);
	/* Handlers that read @movers are done: each set its flag last, or its thread is gone. */
	movers = NULL;
	if (!ret)
		free(m);	/* else leaked: a late handler may still read it */
	return ret;
}

static int text_patch_batch_locked(struct trev_text_patch *p, size_t n,
				   const struct trev_text_moves *mv, pid_t *blocker)
{
	static const uint8_t int3 = INT3;
	struct text_batch b = { p, n };
	uint8_t *old0 = NULL;	/* byte 0 of each site before, for a batch with moves */
	int ret;

	ret = sync_core_init();
	if (ret)
		return ret;
	ret = trap_install();
	if (ret)
		return ret;
	/*
	 * Some threads block every signal for a moment without running any of
	 * the program's code: liburcu-bp does while a thread registers and
	 * during a grace period, glibc while a thread starts or exits. Only a
	 * thread still blocking SIGTRAP after about 100 ms refuses the batch.
	 */
	for (int tries = 0; (*blocker = trap_blocker()) && tries < 100; tries++)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	if (*blocker)
		return -EBUSY;
	qsort(p, n, sizeof(*p), patch_cmp);
	if (mv && mv->move) {
		old0 = malloc(n);
		if (!old0)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			old0[i] = *(volatile const uint8_t *)p[i].addr;
	}
	atomic_store(&cur_moves, mv);
	atomic_store_explicit(&cur_batch, &b, memory_order_release);
	for (size_t i = 0; i < n && !ret; i++)
		ret = text_write(p[i].addr, &int3, 1);
	sync_core();
	if (trev__text_step_hook)
		trev__text_step_hook(2);
	if (!ret && mv && mv->move) {
		ret = text_move_threads(mv);
		if (ret) {
			/* Nobody is inside bytes 1-4 that we know of: put byte 0 back. */
			for (size_t i = 0; i < n; i++)
				text_write(p[i].addr, &old0[i], 1);
			sync_core();
		}
	}
	for (size_t i = 0; i < n && !ret; i++)
		ret = text_write(p[i].addr + 1, p[i].bytes + 1, TEXT_SITE_SIZE - 1);
	sync_core();
	if (trev__text_step_hook)
		trev__text_step_hook(3);
	for (size_t i = 0; i < n && !ret; i++)
		ret = text_write(p[i].addr, p[i].bytes, 1);
	sync_core();
	atomic_store(&cur_batch, NULL);
	atomic_store(&cur_moves, NULL);
	/* A handler that read the batch finishes with it before @b goes (pairs with trap_handler()). */
	while (atomic_load(&handlers_in))
		sched_yield();
	free(old0);
	if (ret)
		trev__log(TREV_LOG_ERR, "text patching: writing text failed: %s\n",
			  strerror(-ret));
	return ret;
}

int trev__text_patch_batch(struct trev_text_patch *p, size_t n, pid_t *blocker)
{
	int ret;

	*blocker = 0;
	if (!n)
		return 0;
	pthread_mutex_lock(&text_lock);
	ret = text_patch_batch_locked(p, n, NULL, blocker);
	pthread_mutex_unlock(&text_lock);
	return ret;
}

int trev__text_patch_batch_moves(struct trev_text_patch *p, size_t n,
				 const struct trev_text_moves *mv, pid_t *blocker)
{
	int ret;

	*blocker = 0;
	if (!n)
		return 0;
	pthread_mutex_lock(&text_lock);
	ret = text_patch_batch_locked(p, n, mv, blocker);
	pthread_mutex_unlock(&text_lock);
	return ret;
}

int trev__text_poke(uintptr_t addr, const void *bytes, size_t len, int trap, pid_t *blocker)
{
	int ret = 0;

	*blocker = 0;
	pthread_mutex_lock(&text_lock);
	if (trap) {
		ret = sync_core_init();
		if (!ret)
			ret = trap_install();
		for (int tries = 0; !ret && (*blocker = trap_blocker()) && tries < 100; tries++)
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		if (!ret && *blocker)
			ret = -EBUSY;
	}
	if (!ret)
		ret = text_write(addr, bytes, len);
	if (!ret)
		sync_core();
	pthread_mutex_unlock(&text_lock);
	return ret;
}

int trev__text_init(uintptr_t addr, const uint8_t *bytes)
{
	int ret;

	pthread_mutex_lock(&text_lock);
	ret = text_write(addr, bytes, TEXT_SITE_SIZE);
	if (!ret && membarrier_ok)
		sync_core();
	pthread_mutex_unlock(&text_lock);
	return ret;
}

void trev__text_make_rel32(uint8_t out[TEXT_SITE_SIZE], enum trev_text_insn insn,
			   uintptr_t site, uintptr_t target)
{
	int32_t rel = (int32_t)(intptr_t)(target - (site + TEXT_SITE_SIZE));

	out[0] = insn == TREV_TEXT_JMP ? JMP_REL32 : CALL_REL32;
	memcpy(out + 1, &rel, sizeof(rel));
}

/* ------------------------------------------------------------------ */
/* Near stubs                                                           */

#define STUB_SIZE	4096
#define STUB_STEP	(64u << 10)

/* [@lo, @hi] and [@at, @at + @size) lie within a rel32's reach of each other. */
static bool in_reach(uintptr_t lo, uintptr_t hi, uintptr_t at, size_t size)
{
	uintptr_t l = at < lo ? at : lo;
	uintptr_t h = at + size > hi ? at + size : hi;

	return h - l < (uintptr_t)INT32_MAX - 16;
}

static void *near_try(uintptr_t at, size_t size)
{
	void *p = mmap((void *)at, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if ((uintptr_t)p != at) {	/* a kernel that ignores the flag */
		munmap(p, size);
		return NULL;
	}
	return p;
}

void *trev__text_near_map(uintptr_t lo, uintptr_t hi, size_t size)
{
	size_t span = (size + STUB_STEP - 1) & ~(size_t)(STUB_STEP - 1);
	void *s = NULL;

	/* Free space below the object, then above it, within reach of all its sites. */
	for (uintptr_t at = (lo & ~(uintptr_t)(STUB_STEP - 1)) - span;
	     !s && at > span && at < lo && in_reach(lo, hi, at, size); at -= STUB_STEP)
		s = near_try(at, size);
	for (uintptr_t at = (hi + STUB_STEP) & ~(uintptr_t)(STUB_STEP - 1);
	     !s && at > hi && in_reach(lo, hi, at, size); at += STUB_STEP)
		s = near_try(at, size);
	return s;
}

int trev__text_stub_get(uintptr_t lo, uintptr_t hi, uintptr_t tramp, uintptr_t *target,
			void **stub)
{
	uint8_t *s;

	*stub = NULL;
	if (in_reach(lo, hi, tramp, 1)) {
		*target = tramp;
		return 0;
	}
	s = trev__text_near_map(lo, hi, STUB_SIZE);
	if (!s)
		return -ENOMEM;
	/* jmp *0(%rip); .quad tramp */
	s[0] = 0xff;
	s[1] = 0x25;
	memset(s + 2, 0, 4);
	memcpy(s + 6, &tramp, sizeof(tramp));
	if (mprotect(s, STUB_SIZE, PROT_READ | PROT_EXEC)) {
		int ret = -errno;

		munmap(s, STUB_SIZE);
		return ret;
	}
	*stub = s;
	*target = (uintptr_t)s;
	return 0;
}

void trev__text_stub_put(void *stub)
{
	if (stub)
		munmap(stub, STUB_SIZE);
}
