/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Functions, parameters and struct members from DWARF through Debian's
 * libdw (dwarf_func.h). libdw parses the debug information and checks its
 * bounds; a malformed file gives errors here (-EINVAL, -ENOENT, -ENODATA),
 * never a read outside it: every reference and attribute read is checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "sym/dwarf_func.h"

struct trev_dwarf {
	Dwfl *dwfl;
	Dwfl_Module *file;	/* the file of trev__dwarf_open_file(), NULL for this process */
};

/* The debug file of an object: beside it, or /usr/lib/debug by build id. */
static char *dw_debuginfo_path;

static const Dwfl_Callbacks dw_self_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &dw_debuginfo_path,
};

static const Dwfl_Callbacks dw_file_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &dw_debuginfo_path,
};

int trev__dwarf_open_self(struct trev_dwarf **out)
{
	struct trev_dwarf *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->dwfl = dwfl_begin(&dw_self_cb);
	if (!d->dwfl) {
		free(d);
		return -ENOMEM;
	}
	dwfl_report_begin(d->dwfl);
	if (dwfl_linux_proc_report(d->dwfl, getpid()) != 0) {
		trev__dwarf_close(d);
		return -ENOENT;
	}
	dwfl_report_end(d->dwfl, NULL, NULL);
	*out = d;
	return 0;
}

int trev__dwarf_open_file(const char *path, struct trev_dwarf **out)
{
	struct trev_dwarf *d;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->dwfl = dwfl_begin(&dw_file_cb))) {
		free(d);
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(d->dwfl);
	/* libdwfl owns @fd from here, closed or not. */
	d->file = dwfl_report_offline(d->dwfl, path, path, fd);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->file) {
		trev__dwarf_close(d);
		return -ENOEXEC;
	}
	*out = d;
	return 0;
}

void trev__dwarf_close(struct trev_dwarf *d)
{
	if (!d)
		return;
	dwfl_end(d->dwfl);
	free(d);
}

/* The out-of-line function around DWARF address @pc of @cu: its DW_TAG_subprogram. */
static int dw_subprogram(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes);

	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*out = scopes[i];
			free(scopes);
			return 0;
		}
	}
	free(scopes);
	return -ENOENT;
}

int trev__dwarf_func_at(struct trev_dwarf *d, uint64_t addr, struct trev_dwarf_func *f)
{
	Dwfl_Module *mod = dwfl_addrmodule(d->dwfl, addr);
	Dwarf_Addr bias = 0, lo;
	Dwarf_Die *cu;

	if (!mod)
		return -ESRCH;
	if (!dwfl_module_getdwarf(mod, &bias))
		return -ENODATA;
	cu = dwfl_module_addrdie(mod, addr, &bias);
	if (!cu || dw_subprogram(cu, addr - bias, &f->die))
		return -ENOENT;
	if (dwarf_lowpc(&f->die, &lo) != 0 && dwarf_entrypc(&f->die, &lo) != 0)
		return -ENOENT;
	f->low_pc = lo + bias;
	f->bias = bias;
	return 0;
}

/* @owner's DW_AT_type (its abstract origin's or specification's too) into @out. */
static bool dw_type_ref(Dwarf_Die *owner, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(owner, DW_AT_type, &attr) && dwarf_formref_die(&attr, out);
}

/* Typedefs and qualifiers skipped, at most 64 (a loop in malformed DWARF ends). */
static bool dw_strip(Dwarf_Die *die)
{
	for (int i = 0; i < 64; i++) {
		switch (dwarf_tag(die)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!dw_type_ref(die, die))
				return false;	/* const void */
			break;
		default:
			return true;
		}
	}
	return false;
}

static unsigned int dw_size(Dwarf_Die *die)
{
	Dwarf_Word w;

	if (dwarf_aggregate_size(die, &w) == 0 && w <= 1u << 30)
		return (unsigned int)w;
	return 0;
}

static bool dw_is_char(Dwarf_Die *owner)
{
	Dwarf_Die t;

	if (!dw_type_ref(owner, &t) || !dw_strip(&t))
		return false;
	return dwarf_tag(&t) == DW_TAG_base_type && dw_size(&t) == 1;
}

int trev__dwarf_type(Dwarf_Die *owner, struct trev_dwarf_type *t)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc = 0;

	memset(t, 0, sizeof(*t));
	if (!dwarf_attr_integrate(owner, DW_AT_type, &attr)) {
		t->kind = TREV_DW_VOID;
		return 0;
	}
	if (!dwarf_formref_die(&attr, &t->die))
		return -EINVAL;
	if (!dw_strip(&t->die)) {
		t->kind = TREV_DW_VOID;
		return 0;
	}
	t->size = dw_size(&t->die);
	switch (dwarf_tag(&t->die)) {
	case DW_TAG_base_type:
		if (dwarf_formudata(dwarf_attr(&t->die, DW_AT_encoding, &attr), &enc))
			return -EINVAL;
		switch (enc) {
		case DW_ATE_float:
		case DW_ATE_complex_float:
		case DW_ATE_decimal_float:
			t->kind = TREV_DW_FLOAT;
			break;
		default:
			t->kind = TREV_DW_INT;
			t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
			break;
		}
		break;
	case DW_TAG_enumeration_type:
		t->kind = TREV_DW_INT;
		t->is_signed = true;	/* the kernel's s32 for an enum */
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t->kind = TREV_DW_PTR;
		if (!t->size)
			t->size = 8;
		t->char_data = dw_is_char(&t->die);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		t->kind = TREV_DW_STRUCT;
		break;
	case DW_TAG_array_type:
		t->kind = TREV_DW_ARRAY;
		t->char_data = dw_is_char(&t->die);
		break;
	default:
		t->kind = TREV_DW_OTHER;
		break;
	}
	return 0;
}

/* The C text of the type @die (NULL: void), @depth bounding malformed loops. */
static int dw_name_of(Dwarf_Die *die, char *buf, size_t size, int depth)
{
	const char *kw = NULL, *name;
	Dwarf_Die inner;
	bool has_inner;
	size_t len;
	int n;

	if (depth > 32)
		return snprintf(buf, size, "?") < (int)size ? 0 : -ENOSPC;
	if (!die)
		return snprintf(buf, size, "void") < (int)size ? 0 : -ENOSPC;
	has_inner = dw_type_ref(die, &inner);
	name = dwarf_diename(die);
	switch (dwarf_tag(die)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (has_inner && dwarf_tag(&inner) == DW_TAG_subroutine_type) {
			Dwarf_Die ret;

			if (dw_name_of(dw_type_ref(&inner, &ret) ? &ret : NULL, buf, size, depth + 1))
				return -ENOSPC;
			len = strlen(buf);
			return snprintf(buf + len, size - len, " (*)()") < (int)(size - len) ?
			       0 : -ENOSPC;
		}
		if (dw_name_of(has_inner ? &inner : NULL, buf, size, depth + 1))
			return -ENOSPC;
		len = strlen(buf);
		n = snprintf(buf + len, size - len, "%s%c", buf[len - 1] == '*' ? "" : " ",
			     dwarf_tag(die) == DW_TAG_pointer_type ? '*' : '&');
		return n < (int)(size - len) ? 0 : -ENOSPC;
	case DW_TAG_const_type:
		kw = "const";
		break;
	case DW_TAG_volatile_type:
		kw = "volatile";
		break;
	case DW_TAG_restrict_type:
		kw = "restrict";
		break;
	case DW_TAG_structure_type:
		return snprintf(buf, size, "struct %s", name ? name : "{...}") < (int)size ?
		       0 : -ENOSPC;
	case DW_TAG_union_type:
		return snprintf(buf, size, "union %s", name ? name : "{...}") < (int)size ?
		       0 : -ENOSPC;
	case DW_TAG_class_type:
		return snprintf(buf, size, "class %s", name ? name : "{...}") < (int)size ?
		       0 : -ENOSPC;
	case DW_TAG_enumeration_type:
		return snprintf(buf, size, "enum %s", name ? name : "{...}") < (int)size ?
		       0 : -ENOSPC;
	case DW_TAG_array_type:
		if (dw_name_of(has_inner ? &inner : NULL, buf, size, depth + 1))
			return -ENOSPC;
		len = strlen(buf);
		return snprintf(buf + len, size - len, "[]") < (int)(size - len) ? 0 : -ENOSPC;
	default:
		return snprintf(buf, size, "%s", name ? name : "?") < (int)size ? 0 : -ENOSPC;
	}
	/* A qualifier: "const char", but "char *const" after a pointer. */
	if (has_inner && dwarf_tag(&inner) == DW_TAG_pointer_type) {
		if (dw_name_of(&inner, buf, size, depth + 1))
			return -ENOSPC;
		len = strlen(buf);
		return snprintf(buf + len, size - len, "%s", kw) < (int)(size - len) ? 0 : -ENOSPC;
	}
	n = snprintf(buf, size, "%s ", kw);
	if (n >= (int)size)
		return -ENOSPC;
	return dw_name_of(has_inner ? &inner : NULL, buf + n, size - (size_t)n, depth + 1);
}

int trev__dwarf_type_name(Dwarf_Die *owner, char *buf, size_t size)
{
	Dwarf_Die t;

	return dw_name_of(dw_type_ref(owner, &t) ? &t : NULL, buf, size, 0);
}

/* The register @p has at DWARF address @pc by its own location, else -1. */
static int dw_loc_reg(Dwarf_Die *p, Dwarf_Addr pc)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(p, DW_AT_location, &attr))
		return -1;
	if (dwarf_getlocation_addr(&attr, pc, &expr, &len, 1) != 1 || len != 1)
		return -1;
	if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31)
		return expr[0].atom - DW_OP_reg0;
	if (expr[0].atom == DW_OP_regx && expr[0].number < 17)
		return (int)expr[0].number;
	return -1;
}

int trev__dwarf_params(const struct trev_dwarf_func *f, uint64_t pc, struct trev_dwarf_param *p,
		       int max)
{
	/* The ABI's integer argument registers by DWARF number: rdi rsi rdx rcx r8 r9. */
	static const int abi_regs[] = { 5, 4, 1, 2, 8, 9 };
	Dwarf_Die func = f->die, child, origin;
	Dwarf_Attribute attr;
	unsigned int gpr = 0, sse = 0;
	long stack = 8;
	bool lost = false;
	int n = 0, ret;

	/* A concrete instance without parameters of its own: its abstract origin's. */
	ret = dwarf_child(&func, &child);
	while (ret == 0 && dwarf_tag(&child) != DW_TAG_formal_parameter)
		ret = dwarf_siblingof(&child, &child);
	if (ret != 0 && dwarf_attr(&func, DW_AT_abstract_origin, &attr) &&
	    dwarf_formref_die(&attr, &origin))
		func = origin;
	for (ret = dwarf_child(&func, &child); ret == 0; ret = dwarf_siblingof(&child, &child)) {
		struct trev_dwarf_type t;
		struct trev_dwarf_param *q;
		int reg;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		if (n == max)
			return -E2BIG;
		q = &p[n++];
		q->name = dwarf_diename(&child);
		q->die = child;
		q->where = TREV_DW_NOWHERE;
		q->reg = -1;
		q->stack = 0;
		if (trev__dwarf_type(&child, &t))
			t.kind = TREV_DW_OTHER;
		/* The ABI's place, which counts the registers and stack used so far. */
		if (t.kind == TREV_DW_INT || t.kind == TREV_DW_PTR) {
			unsigned int words = t.size > 8 ? 2 : 1;

			if (gpr + words <= 6) {
				q->where = TREV_DW_IN_REG;
				q->reg = abi_regs[gpr];
				gpr += words;
			} else {
				q->where = TREV_DW_ON_STACK;
				q->stack = stack;
				stack += 8l * words;
			}
		} else if (t.kind == TREV_DW_FLOAT && t.size <= 8) {
			if (sse++ >= 8) {
				q->where = TREV_DW_ON_STACK;
				q->stack = stack;
				stack += 8;
			}
		} else if ((t.kind == TREV_DW_STRUCT || t.kind == TREV_DW_FLOAT) && t.size > 16) {
			q->where = TREV_DW_ON_STACK;	/* in memory: its bytes there */
			q->stack = stack;
			stack += (long)((t.size + 7) & ~7u);
		} else {
			/* Small structs and long double: classes this reader does not follow. */
			lost = true;
		}
		if (lost)
			q->where = TREV_DW_NOWHERE;
		/* Its own location at @pc wins (a register at -O2; at -O0 a stack slot not yet written). */
		reg = dw_loc_reg(&child, pc - f->bias);
		if (reg >= 0 && reg < 16 && reg != 7) {
			q->where = TREV_DW_IN_REG;
			q->reg = reg;
		}
	}
	return n;
}

/* Member @name of @st, its offset added to *@off; @depth bounds anonymous nesting. */
static int dw_member(Dwarf_Die *st, const char *name, Dwarf_Die *out, long *off,
		     unsigned int *bit_size, unsigned int *bit_off, int depth)
{
	Dwarf_Die m;
	int ret;

	if (depth > 16)
		return -ENOENT;
	for (ret = dwarf_child(st, &m); ret == 0; ret = dwarf_siblingof(&m, &m)) {
		const char *mn;
		Dwarf_Attribute attr;
		Dwarf_Word w = 0;
		long here = 0;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		mn = dwarf_diename(&m);
		if (dwarf_attr(&m, DW_AT_data_member_location, &attr) &&
		    dwarf_formudata(&attr, &w) == 0)
			here = (long)w;
		if (mn && strcmp(mn, name) == 0) {
			Dwarf_Word bs = 0, bo = 0;

			*out = m;
			*bit_size = 0;
			*bit_off = 0;
			if (dwarf_formudata(dwarf_attr(&m, DW_AT_bit_size, &attr), &bs) == 0 && bs) {
				if (dwarf_formudata(dwarf_attr(&m, DW_AT_data_bit_offset, &attr),
						    &bo) == 0) {
					here = (long)(bo / 8);
					bo %= 8;
				} else {
					/* DWARF 2's: from the storage unit's most significant bit. */
					Dwarf_Word hb = 0;
					int sz = dwarf_bytesize(&m);

					dwarf_formudata(dwarf_attr(&m, DW_AT_bit_offset, &attr), &hb);
					if (sz <= 0 || hb + bs > (Dwarf_Word)sz * 8)
						return -ENOENT;
					bo = (Dwarf_Word)sz * 8 - hb - bs;
					here += (long)(bo / 8);
					bo %= 8;
				}
				*bit_size = (unsigned int)bs;
				*bit_off = (unsigned int)bo;
			}
			*off += here;
			return 0;
		}
		if (!mn) {
			Dwarf_Die t;

			if (dw_type_ref(&m, &t) && dw_strip(&t) &&
			    (dwarf_tag(&t) == DW_TAG_structure_type ||
			     dwarf_tag(&t) == DW_TAG_union_type)) {
				long sub = here;

				if (dw_member(&t, name, out, &sub, bit_size, bit_off, depth + 1) == 0) {
					*off += sub;
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}

int trev__dwarf_member(Dwarf_Die *st, const char *name, Dwarf_Die *member, long *byte_off,
		       unsigned int *bit_size, unsigned int *bit_off)
{
	*byte_off = 0;
	return dw_member(st, name, member, byte_off, bit_size, bit_off, 0);
}

struct dw_sym {
	uint64_t addr;
	const char *name;
};

static int dw_sym_cmp(const void *a, const void *b)
{
	const struct dw_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

int trev__dwarf_for_each_func(struct trev_dwarf *d,
			      int (*fn)(const char *name, uint64_t addr,
					struct trev_dwarf_func *f, void *arg),
			      void *arg)
{
	int n = d->file ? dwfl_module_getsymtab(d->file) : -1;
	struct dw_sym *syms;
	size_t k = 0;
	int ret = 0;

	if (n <= 0)
		return 0;
	syms = calloc((size_t)n, sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(d->file, i, &sym, &addr, NULL, NULL,
							   NULL);

		if (!name || !*name || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		syms[k].addr = addr;
		syms[k++].name = name;
	}
	qsort(syms, k, sizeof(*syms), dw_sym_cmp);
	for (size_t i = 0; i < k && !ret; i++) {
		struct trev_dwarf_func f;

		if (i && syms[i].addr == syms[i - 1].addr && !strcmp(syms[i].name, syms[i - 1].name))
			continue;
		ret = fn(syms[i].name, syms[i].addr,
			 trev__dwarf_func_at(d, syms[i].addr, &f) ? NULL : &f, arg);
	}
	free(syms);
	return ret;
}
