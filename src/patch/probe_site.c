/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Probe sites (x86-64): a handler at any instruction of any loaded object,
 * through a relocated prologue's trampoline or an int3 (probe_site.h says
 * which; docs/probes.md, "Probe sites"). The relocator (capstone decodes),
 * the trampolines and their common entry, the int3 hits of the SIGTRAP
 * handler (text_patch.c calls trev__site_trap()).
 *
 * A site's slot, SLOT_SIZE bytes of a page mapped within a rel32 of the
 * object (trev__text_near_map()), read-execute, written once through
 * trev__text_poke():
 *
 *   OFFSET  SIZE  MEANING
 *   0       8     struct trev_site * (the mutable state, never freed)
 *   8       8     the probed address (regs->ip)
 *   16      8     &trev__site_entry, which the stub calls through
 *   24      40    unused
 *   64      19    relocated path only, the stub:
 *                   lea -128(%rsp),%rsp     skip the probed code's red zone
 *                   call *16(slot)          trev__site_entry: saves, calls
 *                                           the handler, restores
 *                   lea 128(%rsp),%rsp
 *   64|83   ...   the relocated instructions, jmp back to addr + in_len,
 *                 the return addresses relocated calls push
 *
 * The site's 5 bytes become `jmp slot+64` (relocated) or byte 0 becomes
 * 0xcc (int3), by text_patch.c. The jmp is written with the int3 protocol,
 * and between its int3 and the other bytes every other thread is moved out
 * of the old instructions (trev__text_patch_batch_moves(): a thread that
 * was preempted after the site's first instruction goes on in the slot).
 *
 * Handlers and detach: a hit increments the site's @inflight, then reads
 * @enabled (both sequentially consistent); detach clears @enabled, then
 * waits for @inflight to reach 0: a hit either saw @enabled clear or is
 * waited for. Slots and sites are never freed (a thread may be inside a
 * slot at any time): a detached site is kept and taken again by the next
 * attach at its address.
 *
 * Locking: site_lock serializes attach, detach and the decoder; it is taken
 * before text_lock.
 */
#include <capstone/capstone.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/log.h"
#include "patch/probe_site.h"
#include "patch/text_patch.h"

/*
 * ThreadSanitizer runs an asynchronous signal's handler late, at its next
 * interceptor, on a copy of the context: a thread cannot be moved out of a
 * prologue (text_patch.c's moves). In such a build every site takes int3.
 */
#if defined(__SANITIZE_THREAD__)
#define SITE_TSAN	1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SITE_TSAN	1
#endif
#endif

#define SLOT_SIZE	256
#define SLOT_HDR	64
#define SLOT_STUB_LEN	19
#define SLOT_RET_OFF	(SLOT_HDR + 11)	/* where the stub's call returns */
#define SLOTS_PAGE	4096
#define SITE_INT3_MAX	1024
#define RELOC_MAX_DATA	4

struct trev_site {
	uintptr_t addr;			/* the probed address */
	enum trev_site_kind kind;
	uint8_t *slot;			/* its slot (see above) */
	uint8_t orig[32];		/* the bytes at addr before: patched and relocated */
	size_t patch_len;		/* 5 (jmp) or 1 (int3) */
	struct trev_site_reloc rel;	/* the instructions in the slot */
	trev_site_handler handler;	/* written before @enabled is set */
	void *data;
	atomic_int enabled;		/* handlers are called */
	atomic_int inflight;		/* hits between their check and their end */
	atomic_ulong missed;		/* hits nested in a handler */
	bool attached;			/* (site_lock) */
	bool gone;			/* its object was unmapped (site_lock) */
	struct trev_site *next;		/* every site ever made (site_lock) */
};

struct slot_page {
	uint8_t *base;
	unsigned int used;		/* slots handed out */
	struct slot_page *next;
};

static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;
static struct trev_site *sites;		/* (site_lock) */
static struct slot_page *pages;		/* (site_lock) */
static _Atomic(struct trev_site *) int3_tab[SITE_INT3_MAX];	/* int3 sites, for the handler */
static _Atomic(struct trev_site *) changing;	/* the relocated site a batch changes */
static __thread int site_nest __attribute__((tls_model("initial-exec")));

/* ------------------------------------------------------------------ */
/* The decoder                                                          */

static csh dec;
static cs_insn *dec_insn;
static bool dec_ok;
static pthread_mutex_t dec_lock = PTHREAD_MUTEX_INITIALIZER;

/* Context: holds dec_lock. */
static int dec_init(void)
{
	if (dec_ok)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &dec) != CS_ERR_OK)
		return -ENOMEM;
	cs_option(dec, CS_OPT_DETAIL, CS_OPT_ON);
	dec_insn = cs_malloc(dec);
	if (!dec_insn) {
		cs_close(&dec);
		return -ENOMEM;
	}
	dec_ok = true;
	return 0;
}

/* One instruction at @code (at @addr) into dec_insn. Context: holds dec_lock. */
static bool dec_one(const uint8_t *code, size_t len, uintptr_t addr)
{
	const uint8_t *c = code;
	uint64_t a = addr;

	return cs_disasm_iter(dec, &c, &len, &a, dec_insn);
}

/* The legacy prefixes and REX before the opcode of @b (@len bytes). */
static size_t dec_prefixes(const uint8_t *b, size_t len, bool *only_hints)
{
	size_t p = 0;

	*only_hints = true;
	for (; p < len; p++) {
		switch (b[p]) {
		case 0x2e: case 0x3e: case 0xf2:	/* branch hints, bnd: dropped */
			continue;
		case 0xf0: case 0xf3: case 0x26: case 0x36: case 0x64: case 0x65:
		case 0x66: case 0x67:
			*only_hints = false;
			continue;
		}
		if ((b[p] & 0xf0) == 0x40) {
			*only_hints = false;
			continue;
		}
		break;
	}
	return p;
}

/* What a relative branch is, from its bytes. */
enum rel_kind {
	REL_NONE,
	REL_JMP,	/* eb rel8, e9 rel32 */
	REL_JCC,	/* 7x rel8, 0f 8x rel32; @cc the condition */
	REL_CALL,	/* e8 rel32 */
	REL_OTHER,	/* loop, jrcxz, xbegin: no rel32 form to give */
};

static enum rel_kind dec_rel(const uint8_t *b, size_t len, size_t p, int *cc, int64_t *rel)
{
	uint8_t op = b[p];
	int32_t r32;

	if (op == 0xeb || (op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3)) {
		if (p + 2 > len)
			return REL_OTHER;
		*rel = (int8_t)b[p + 1];
		*cc = op & 0x0f;
		return op == 0xeb ? REL_JMP : op >= 0xe0 ? REL_OTHER : REL_JCC;
	}
	if (op == 0xe9 || op == 0xe8) {
		if (p + 5 > len)
			return REL_OTHER;
		memcpy(&r32, b + p + 1, 4);
		*rel = r32;
		return op == 0xe9 ? REL_JMP : REL_CALL;
	}
	if (op == 0x0f && p + 1 < len && (b[p + 1] & 0xf0) == 0x80) {
		if (p + 6 > len)
			return REL_OTHER;
		memcpy(&r32, b + p + 2, 4);
		*rel = r32;
		*cc = b[p + 1] & 0x0f;
		return REL_JCC;
	}
	if (op == 0xc7 && p + 1 < len && b[p + 1] == 0xf8)
		return REL_OTHER;	/* xbegin */
	return REL_NONE;
}

/* The instruction in dec_insn has a RIP-relative memory operand. */
static bool dec_rip_rel(void)
{
	const cs_x86 *x = &dec_insn->detail->x86;

	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP)
			return true;
	return false;
}

static bool dec_uses_rsp(void)
{
	const cs_x86 *x = &dec_insn->detail->x86;

	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type == X86_OP_REG && (o->reg == X86_REG_RSP || o->reg == X86_REG_ESP))
			return true;
		if (o->type == X86_OP_MEM && (o->mem.base == X86_REG_RSP || o->mem.index == X86_REG_RSP))
			return true;
	}
	return false;
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* ------------------------------------------------------------------ */
/* The relocator                                                        */

/* Context: holds dec_lock. */
static int reloc_locked(const uint8_t *code, size_t code_len, uintptr_t addr, size_t min_len,
			uintptr_t dest, uint8_t *out, struct trev_site_reloc *r, const char **why)
{
	uint64_t data[RELOC_MAX_DATA];		/* the return addresses calls push */
	size_t data_at[RELOC_MAX_DATA];		/* where in @out the push's disp32 is */
	size_t nd = 0, in = 0, o = 0;
	int32_t d32;

	memset(r, 0, sizeof(*r));
	while (in < min_len) {
		const uint8_t *b = code + in;
		uintptr_t next;
		size_t len, p;
		bool hints;
		enum rel_kind k;
		int cc = 0;
		int64_t rel = 0;

		if (r->nr_insns == sizeof(r->in_off)) {
			*why = "too many instructions";
			return -EINVAL;
		}
		if (in >= code_len || !dec_one(b, code_len - in, addr + in)) {
			*why = "an instruction the decoder does not know";
			return -EINVAL;
		}
		len = dec_insn->size;
		next = addr + in + len;
		/* The most one instruction takes: 6 + 15, the jmp back 5, the data. */
		if (o + 26 + 5 + 8 * (nd + 1) > TREV_SITE_RELOC_MAX) {
			*why = "relocated code too long";
			return -EINVAL;
		}
		r->in_off[r->nr_insns] = (uint8_t)in;
		r->out_off[r->nr_insns] = (uint8_t)o;
		r->nr_insns++;
		p = dec_prefixes(b, len, &hints);
		if (p >= len) {
			*why = "an instruction the decoder does not know";
			return -EINVAL;
		}
		if (b[p] == 0xcc) {
			*why = "an int3 (a debugger's or another probe's) is there";
			return -EINVAL;
		}
		k = dec_rel(b, len, p, &cc, &rel);
		if (k == REL_NONE && cs_insn_group(dec, dec_insn, CS_GRP_BRANCH_RELATIVE))
			k = REL_OTHER;
		if (k == REL_OTHER) {
			*why = "a relative branch without a rel32 form (loop, jrcxz, xbegin)";
			return -EINVAL;
		}
		if (k != REL_NONE && !hints) {
			*why = "a relative branch with a prefix";
			return -EINVAL;
		}
		if (k == REL_JMP || k == REL_JCC || k == REL_CALL) {
			uintptr_t target = next + (uintptr_t)rel;

			if (k == REL_CALL) {
				if (in + len < min_len) {
					*why = "a call that returns inside the patched bytes";
					return -EINVAL;
				}
				out[o++] = 0xff;	/* push next(%rip) */
				out[o++] = 0x35;
				data[nd] = next;
				data_at[nd++] = o;
				o += 4;
			}
			if (k == REL_JCC) {
				out[o++] = 0x0f;
				out[o++] = (uint8_t)(0x80 | cc);
			} else {
				out[o++] = 0xe9;
			}
			if (!fits32((int64_t)(target - (dest + o + 4)))) {
				*why = "a branch target out of reach of the trampoline";
				return -ERANGE;
			}
			d32 = (int32_t)(int64_t)(target - (dest + o + 4));
			memcpy(out + o, &d32, 4);
			o += 4;
		} else {
			size_t at = o;
			bool call = b[p] == 0xff && p + 1 < len && ((b[p + 1] >> 3) & 7) == 2;

			if (b[p] == 0xff && p + 1 < len && ((b[p + 1] >> 3) & 7) == 3) {
				*why = "a far call";
				return -EINVAL;
			}
			if (call) {
				if (in + len < min_len) {
					*why = "a call that returns inside the patched bytes";
					return -EINVAL;
				}
				if (dec_uses_rsp()) {
					*why = "an indirect call through %rsp";
					return -EINVAL;
				}
				out[o++] = 0xff;	/* push next(%rip), then jmp *the same operand */
				out[o++] = 0x35;
				data[nd] = next;
				data_at[nd++] = o;
				o += 4;
				at = o;
			}
			memcpy(out + o, b, len);
			if (call)
				out[o + p + 1] = (uint8_t)((out[o + p + 1] & ~0x38) | (4 << 3));
			o += len;
			if (dec_rip_rel()) {
				const cs_x86_encoding *e = &dec_insn->detail->x86.encoding;
				int64_t target;

				if (!e->disp_offset || e->disp_size != 4 || e->disp_offset + 4u > len) {
					*why = "a RIP-relative operand the decoder does not place";
					return -EINVAL;
				}
				memcpy(&d32, b + e->disp_offset, 4);
				target = (int64_t)next + d32;
				if (!fits32(target - (int64_t)(dest + o))) {
					*why = "a RIP-relative operand out of reach of the trampoline";
					return -ERANGE;
				}
				d32 = (int32_t)(target - (int64_t)(dest + o));
				memcpy(out + at + e->disp_offset, &d32, 4);
			}
		}
		in += len;
		if (in < min_len && (k == REL_JMP || cs_insn_group(dec, dec_insn, CS_GRP_RET) ||
				     (cs_insn_group(dec, dec_insn, CS_GRP_JUMP) && k == REL_NONE) ||
				     cs_insn_group(dec, dec_insn, CS_GRP_IRET))) {
			*why = "the code ends (jmp, ret) inside the patched bytes";
			return -EINVAL;
		}
	}
	out[o++] = 0xe9;			/* jmp addr + in */
	if (!fits32((int64_t)(addr + in - (dest + o + 4)))) {
		*why = "the site out of reach of the trampoline";
		return -ERANGE;
	}
	d32 = (int32_t)(int64_t)(addr + in - (dest + o + 4));
	memcpy(out + o, &d32, 4);
	o += 4;
	for (size_t i = 0; i < nd; i++) {
		d32 = (int32_t)(o - (data_at[i] + 4));
		memcpy(out + data_at[i], &d32, 4);
		memcpy(out + o, &data[i], 8);
		o += 8;
	}
	r->in_len = in;
	r->out_len = o;
	return 0;
}

int trev__site_relocate(const uint8_t *code, size_t code_len, uintptr_t addr, size_t min_len,
			uintptr_t dest, uint8_t *out, struct trev_site_reloc *r, const char **why)
{
	int ret;

	pthread_mutex_lock(&dec_lock);
	ret = dec_init();
	if (ret)
		*why = "the decoder did not start";
	else
		ret = reloc_locked(code, code_len, addr, min_len, dest, out, r, why);
	pthread_mutex_unlock(&dec_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The trampolines' common entry                                        */

/*
 * How trev__site_entry keeps the vector, x87 and mask state around the
 * handler (any instruction may have any of it live): XSAVEC (else XSAVE,
 * else FXSAVE) of every component XCR0 enables but AMX's tiles (a handler
 * does not touch them, and restoring them costs 8 KiB of stack), into a
 * 64-byte aligned area of trev__site_xsize bytes on the stack.
 */
unsigned char trev__site_xkind;		/* 0 fxsave, 1 xsave, 2 xsavec */
uint32_t trev__site_xmask[2];		/* edx:eax of the saves */
uint64_t trev__site_xsize = 512;	/* a multiple of 64 */
static pthread_once_t xstate_once = PTHREAD_ONCE_INIT;

static void xstate_init(void)
{
	unsigned int a, b, c, d;
	uint64_t xcr0, mask, size = 576;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	__asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
	xcr0 = ((uint64_t)d << 32) | a;
	mask = xcr0 & ~((1ull << 17) | (1ull << 18));
	for (unsigned int i = 2; i < 63; i++) {
		if (!(mask & (1ull << i)))
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		if (b + a > size)
			size = b + a;	/* offset + size, the standard layout */
	}
	trev__site_xmask[0] = (uint32_t)mask;
	trev__site_xmask[1] = (uint32_t)(mask >> 32);
	trev__site_xsize = (size + 63) & ~63ull;
	__cpuid_count(0xd, 1, a, b, c, d);
	trev__site_xkind = (a & 2) ? 2 : 1;
}

void trev__site_dispatch(struct trev_regs *regs, struct trev_site *s);

/*
 * trev__site_dispatch() - a hit: the handler, unless it is off or the hit
 * nests inside a handler of this thread.
 * Context: the probed thread, any context (a signal handler too).
 */
void trev__site_dispatch(struct trev_regs *regs, struct trev_site *s)
{
	if (site_nest) {
		atomic_fetch_add_explicit(&s->missed, 1, memory_order_relaxed);
		return;
	}
	/* Pairs with detach's clear of @enabled and wait for @inflight (above). */
	atomic_fetch_add(&s->inflight, 1);
	if (atomic_load(&s->enabled)) {
		site_nest++;
		s->handler(regs, s->data);
		site_nest--;
	}
	atomic_fetch_sub(&s->inflight, 1);
}

/*
 * Called by a slot's stub with the probed code's red zone skipped:
 *   0(%rsp)    the slot + SLOT_RET_OFF
 *   136(%rsp)  where the probed code's %rsp was
 * Builds a struct trev_regs on the stack (pushed in reverse: the kernel's
 * pt_regs), keeps the extended state, calls trev__site_dispatch(), puts
 * everything back (the registers from the struct: a handler may change
 * them) and returns into the stub, which runs the relocated instructions.
 * `cld` for the C code; popfq restores the direction flag. For unwinders
 * the frame is a signal frame of the probed code at its address, with its
 * %rsp and callee-saved registers.
 */
__asm__(".text\n"
	".globl trev__site_entry\n"
	".hidden trev__site_entry\n"
	".type trev__site_entry, @function\n"
	".p2align 4\n"
	"trev__site_entry:\n"
	"	.cfi_startproc\n"
	"	.cfi_signal_frame\n"
	"	.cfi_def_cfa %rsp, 136\n"
	"	.cfi_offset %rip, -136\n"
	"	pushq $0\n"			/* ss */
	"	pushq $0\n"			/* sp, below */
	"	pushfq\n"
	"	pushq $0\n"			/* cs */
	"	pushq $0\n"			/* ip, below */
	"	pushq $-1\n"			/* orig_ax */
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	pushq %rdx\n"
	"	pushq %rcx\n"
	"	pushq %rax\n"
	"	pushq %r8\n"
	"	pushq %r9\n"
	"	pushq %r10\n"
	"	pushq %r11\n"
	"	pushq %rbx\n"
	"	pushq %rbp\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, %rbp\n"		/* the struct trev_regs */
	"	.cfi_def_cfa %rbp, 304\n"
	"	.cfi_offset %rip, -176\n"
	"	.cfi_offset %rbp, -272\n"
	"	.cfi_offset %rbx, -264\n"
	"	.cfi_offset %r12, -280\n"
	"	.cfi_offset %r13, -288\n"
	"	.cfi_offset %r14, -296\n"
	"	.cfi_offset %r15, -304\n"
	"	cld\n"
	"	leaq 304(%rbp), %rax\n"
	"	movq %rax, 152(%rbp)\n"		/* sp */
	"	movq 168(%rbp), %rbx\n"
	"	subq $" "75" ", %rbx\n"		/* the slot */
	"	movq 8(%rbx), %rax\n"
	"	movq %rax, 128(%rbp)\n"		/* ip */
	"	andq $-64, %rsp\n"
	"	subq trev__site_xsize(%rip), %rsp\n"
	"	cmpb $1, trev__site_xkind(%rip)\n"
	"	jb 1f\n"
	"	xorl %eax, %eax\n"		/* the xsave header: zeroed */
	"	.irp i,0,8,16,24,32,40,48,56\n"
	"	movq %rax, 512+\\i(%rsp)\n"
	"	.endr\n"
	"	movl trev__site_xmask(%rip), %eax\n"
	"	movl trev__site_xmask+4(%rip), %edx\n"
	"	cmpb $1, trev__site_xkind(%rip)\n"
	"	je 2f\n"
	"	xsavec64 (%rsp)\n"
	"	jmp 3f\n"
	"2:	xsave64 (%rsp)\n"
	"	jmp 3f\n"
	"1:	fxsave64 (%rsp)\n"
	"3:	movq %rbp, %rdi\n"
	"	movq 0(%rbx), %rsi\n"
	"	call trev__site_dispatch\n"
	"	cmpb $1, trev__site_xkind(%rip)\n"
	"	jb 4f\n"
	"	movl trev__site_xmask(%rip), %eax\n"
	"	movl trev__site_xmask+4(%rip), %edx\n"
	"	xrstor64 (%rsp)\n"
	"	jmp 5f\n"
	"4:	fxrstor64 (%rsp)\n"
	"5:	movq %rbp, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbp\n"
	"	.cfi_def_cfa %rsp, 264\n"
	"	popq %rbx\n"
	"	popq %r11\n"
	"	popq %r10\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %rax\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	leaq 24(%rsp), %rsp\n"		/* orig_ax, ip, cs */
	"	popfq\n"
	"	leaq 16(%rsp), %rsp\n"		/* sp, ss */
	"	.cfi_def_cfa %rsp, 136\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size trev__site_entry, .-trev__site_entry\n");

void trev__site_entry(void);

/* ------------------------------------------------------------------ */
/* Slots                                                                */

static bool slot_in_reach(uintptr_t slot, uintptr_t addr)
{
	uintptr_t d = slot > addr ? slot - addr : addr - slot;

	return d < (uintptr_t)INT32_MAX - (1u << 20);
}

/* A free slot within reach of @addr, or NULL. Context: holds site_lock. */
static uint8_t *slot_get(uintptr_t addr)
{
	struct slot_page *pg;

	for (pg = pages; pg; pg = pg->next)
		if (pg->used < SLOTS_PAGE / SLOT_SIZE && slot_in_reach((uintptr_t)pg->base, addr))
			return pg->base + SLOT_SIZE * pg->used++;
	pg = calloc(1, sizeof(*pg));
	if (!pg)
		return NULL;
	pg->base = trev__text_near_map(addr, addr + 64, SLOTS_PAGE);
	if (!pg->base || mprotect(pg->base, SLOTS_PAGE, PROT_READ | PROT_EXEC)) {
		if (pg->base)
			munmap(pg->base, SLOTS_PAGE);
		free(pg);
		return NULL;
	}
	pg->next = pages;
	pages = pg;
	return pg->base + SLOT_SIZE * pg->used++;
}

/* Give back @slot when it is the last one handed out (a refused attach). */
static void slot_unget(uint8_t *slot)
{
	for (struct slot_page *pg = pages; pg; pg = pg->next)
		if (pg->used && pg->base + SLOT_SIZE * (pg->used - 1) == slot)
			pg->used--;
}

static uintptr_t slot_reloc(const struct trev_site *s)
{
	return (uintptr_t)s->slot + SLOT_HDR + (s->kind == TREV_SITE_RELOCATED ? SLOT_STUB_LEN : 0);
}

/* ------------------------------------------------------------------ */
/* The SIGTRAP handler's parts                                          */

static uintptr_t mv_trap_to(uintptr_t site)
{
	struct trev_site *s = atomic_load(&changing);

	return s && s->addr == site ? slot_reloc(s) : 0;
}

static uintptr_t mv_move(uintptr_t ip)
{
	struct trev_site *s = atomic_load(&changing);

	if (!s || ip <= s->addr || ip >= s->addr + s->rel.in_len)
		return 0;
	for (unsigned int k = 0; k < s->rel.nr_insns; k++)
		if (s->addr + s->rel.in_off[k] == ip)
			return slot_reloc(s) + s->rel.out_off[k];
	return 0;
}

static const struct trev_text_moves site_moves = { mv_trap_to, mv_move };
static const struct trev_text_moves site_unmoves = { mv_trap_to, NULL };

bool trev__site_trap(ucontext_t *uc, uintptr_t site)
{
	greg_t *gr = uc->uc_mcontext.gregs;
	struct trev_site *s = NULL;
	struct trev_regs r;

	for (size_t i = 0; i < SITE_INT3_MAX && !s; i++) {
		struct trev_site *t = atomic_load_explicit(&int3_tab[i], memory_order_acquire);

		if (t && t->addr == site)
			s = t;
	}
	if (!s)
		return false;
	r = (struct trev_regs){
		.r15 = (unsigned long)gr[REG_R15], .r14 = (unsigned long)gr[REG_R14],
		.r13 = (unsigned long)gr[REG_R13], .r12 = (unsigned long)gr[REG_R12],
		.bp = (unsigned long)gr[REG_RBP], .bx = (unsigned long)gr[REG_RBX],
		.r11 = (unsigned long)gr[REG_R11], .r10 = (unsigned long)gr[REG_R10],
		.r9 = (unsigned long)gr[REG_R9], .r8 = (unsigned long)gr[REG_R8],
		.ax = (unsigned long)gr[REG_RAX], .cx = (unsigned long)gr[REG_RCX],
		.dx = (unsigned long)gr[REG_RDX], .si = (unsigned long)gr[REG_RSI],
		.di = (unsigned long)gr[REG_RDI], .orig_ax = (unsigned long)-1,
		.ip = site, .flags = (unsigned long)gr[REG_EFL],
		.sp = (unsigned long)gr[REG_RSP],
	};
	trev__site_dispatch(&r, s);
	gr[REG_R15] = (greg_t)r.r15; gr[REG_R14] = (greg_t)r.r14;
	gr[REG_R13] = (greg_t)r.r13; gr[REG_R12] = (greg_t)r.r12;
	gr[REG_RBP] = (greg_t)r.bp; gr[REG_RBX] = (greg_t)r.bx;
	gr[REG_R11] = (greg_t)r.r11; gr[REG_R10] = (greg_t)r.r10;
	gr[REG_R9] = (greg_t)r.r9; gr[REG_R8] = (greg_t)r.r8;
	gr[REG_RAX] = (greg_t)r.ax; gr[REG_RCX] = (greg_t)r.cx;
	gr[REG_RDX] = (greg_t)r.dx; gr[REG_RSI] = (greg_t)r.si;
	gr[REG_RDI] = (greg_t)r.di; gr[REG_EFL] = (greg_t)r.flags;
	/* The instruction's copy, which jumps back past it. */
	gr[REG_RIP] = (greg_t)slot_reloc(s);
	return true;
}

/* ------------------------------------------------------------------ */
/* Attach and detach                                                    */

static int body_scan_in(const uint8_t *body, uintptr_t func, size_t size, uintptr_t addr,
			size_t len, const char **why);

/* Up to @len bytes at @addr, as many as are mapped. */
static size_t code_read(uintptr_t addr, uint8_t *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)addr, len };
	ssize_t n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);

	if (n > 0)
		return (size_t)n;
	/* No process_vm_readv (seccomp): the page holding @addr is mapped. */
	{
		long pg = sysconf(_SC_PAGESIZE);
		size_t in_page = (size_t)(pg - (long)(addr & (uintptr_t)(pg - 1)));

		n = (ssize_t)(len < in_page ? len : in_page);
		memcpy(buf, (const void *)addr, (size_t)n);
		return (size_t)n;
	}
}

/*
 * The attached sites' original bytes over @buf, a copy of the code at @at
 * (@len bytes): what the code is without the probes. Context: site_lock.
 */
static void code_unpatch(uintptr_t at, uint8_t *buf, size_t len)
{
	for (struct trev_site *t = sites; t; t = t->next) {
		if (!t->attached || t->gone)
			continue;
		for (size_t i = 0; i < t->patch_len; i++)
			if (t->addr + i >= at && t->addr + i - at < len)
				buf[t->addr + i - at] = t->orig[i];
	}
}

/*
 * Decode [@func, @func + @size): is @addr an instruction boundary, and does
 * a relative branch target (addr, addr + @len)? Return: 0 (neither); -EINVAL
 * (not a boundary); 1 (a branch into them, or a body that does not decode:
 * not relocatable). Context: holds dec_lock.
 */
static int body_scan(uintptr_t func, size_t size, uintptr_t addr, size_t len, const char **why)
{
	uint8_t *body = malloc(size ? size : 1);
	int ret;

	if (!body) {
		*why = "no memory for a copy of the function";
		return 1;
	}
	memcpy(body, (const void *)func, size);
	code_unpatch(func, body, size);	/* other sites' bytes, as they were */
	ret = body_scan_in(body, func, size, addr, len, why);
	free(body);
	return ret;
}

/* body_scan() of the function's bytes @body. */
static int body_scan_in(const uint8_t *body, uintptr_t func, size_t size, uintptr_t addr,
			size_t len, const char **why)
{
	const uint8_t *c = body;
	size_t left = size;
	uint64_t a = func;
	bool boundary = false;

	while (left) {
		uintptr_t at = (uintptr_t)a;
		int cc;
		int64_t rel;
		bool hints;
		size_t p;
		enum rel_kind k;

		if (!cs_disasm_iter(dec, &c, &left, &a, dec_insn)) {
			if (at <= addr) {
				*why = "the function's code does not decode up to the address";
				return -EINVAL;
			}
			*why = "the function's code does not decode to its end";
			return 1;
		}
		if (at == addr)
			boundary = true;
		p = dec_prefixes(dec_insn->bytes, dec_insn->size, &hints);
		if (p >= dec_insn->size)
			continue;
		k = dec_rel(dec_insn->bytes, dec_insn->size, p, &cc, &rel);
		if (k == REL_NONE && cs_insn_group(dec, dec_insn, CS_GRP_JUMP)) {
			/* As kprobes' optimizer: a jump table may target any byte. */
			*why = "the function has an indirect jmp (a jump table may target "
			       "the patched bytes)";
			return 1;
		}
		if (k != REL_NONE) {
			uintptr_t t = (uintptr_t)a + (uintptr_t)rel;

			if (t > addr && t < addr + len) {
				*why = "a jump of the function targets the patched bytes";
				return 1;
			}
		}
	}
	if (!boundary) {
		*why = "not an instruction boundary of its function";
		return -EINVAL;
	}
	return 0;
}

int trev__site_boundary(uintptr_t addr, uintptr_t func, size_t size, const char **why)
{
	int ret;

	*why = NULL;
	if (!size)
		return 0;
	if (addr < func || addr - func >= size) {
		*why = "the address is outside the function given";
		return -EINVAL;
	}
	pthread_mutex_lock(&site_lock);
	pthread_mutex_lock(&dec_lock);
	ret = dec_init();
	if (!ret && body_scan(func, size, addr, 0, why) < 0)
		ret = -EINVAL;
	pthread_mutex_unlock(&dec_lock);
	pthread_mutex_unlock(&site_lock);
	if (ret != -EINVAL)
		*why = NULL;
	return ret;
}

/* The ELF symbol (.dynsym) around @addr: [*func, *func + *size). */
static bool func_find(uintptr_t addr, uintptr_t *func, size_t *size)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;

	if (!dladdr1((void *)addr, &di, (void **)&sym, RTLD_DL_SYMENT) || !sym || !di.dli_saddr)
		return false;
	if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC && ELF64_ST_TYPE(sym->st_info) != STT_GNU_IFUNC)
		return false;
	*func = (uintptr_t)di.dli_saddr;
	*size = sym->st_size;
	return addr >= *func && addr < *func + *size;
}

static struct trev_site *site_find(uintptr_t addr)
{
	for (struct trev_site *s = sites; s; s = s->next)
		if (s->addr == addr && !s->gone)
			return s;
	return NULL;
}

/* Fill @s's slot for its kind. Context: holds site_lock. Return: 0 or -errno, @why. */
static int site_build(struct trev_site *s, const uint8_t *code, size_t code_len, bool relocate,
		      uintptr_t func, size_t size, const char **why)
{
	uint8_t buf[SLOT_SIZE];
	const char *no_reloc = NULL;
	int ret = -EINVAL;
	pid_t blocker;

	memset(buf, 0, sizeof(buf));
	pthread_mutex_lock(&dec_lock);
	ret = dec_init();
	if (ret) {
		pthread_mutex_unlock(&dec_lock);
		*why = "the decoder did not start";
		return ret;
	}
	/* Either path writes over @addr's instruction: it must be one's first byte. */
	if (size && body_scan(func, size, s->addr, 0, why) < 0) {
		pthread_mutex_unlock(&dec_lock);
		return -EINVAL;
	}
	if (relocate) {
		uintptr_t dest = (uintptr_t)s->slot + SLOT_HDR + SLOT_STUB_LEN;

		ret = reloc_locked(code, code_len, s->addr, TEXT_SITE_SIZE, dest,
				   buf + SLOT_HDR + SLOT_STUB_LEN, &s->rel, &no_reloc);
		if (!ret && s->addr + s->rel.in_len > func + size) {
			no_reloc = "the function is shorter than the 5 bytes";
			ret = -EINVAL;
		}
		if (!ret) {
			ret = body_scan(func, size, s->addr, s->rel.in_len, &no_reloc);
			if (ret < 0) {
				pthread_mutex_unlock(&dec_lock);
				*why = no_reloc;
				return ret;
			}
			ret = ret ? -EINVAL : 0;
		}
		if (!ret)
			s->kind = TREV_SITE_RELOCATED;
	} else {
#ifdef SITE_TSAN
		no_reloc = "a ThreadSanitizer build: no relocated prologues";
#else
		no_reloc = "the function around it is not known (no .dynsym entry) "
			   "or shorter than 5 bytes";
#endif
	}
	if (ret || !relocate) {
		memset(buf, 0, sizeof(buf));
		s->kind = TREV_SITE_INT3;
		ret = reloc_locked(code, code_len, s->addr, 1, (uintptr_t)s->slot + SLOT_HDR,
				   buf + SLOT_HDR, &s->rel, why);
		if (!ret)
			*why = no_reloc;
	}
	pthread_mutex_unlock(&dec_lock);
	if (ret)
		return ret;
	memcpy(buf, &s, 8);
	memcpy(buf + 8, &s->addr, 8);
	{
		uintptr_t e = (uintptr_t)trev__site_entry;

		memcpy(buf + 16, &e, 8);
	}
	if (s->kind == TREV_SITE_RELOCATED) {
		static const uint8_t stub[SLOT_STUB_LEN] = {
			0x48, 0x8d, 0x64, 0x24, 0x80,			/* lea -128(%rsp),%rsp */
			0xff, 0x15, 0xc5, 0xff, 0xff, 0xff,		/* call *16(slot) */
			0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00,	/* lea 128(%rsp),%rsp */
		};

		memcpy(buf + SLOT_HDR, stub, sizeof(stub));
	}
	s->patch_len = s->kind == TREV_SITE_RELOCATED ? TEXT_SITE_SIZE : 1;
	memcpy(s->orig, code, s->rel.in_len > s->patch_len ? s->rel.in_len : s->patch_len);
	return trev__text_poke((uintptr_t)s->slot, buf, SLOT_SIZE, 0, &blocker);
}

/* Write @s's patch. Context: holds site_lock, @s's handler set and enabled. */
static int site_patch(struct trev_site *s, pid_t *blocker)
{
	int ret;

	if (s->kind == TREV_SITE_INT3) {
		static const uint8_t int3 = 0xcc;
		size_t i;

		for (i = 0; i < SITE_INT3_MAX; i++)
			if (!atomic_load(&int3_tab[i]))
				break;
		if (i == SITE_INT3_MAX)
			return -ENOSPC;
		atomic_store_explicit(&int3_tab[i], s, memory_order_release);
		ret = trev__text_poke(s->addr, &int3, 1, 1, blocker);
		if (ret)
			atomic_store(&int3_tab[i], NULL);
		return ret;
	} else {
		struct trev_text_patch p = { .addr = s->addr };

		trev__text_make_rel32(p.bytes, TREV_TEXT_JMP, s->addr,
				      (uintptr_t)s->slot + SLOT_HDR);
		atomic_store(&changing, s);
		ret = trev__text_patch_batch_moves(&p, 1, &site_moves, blocker);
		atomic_store(&changing, NULL);
		return ret;
	}
}

/* The handlers off, none running. Context: holds site_lock. */
static void site_quiesce(struct trev_site *s)
{
	atomic_store(&s->enabled, 0);
	while (atomic_load(&s->inflight))
		sched_yield();
}

static void site_int3_forget(struct trev_site *s)
{
	for (size_t i = 0; i < SITE_INT3_MAX; i++)
		if (atomic_load(&int3_tab[i]) == s)
			atomic_store(&int3_tab[i], NULL);
}

int trev__site_attach_in(uintptr_t addr, uintptr_t func, size_t size, trev_site_handler h,
			 void *data, struct trev_site **out, const char **why)
{
	uint8_t code[32];
	size_t code_len;
	struct trev_site *s;
	bool fresh = false;
	pid_t blocker = 0;
	int ret;

	*why = NULL;
	pthread_once(&xstate_once, xstate_init);
	pthread_mutex_lock(&site_lock);
	s = site_find(addr);
	if (s && s->attached) {
		*why = "a probe site is attached there already";
		ret = -EEXIST;
		goto out_unlock;
	}
	code_len = code_read(addr, code, sizeof(code));
	if (!code_len) {
		*why = "the address is not mapped";
		ret = -EFAULT;
		goto out_unlock;
	}
	code_unpatch(addr, code, code_len);
	/* Inside another site's relocated instructions: the jmp skips it, or is there. */
	for (struct trev_site *t = sites; t; t = t->next) {
		if (!t->attached || t->gone || t->kind != TREV_SITE_RELOCATED)
			continue;
		if (addr > t->addr && addr < t->addr + t->rel.in_len) {
			*why = "inside the instructions another probe site relocated";
			ret = -EBUSY;
			goto out_unlock;
		}
	}
	/* A kept site is taken again if the bytes are still its original ones. */
	if (s && (code_len < s->rel.in_len || memcmp(code, s->orig, s->rel.in_len))) {
		s->gone = true;
		s = NULL;
	}
	if (!s) {
		bool relocate = size >= TEXT_SITE_SIZE && addr >= func &&
				addr + TEXT_SITE_SIZE <= func + size;

		/* Another site in the bytes a jmp would cover: this one takes an int3. */
		for (struct trev_site *t = sites; t && relocate; t = t->next)
			if (t->attached && !t->gone && t->addr > addr &&
			    t->addr < addr + TEXT_SITE_SIZE + 15)	/* an insn at byte 4 */
				relocate = false;

#ifdef SITE_TSAN
		relocate = false;
#endif

		if (size && (addr < func || addr >= func + size)) {
			*why = "the address is outside the function given";
			ret = -EINVAL;
			goto out_unlock;
		}
		if (func && size && func + size - addr < code_len)
			code_len = func + size - addr;
		s = calloc(1, sizeof(*s));
		if (!s) {
			ret = -ENOMEM;
			goto out_unlock;
		}
		s->addr = addr;
		s->slot = slot_get(addr);
		if (!s->slot) {
			free(s);
			*why = "no free address space within 2 GiB of the address";
			ret = -ENOMEM;
			goto out_unlock;
		}
		ret = site_build(s, code, code_len, relocate, func, size, why);
		if (ret) {
			slot_unget(s->slot);
			free(s);
			goto out_unlock;
		}
		fresh = true;
	} else {
		*why = s->kind == TREV_SITE_INT3 ? "int3, as at the site's first attach" : NULL;
	}
	s->handler = h;
	s->data = data;
	atomic_store(&s->enabled, 1);
	ret = site_patch(s, &blocker);
	if (ret) {
		site_quiesce(s);
		if (ret == -EBUSY)
			*why = "a thread blocks SIGTRAP";
		else if (ret == -ENOSYS)
			*why = "the kernel has no membarrier SYNC_CORE";
		else
			*why = "writing the text failed";
		if (fresh) {
			/* Keep it (its slot may have been reached by a moved thread). */
			s->next = sites;
			sites = s;
		}
		goto out_unlock;
	}
	if (fresh) {
		s->next = sites;
		sites = s;
	}
	s->attached = true;
	*out = s;
out_unlock:
	pthread_mutex_unlock(&site_lock);
	return ret;
}

int trev__site_attach(uintptr_t addr, trev_site_handler h, void *data, struct trev_site **out,
		      const char **why)
{
	uintptr_t func = 0;
	size_t size = 0;

	if (!func_find(addr, &func, &size))
		func = size = 0;
	return trev__site_attach_in(addr, func, size, h, data, out, why);
}

int trev__site_detach(struct trev_site *s)
{
	pid_t blocker = 0;
	int ret = 0;

	pthread_mutex_lock(&site_lock);
	if (!s->attached || s->gone)
		goto out_unlock;
	site_quiesce(s);
	if (s->kind == TREV_SITE_INT3) {
		ret = trev__text_poke(s->addr, s->orig, 1, 0, &blocker);
		if (!ret)
			site_int3_forget(s);
	} else {
		struct trev_text_patch p = { .addr = s->addr };

		memcpy(p.bytes, s->orig, TEXT_SITE_SIZE);
		atomic_store(&changing, s);
		ret = trev__text_patch_batch_moves(&p, 1, &site_unmoves, &blocker);
		atomic_store(&changing, NULL);
	}
	if (ret) {
		atomic_store(&s->enabled, 1);
		goto out_unlock;
	}
	s->attached = false;
out_unlock:
	pthread_mutex_unlock(&site_lock);
	return ret;
}

enum trev_site_kind trev__site_kind(const struct trev_site *s)
{
	return s->kind;
}

unsigned long trev__site_missed(const struct trev_site *s)
{
	return atomic_load_explicit(&((struct trev_site *)s)->missed, memory_order_relaxed);
}

void trev__site_object_gone(uintptr_t lo, uintptr_t hi)
{
	pthread_mutex_lock(&site_lock);
	for (struct trev_site *s = sites; s; s = s->next) {
		if (s->addr < lo || s->addr >= hi || s->gone)
			continue;
		site_quiesce(s);
		site_int3_forget(s);
		s->attached = false;
		s->gone = true;
	}
	pthread_mutex_unlock(&site_lock);
}
