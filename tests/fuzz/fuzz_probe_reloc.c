/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the probe sites' relocator (src/patch/probe_site.c,
 * trev__site_relocate()): random bytes at a random address, relocated to a
 * random place, never run. It must refuse (with a reason) or produce code
 * that does what the original did from its new place: each instruction
 * decoded again there has the same RIP-relative and branch targets, a call
 * pushes the original return address, and the code ends with a jmp back to
 * the first byte it did not cover.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patch/probe_site.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static csh cs;

/* Decode one instruction at @p (address @at); its target (RIP-relative or branch), or 0. */
static size_t one(const uint8_t *p, size_t len, uint64_t at, uint64_t *target, unsigned int *id)
{
	cs_insn *in;
	size_t n = cs_disasm(cs, p, len, at, 1, &in), sz;
	const cs_x86 *x;

	*target = 0;
	if (n != 1)
		return 0;
	sz = in->size;
	*id = in->id;
	x = &in->detail->x86;
	for (int i = 0; i < x->op_count; i++) {
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP)
			*target = at + sz + (uint64_t)x->operands[i].mem.disp;
		if (x->operands[i].type == X86_OP_IMM &&
		    cs_insn_group(cs, in, CS_GRP_BRANCH_RELATIVE))
			*target = (uint64_t)x->operands[i].imm;
	}
	cs_free(in, 1);
	return sz;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t out[TREV_SITE_RELOC_MAX];
	struct trev_site_reloc r;
	const char *why = NULL;
	uint64_t addr, dest, t0, t1, t2;
	unsigned int id0, id1, id2;
	size_t min_len;
	int ret;

	if (!cs) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
			abort();
		cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	}
	if (size < 3)
		return 0;
	/* Site and trampoline apart by up to +-2^31 (or out of reach), as near_map places them. */
	addr = 0x7f0000000000ull + ((uint64_t)data[0] << 12) + data[1];
	dest = addr + (((uint64_t)(int8_t)data[2]) << 25) + 0x1000;
	min_len = (data[1] & 1) ? 5 : 1;
	data += 3;
	size -= 3;
	if (size > 32)
		size = 32;
	memset(out, 0xa5, sizeof(out));
	ret = trev__site_relocate(data, size, addr, min_len, dest, out, &r, &why);
	if (ret) {
		if ((ret != -EINVAL && ret != -ERANGE) || !why)
			abort();
		return 0;
	}
	if (r.in_len < min_len || r.in_len > size || r.out_len > TREV_SITE_RELOC_MAX ||
	    !r.nr_insns || r.nr_insns > sizeof(r.in_off))
		abort();
	for (unsigned int k = 0; k < r.nr_insns; k++) {
		size_t io = r.in_off[k], oo = r.out_off[k];
		size_t il = one(data + io, size - io, addr + io, &t0, &id0), ol;

		if (!il || oo >= r.out_len)
			abort();
		ol = one(out + oo, r.out_len - oo, dest + oo, &t1, &id1);
		if (!ol)
			abort();
		if (id0 == X86_INS_CALL) {
			uint64_t ret_addr, pushed = t1 - dest;

			/* push ret(%rip), then the jmp to the call's target */
			if (id1 != X86_INS_PUSH || pushed + 8 > r.out_len)
				abort();
			memcpy(&ret_addr, out + pushed, 8);
			if (ret_addr != addr + io + il)
				abort();
			if (!one(out + oo + ol, r.out_len - oo - ol, dest + oo + ol, &t2, &id2) ||
			    id2 != X86_INS_JMP || t2 != t0)
				abort();
			continue;
		}
		if (t0 != t1)
			abort();
	}
	{
		/* The jmp back to the first byte not covered. */
		size_t last = r.out_off[r.nr_insns - 1], at = last, l;

		for (unsigned int k = 0; k < 3; k++) {
			l = one(out + at, r.out_len - at, dest + at, &t1, &id1);
			if (!l)
				abort();
			if (id1 == X86_INS_JMP && t1 == addr + r.in_len && at > last)
				return 0;
			at += l;
		}
		abort();
	}
}
