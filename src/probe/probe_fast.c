/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A probe hit at a patchable entry without the trampoline's full call
 * (docs/probes.md, "Where the site is, and what a hit costs"): the function
 * trampoline's fast call hands the site and its stack slot here when the
 * tracer is nop and no instance traces functions (trev_ft_probe_fast_fn).
 * The site is found in a hash table, the probe's compiled fetches read the
 * arguments (no interpreter), and the record goes straight into the ring's
 * reservation. Anything else — a string, an array, a bitfield, a
 * callee-saved register, a return probe, two probes on one site, a second
 * instance, a filter, a trigger, soft-disable, the ring's slow path —
 * returns TREV_FT_FULL having changed nothing, and probe_event.c's full
 * call does it as before: the records are the same bytes either way.
 *
 * Runs where the trampoline's fast calls run: this file is built as
 * src/ftrace/ft_fast.h says (general registers only), and calls nothing out
 * of line but the ring's RB_LEAVE_SLOW and the system calls of its memory
 * reads, made here with the syscall instruction (it touches no vector
 * register).
 */
#include "ftrace/ft_fast.h"	/* first: see there */

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <trev/tracepoint.h>

#include "base/rcu.h"
#include "probe/probe.h"
#include "write/write_api.h"

/* Where a compiled fetch starts. */
enum {
	PF_SRC_SLOT,		/* a register the trampoline saved: slot[word] */
	PF_SRC_IMM,		/* a constant: imm (the site, 0, -1, @ADDR, \IMM) */
	PF_SRC_SP,		/* the stack pointer at the entry: slot itself */
};

/* ------------------------------------------------------------------ */
/* Compiling                                                            */

/*
 * A word of struct trev_regs as the fast call has it (probe_hit()'s
 * registers): 1 with *@word (slot[*word]) or *@imm, 2 for sp; 0: not here.
 */
static int pf_reg(unsigned int i, uintptr_t addr, int *word, unsigned long *imm)
{
	switch (i) {
	case 4:	*word = -2; return 1;	/* bp: the trampoline's frame holds it */
	case 7:	*word = -10; return 1;	/* r10 */
	case 8:	*word = -9; return 1;	/* r9 */
	case 9:	*word = -8; return 1;	/* r8 */
	case 10: *word = -3; return 1;	/* ax */
	case 11: *word = -7; return 1;	/* cx */
	case 12: *word = -6; return 1;	/* dx */
	case 13: *word = -5; return 1;	/* si */
	case 14: *word = -4; return 1;	/* di */
	case 6: case 17: case 18: case 20:	/* r11, cs, flags, ss: 0 in a probe's registers */
		*word = 0; *imm = 0; return 3;
	case 15: *word = 0; *imm = (unsigned long)-1; return 3;	/* orig_ax */
	case 16: *word = 0; *imm = addr; return 3;		/* ip: the site */
	case 19: return 2;					/* sp */
	default: return 0;	/* r15-r12, bx: only the full call has them */
	}
}

static bool pf_compile_arg(const struct trev_probe_arg *a, uintptr_t addr, unsigned int at,
			   struct trev_probe_cfetch *c)
{
	static const unsigned char argregs[] = { 14, 13, 12, 11, 9, 8 };	/* di si dx cx r8 r9 */
	unsigned int reg;
	int k;

	if (a->dynamic || a->count || a->bitfield || a->nderef > TREV_PROBE_DEREF_MAX)
		return false;
	c->size = (unsigned char)a->type->size;
	c->at = (unsigned short)at;
	c->nread = 0;
	c->reg = 19;	/* sp */
	switch (a->base) {
	case TREV_PB_REG:
	case TREV_PB_ARG:
		if (a->base == TREV_PB_ARG && a->param >= 6) {
			/* At the entry: the return address at sp, then the 7th argument. */
			c->src = PF_SRC_SP;
			c->off[c->nread++] = 8l * (long)(a->param - 5);
			break;
		}
		reg = a->base == TREV_PB_ARG ? argregs[a->param] : a->param;
		c->reg = (unsigned char)reg;
		k = pf_reg(reg, addr, &c->word, &c->imm);
		c->noslot = !k;
		c->src = k == 1 ? PF_SRC_SLOT : k == 2 ? PF_SRC_SP : PF_SRC_IMM;
		break;
	case TREV_PB_STACK:
		c->src = PF_SRC_SP;
		c->off[c->nread++] = 8l * (long)a->param;
		break;
	case TREV_PB_STACKP:
		c->src = PF_SRC_SP;
		break;
	case TREV_PB_IMM:
		c->src = PF_SRC_IMM;
		c->rimm = true;
		c->imm = a->imm;
		break;
	default:
		return false;	/* $comm, a string immediate, $retval */
	}
	for (unsigned int k2 = 0; k2 + 1 < a->nderef; k2++)
		c->off[c->nread++] = a->deref[k2].offset;
	c->last = a->nderef > 0;
	c->last_off = c->last ? a->deref[a->nderef - 1].offset : 0;
	c->slow = c->nread || c->last || c->src == PF_SRC_SP;
	return true;
}

struct trev_probe_fast *trev__probe_compile(const struct trev_probe_def *def, uintptr_t addr,
					    unsigned int fixed, unsigned int base)
{
	struct trev_probe_fast *f;

	if (def->is_return || fixed > 8 + 8 * TREV_PROBE_FAST_WORDS || base != 16)
		return NULL;
	f = calloc(1, sizeof(*f) + def->nr_args * sizeof(f->a[0]));
	if (!f)
		return NULL;
	f->site = addr;
	f->where = &f->site;
	f->fixed = fixed;
	f->nargs = def->nr_args;
	f->slot_ok = true;
	f->regs8 = true;
	f->rregs8 = true;
	for (unsigned int i = 0; i < def->nr_args; i++) {
		struct trev_probe_cfetch *c = &f->a[i];

		if (!pf_compile_arg(&def->args[i], addr, base - 8 + def->args[i].offset, c)) {
			free(f);
			return NULL;
		}
		/* The commonest: registers, $argN, as x64 or u64 (packed: at 8 + 8 i). */
		if (c->src == PF_SRC_SLOT && !c->slow && c->size == 8 && c->at == 8 + 8 * i)
			f->rword[i] = (signed char)c->word;
		else
			f->regs8 = false;
		if (!c->rimm && !c->nread && !c->last && c->size == 8 && c->at == 8 + 8 * i)
			f->rreg[i] = c->reg;
		else
			f->rregs8 = false;
		f->slot_ok &= !c->noslot;
	}
	return f;
}

/* ------------------------------------------------------------------ */
/* The sites                                                            */

struct pf_tab {
	size_t mask;		/* slots - 1, a power of 2 less 1 */
	struct pf_ent {
		uintptr_t addr;	/* 0: empty */
		const struct trev_probe_fast *f;	/* NULL: the full call */
	} e[];
};
/* Replaced whole, read in the trampoline's RCU read section, as probe_event.c's table. */
static _Atomic(struct pf_tab *) pf_tab;

/* Patchable entries are functions' first bytes, mostly 16-byte aligned. */
static size_t pf_hash(uintptr_t addr, size_t mask)
{
	return (size_t)(addr >> 4) & mask;
}

void *trev__probe_fast_publish(const struct trev_probe_fast_site *s, size_t n, int *err)
{
	size_t cap = 8;
	struct pf_tab *t;

	*err = 0;
	if (!n)
		return atomic_exchange_explicit(&pf_tab, NULL, memory_order_acq_rel);
	while (cap < 2 * n)
		cap *= 2;
	t = calloc(1, sizeof(*t) + cap * sizeof(t->e[0]));
	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	t->mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		size_t h = pf_hash(s[i].addr, t->mask);

		while (t->e[h].addr && t->e[h].addr != s[i].addr)
			h = (h + 1) & t->mask;
		/* A second probe on the site: the full call fires both. */
		t->e[h].f = t->e[h].addr || !s[i].f || !s[i].f->slot_ok ? NULL : s[i].f;
		t->e[h].addr = s[i].addr;
	}
	return atomic_exchange_explicit(&pf_tab, t, memory_order_acq_rel);
}

/* ------------------------------------------------------------------ */
/* The hit                                                              */

/* The system call @nr, in the fast call: the syscall instruction changes rcx and r11 only. */
static inline long pf_syscall6(long nr, long a, long b, long c, long d, long e, long g)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = g;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* trev__probe_read() here: @len bytes at @addr, fault-safe. Return: true, or false: a fault. */
static bool pf_read(void *dst, unsigned long addr, unsigned long len)
{
	struct iovec local = { dst, len }, remote = { (void *)addr, len };
	long pid;

	if (addr + len < addr)
		return false;
	pid = pf_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	return pf_syscall6(SYS_process_vm_readv, pid, (long)&local, 1, (long)&remote, 1, 0) ==
	       (long)len;
}

/*
 * One argument's value that needs memory reads (0 when a read faults: the
 * kernel's, and the full call's); out of line, so that the common hit
 * keeps few registers.
 */
static __attribute__((noinline)) uint64_t pf_fetch_read(const struct trev_probe_cfetch *c,
							unsigned long v)
{
	uint64_t val = 0;

	for (unsigned int k = 0; k < c->nread; k++)
		if (!pf_read(&v, v + (unsigned long)c->off[k], sizeof(v)))
			return 0;
	if (!c->last)
		val = v;
	else if (!pf_read(&val, v + (unsigned long)c->last_off, c->size))
		return 0;
	return val;
}

/*
 * One argument's value, into @p with constant-sized moves (little-endian:
 * the low bytes): from the trampoline's frame @slot, or (@regs: a constant
 * where it is inlined) from all the registers @regs.
 */
static inline __attribute__((always_inline)) void
pf_fetch(const struct trev_probe_cfetch *c, const unsigned long *slot, const struct trev_regs *regs,
	 uint8_t *p)
{
	unsigned long v;

	if (regs) {
		v = c->rimm ? c->imm : ((const unsigned long *)(const void *)regs)[c->reg];
		if (c->nread || c->last)
			v = pf_fetch_read(c, v);	/* memory */
	} else if (trev_unlikely(c->slow)) {
		v = c->src == PF_SRC_SLOT ? slot[c->word] :
		    c->src == PF_SRC_SP ? (unsigned long)slot : c->imm;
		v = pf_fetch_read(c, v);	/* the stack pointer, memory */
	} else {
		v = c->src == PF_SRC_SLOT ? slot[c->word] : c->imm;
	}
	if (trev_likely(c->size == 8)) {
		memcpy(p, &v, 8);
		return;
	}
	switch (c->size) {
	case 4:
		memcpy(p, &v, 4);
		break;
	case 2:
		memcpy(p, &v, 2);
		break;
	default:
		memcpy(p, &v, 1);
		break;
	}
}

/*
 * The record of @f for a hit at @ip: its probe's tests (probe_fire()'s),
 * the reservation, the fetches from @slot or @regs (a constant where it is
 * inlined) into it, the commit. Return: 0, or TREV_FT_FULL having done
 * nothing.
 */
static inline __attribute__((always_inline)) int
pf_emit(const struct trev_probe_fast *f, unsigned long ip, const unsigned long *slot,
	const struct trev_regs *regs)
{
	struct trev_tracepoint_func *fn;
	struct trev_event_file *file;
	struct trev_trace_array *tr;
	struct trev_entry *ent;
	struct trev_rb *rb;
	struct rb_wr w;
	uint64_t ts;
	uint8_t *p;

	/* Disabled (probe_fire()'s test): nothing to do. */
	if (!trev_static_key_false(&f->tp->key))
		return 0;
	fn = __atomic_load_n(&f->tp->funcs, __ATOMIC_ACQUIRE);
	if (!fn || !fn->func) {
		atomic_fetch_add_explicit(f->nhit, 1, memory_order_relaxed);
		return 0;
	}
	/* One instance, the event's own probe: else the full call writes each. */
	if (fn->func != f->write || fn[1].func)
		return TREV_FT_FULL;
	file = fn->data;
	/* A filter, triggers, soft-disable, the instance's pid lists: the full call. */
	if (trev_unlikely(atomic_load_explicit(&file->flags, memory_order_relaxed) &
			  TREV_FILE_FL_SLOW))
		return TREV_FT_FULL;
	tr = __atomic_load_n(&file->tr, __ATOMIC_RELAXED);
	rb = __atomic_load_n(&tr->rb, __ATOMIC_ACQUIRE);
	ent = rb_reserve_fast_ts(rb, f->fixed, &w, &ts);
	if (trev_unlikely(!ent)) {
		rb_reserve_fast_undo(&w);
		trev_tsan_release(tr);	/* done with rb: see trev__snapshot_free() */
		return TREV_FT_FULL;
	}
	/*
	 * The record in place (as the kernel's store_trace_args() writes into
	 * its reservation; a read is a system call, a signal handler's record
	 * nests): the arguments are packed, so every byte up to its length is
	 * written; the bytes past it are left as the full call leaves them.
	 */
	entry_fill(ent, file->call->id, w.d, w.n);
	p = (uint8_t *)(ent + 1);
	memcpy(p, &ip, 8);	/* __probe_ip */
	if (regs && f->rregs8) {
		for (unsigned int i = 0; i < f->nargs; i++)
			memcpy(p + 8 + 8 * i, (const unsigned long *)(const void *)regs + f->rreg[i],
			       8);
	} else if (!regs && trev_likely(f->regs8)) {
		for (unsigned int i = 0; i < f->nargs; i++)
			memcpy(p + 8 + 8 * i, &slot[f->rword[i]], 8);
	} else {
		for (unsigned int i = 0; i < f->nargs; i++)
			pf_fetch(&f->a[i], slot, regs, p + f->a[i].at);
	}
	rb_commit(rb, &w, ent);
	trev_tsan_release(tr);
	atomic_fetch_add_explicit(f->nhit, 1, memory_order_relaxed);
	return 0;
}

int trev__probe_fast_regs(const struct trev_probe_fast *f, const struct trev_regs *regs)
{
	return pf_emit(f, regs->ip, NULL, regs);
}

int trev__probe_fast_hit(unsigned long ip, unsigned long *slot)
{
	/* The trampoline calls this directly: the read section is ours (ft_rcu_ready() held). */
	unsigned int *rcu = trev__rcu_lock_known();
	struct pf_tab *t = atomic_load_explicit(&pf_tab, memory_order_acquire);
	const struct trev_probe_fast *f;
	int ret = TREV_FT_FULL;
	size_t h;

	if (!t)
		goto out;
	for (h = pf_hash(ip, t->mask); t->e[h].addr != ip; h = (h + 1) & t->mask)
		if (!t->e[h].addr)
			goto out_tab;	/* not ours: the full call knows */
	f = t->e[h].f;
	/* A probe whose object was unloaded and loaded elsewhere waits for the next table. */
	if (f && __atomic_load_n(f->where, __ATOMIC_RELAXED) == ip)
		ret = pf_emit(f, ip, slot, NULL);
out_tab:
	trev_tsan_release(t);
out:
	trev__rcu_unlock_known(rcu);
	return ret;
}
