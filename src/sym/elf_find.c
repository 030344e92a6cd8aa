/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Function symbols of an ELF image by name and address (elf_find.h). No
 * libelf: the image is read as it is, each header, table and string
 * checked to lie inside it before it is read (the image comes from a file
 * anyone may have written; tests/fuzz/fuzz_elf_find.c).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym/elf_find.h"

#define ELF_FIND_MAX	(1ul << 30)

/* [@off, @off + @size) lies inside an image of @len bytes. */
static bool ef_in(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

/* The ELF header, if the image is one trev reads. */
static const Elf64_Ehdr *ef_ehdr(const void *img, size_t len)
{
	const Elf64_Ehdr *eh = img;

	if (!img || len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return NULL;
	return eh;
}

/* Section @i's header, or NULL when the table does not fit. */
static const Elf64_Shdr *ef_shdr(const void *img, size_t len, const Elf64_Ehdr *eh, size_t i)
{
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || i >= eh->e_shnum ||
	    !ef_in(len, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return NULL;
	return (const Elf64_Shdr *)((const char *)img + eh->e_shoff) + i;
}

/* One symbol table: its symbols and its string table, both inside the image. */
struct ef_tab {
	const Elf64_Sym *syms;
	size_t n;
	const char *str;
	size_t strsz;
};

/*
 * The table of @type (SHT_SYMTAB or SHT_DYNSYM). Return: 0; -ENOENT (none,
 * or one that does not fit in the image: taken as none, so that each
 * lookup sees the same tables); -ENOEXEC (the section headers do not fit).
 */
static int ef_tab(const void *img, size_t len, const Elf64_Ehdr *eh, uint32_t type,
		  struct ef_tab *t)
{
	for (size_t i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = ef_shdr(img, len, eh, i), *ss;

		if (!sh)
			return -ENOEXEC;
		if (sh->sh_type != type)
			continue;
		if (sh->sh_entsize != sizeof(Elf64_Sym) || !ef_in(len, sh->sh_offset, sh->sh_size) ||
		    sh->sh_offset % 8)
			return -ENOENT;
		ss = ef_shdr(img, len, eh, sh->sh_link);
		if (!ss || ss->sh_type != SHT_STRTAB || !ef_in(len, ss->sh_offset, ss->sh_size))
			return -ENOENT;
		t->syms = (const Elf64_Sym *)(const void *)((const char *)img + sh->sh_offset);
		t->n = sh->sh_size / sizeof(Elf64_Sym);
		t->str = (const char *)img + ss->sh_offset;
		t->strsz = ss->sh_size;
		return 0;
	}
	return -ENOENT;
}

/* A defined function of the table. */
static bool ef_is_func(const Elf64_Sym *s)
{
	int type = ELF64_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF &&
	       s->st_shndx != SHN_ABS && s->st_value;
}

int trev__elf_funcs(const void *img, size_t len,
		    int (*cb)(void *arg, const char *name, const struct trev_elf_func *f),
		    void *arg)
{
	static const uint32_t types[] = { SHT_SYMTAB, SHT_DYNSYM };
	const Elf64_Ehdr *eh = ef_ehdr(img, len);

	if (!eh)
		return -ENOEXEC;
	for (size_t k = 0; k < 2; k++) {
		struct ef_tab t;
		int ret = ef_tab(img, len, eh, types[k], &t);

		if (ret == -ENOEXEC)
			return ret;
		if (ret)
			continue;
		for (size_t i = 0; i < t.n; i++) {
			const Elf64_Sym *s = &t.syms[i];
			struct trev_elf_func f = { s->st_value, s->st_size };

			if (!ef_is_func(s) || s->st_name >= t.strsz ||
			    !memchr(t.str + s->st_name, '\0', t.strsz - s->st_name))
				continue;
			ret = cb(arg, t.str + s->st_name, &f);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct ef_want {
	const char *name;
	struct trev_elf_func *f;
};

static int ef_match(void *arg, const char *name, const struct trev_elf_func *f)
{
	struct ef_want *w = arg;

	if (strcmp(name, w->name))
		return 0;
	*w->f = *f;
	return 1;
}

int trev__elf_func_by_name(const void *img, size_t len, const char *name,
			   struct trev_elf_func *f)
{
	struct ef_want w = { name, f };
	int ret = trev__elf_funcs(img, len, ef_match, &w);

	return ret < 0 ? ret : ret ? 0 : -ENOENT;
}

struct ef_around {
	uint64_t vaddr;
	struct trev_elf_func *f;
	bool found;
};

/* The innermost function around w->vaddr: the one that starts last. */
static int ef_holds(void *arg, const char *name, const struct trev_elf_func *f)
{
	struct ef_around *w = arg;

	(void)name;
	if (w->vaddr >= f->value && w->vaddr - f->value < f->size &&
	    (!w->found || f->value > w->f->value)) {
		*w->f = *f;
		w->found = true;
	}
	return 0;
}

int trev__elf_func_at(const void *img, size_t len, uint64_t vaddr, struct trev_elf_func *f)
{
	struct ef_around w = { vaddr, f, false };
	int ret = trev__elf_funcs(img, len, ef_holds, &w);

	return ret < 0 ? ret : w.found ? 0 : -ENOENT;
}

int trev__elf_offset_vaddr(const void *img, size_t len, uint64_t off, uint64_t *vaddr)
{
	const Elf64_Ehdr *eh = ef_ehdr(img, len);
	const Elf64_Phdr *ph;

	if (!eh)
		return -ENOEXEC;
	if (eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !ef_in(len, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
		return -ENOEXEC;
	ph = (const Elf64_Phdr *)(const void *)((const char *)img + eh->e_phoff);
	for (size_t i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		if (off >= ph[i].p_offset && off - ph[i].p_offset < ph[i].p_filesz) {
			*vaddr = ph[i].p_vaddr + (off - ph[i].p_offset);
			return 0;
		}
	}
	return -ENOENT;
}

int trev__elf_read(const char *path, void **img, size_t *len)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > ELF_FIND_MAX) {
		ret = -ENOEXEC;
		goto out_close;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n <= 0)
			break;	/* shorter than it was: what was read is the image */
		got += (size_t)n;
	}
	*img = buf;
	*len = got;
out_close:
	close(fd);
	return ret;
}
