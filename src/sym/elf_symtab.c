/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An ELF file's symbol table (.symtab, else .dynsym) read with libelf into
 * one sorted array, and its PT_LOAD segments, for naming code addresses.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "sym/demangle.h"
#include "sym/elf_symtab.h"

/* Symbols worth naming an address after: defined code and data. */
static int symtab_rank(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	int bind = GELF_ST_BIND(sym->st_info);
	int rank;

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_ABS)
		return -1;
	switch (type) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
		rank = 4;
		break;
	case STT_OBJECT:
		rank = 2;
		break;
	case STT_NOTYPE:
		rank = 0;
		break;
	default:
		return -1;
	}
	return rank + (bind != STB_LOCAL);
}

static int symtab_cmp(const void *a, const void *b)
{
	const struct trev_symtab_ent *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* Best first at one address: global functions over local, over data. */
	if (x->rank != y->rank)
		return (int)y->rank - (int)x->rank;
	/* Then the first in the table, whatever qsort's order. */
	return x->name < y->name ? -1 : x->name > y->name;
}

/* The section of the symbols: .symtab, or lacking one .dynsym; NULL if neither. */
static Elf_Scn *symtab_section(Elf *elf, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL, *found = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !found)) {
			found = scn;
			*shdr = sh;
		}
	}
	return found && shdr->sh_entsize ? found : NULL;
}

static int symtab_read_segs(struct trev_symtab *tab, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) || !n)
		return 0;
	tab->segs = calloc(n, sizeof(*tab->segs));
	if (!tab->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		tab->segs[tab->nsegs++] =
			(struct trev_symtab_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	return 0;
}

static int symtab_read_syms(struct trev_symtab *tab, Elf *elf)
{
	struct trev_buf names = TREV_BUF_INIT;	/* every name, each with its NUL */
	size_t nsyms, n = 0, k = 0;
	GElf_Shdr shdr = { 0 };
	Elf_Scn *scn = symtab_section(elf, &shdr);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;

	if (!data)
		return 0;
	tab->dynsym = shdr.sh_type == SHT_DYNSYM;
	nsyms = shdr.sh_size / shdr.sh_entsize;
	tab->syms = calloc(nsyms ? nsyms : 1, sizeof(*tab->syms));
	if (!tab->syms)
		return -ENOMEM;
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		const char *name;
		char *shown;
		size_t len;
		int rank, err;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		rank = symtab_rank(&sym);
		if (rank < 0 || !sym.st_value)
			continue;
		name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		/* Skip unnamed symbols and ARM/AArch64 mapping symbols ($x, $d). */
		if (!name || !*name || name[0] == '$')
			continue;
		shown = trev__demangle(name);
		if (shown)
			name = shown;
		len = strlen(name) + 1;
		if (names.len + len > UINT32_MAX) {
			free(shown);
			break;
		}
		err = trev__buf_append(&names, name, len);
		free(shown);
		if (err) {
			trev__buf_free(&names);
			return -ENOMEM;
		}
		tab->syms[n].value = sym.st_value;
		tab->syms[n].size = sym.st_size;
		tab->syms[n].name = (uint32_t)(names.len - len);
		tab->syms[n].rank = (uint8_t)rank;
		n++;
	}
	qsort(tab->syms, n, sizeof(*tab->syms), symtab_cmp);
	/* Keep the best symbol per address; give sizeless ones the gap to the next. */
	for (size_t i = 0; i < n; i++) {
		if (k && tab->syms[k - 1].value == tab->syms[i].value)
			continue;
		tab->syms[k++] = tab->syms[i];
	}
	for (size_t i = 0; i + 1 < k; i++)
		if (!tab->syms[i].size)
			tab->syms[i].size = tab->syms[i + 1].value - tab->syms[i].value;
	tab->nsyms = k;
	if (!k) {
		free(tab->syms);
		tab->syms = NULL;
		trev__buf_free(&names);
	}
	tab->names = names.data;
	return 0;
}

int trev__symtab_load(struct trev_symtab *tab, int fd)
{
	Elf *elf;
	int ret;

	memset(tab, 0, sizeof(*tab));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	ret = elf_kind(elf) == ELF_K_ELF ? 0 : -ENOEXEC;
	if (!ret)
		ret = symtab_read_segs(tab, elf) ?: symtab_read_syms(tab, elf);
	elf_end(elf);
	return ret;
}

/* Binary search: how many symbols are at or below @vaddr. */
static size_t symtab_below(const struct trev_symtab *tab, uint64_t vaddr)
{
	size_t lo = 0, hi = tab->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last symbol at or below @vaddr, if it holds @vaddr. */
const struct trev_symtab_ent *trev__symtab_find(const struct trev_symtab *tab, uint64_t vaddr)
{
	size_t lo = symtab_below(tab, vaddr);

	if (!lo)
		return NULL;
	if (vaddr - tab->syms[lo - 1].value >= tab->syms[lo - 1].size &&
	    tab->syms[lo - 1].value != vaddr)
		return NULL;
	return &tab->syms[lo - 1];
}

/* The PT_LOAD segment that holds link-time address @vaddr, or NULL. */
static const struct trev_symtab_seg *symtab_seg(const struct trev_symtab *tab, uint64_t vaddr)
{
	for (size_t i = 0; i < tab->nsegs; i++)
		if (vaddr >= tab->segs[i].vaddr && vaddr - tab->segs[i].vaddr < tab->segs[i].filesz)
			return &tab->segs[i];
	return NULL;
}

const struct trev_symtab_ent *trev__symtab_lookup(const struct trev_symtab *tab, uint64_t vaddr,
						 bool *past_end, uint64_t *size)
{
	const struct trev_symtab_ent *e = trev__symtab_find(tab, vaddr);
	const struct trev_symtab_seg *seg;
	uint64_t end;
	size_t lo;

	*past_end = false;
	if (e) {
		*size = e->size;
		return e;
	}
	if (!tab->dynsym || !(lo = symtab_below(tab, vaddr)))
		return NULL;
	e = &tab->syms[lo - 1];
	seg = symtab_seg(tab, vaddr);
	if (!seg || e->value < seg->vaddr)
		return NULL;
	end = seg->vaddr + seg->filesz;
	if (lo < tab->nsyms && tab->syms[lo].value < end)
		end = tab->syms[lo].value;
	*past_end = true;
	*size = end - e->value;
	return e;
}

int trev__symtab_vaddr(const struct trev_symtab *tab, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < tab->nsegs; i++) {
		const struct trev_symtab_seg *s = &tab->segs[i];

		if (offset >= s->offset && offset - s->offset < s->filesz) {
			*vaddr = s->vaddr + (offset - s->offset);
			return 0;
		}
	}
	return -ENOENT;
}

void trev__symtab_free(struct trev_symtab *tab)
{
	free(tab->syms);
	free(tab->names);
	free(tab->segs);
	memset(tab, 0, sizeof(*tab));
}
