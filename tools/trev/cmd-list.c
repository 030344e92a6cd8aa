/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev list [-p PID | [--usdt] FILE]: the events of a running process (its
 * available_events), or of a program or shared library read from its
 * __trev_events section with libelf, without running it; with --usdt, its
 * USDT probes (.note.stapsdt, docs/usdt.md); with --functions, its functions
 * and their parameters from DWARF (src/sym/dwarf_func.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trev/trace_event.h>

#include "descr.h"
#include "sym/dwarf_func.h"
#include "remote.h"
#include "trev.h"
#include "usdt_note.h"

static const char list_help[] =
	"usage: trev list -p PID\n"
	"       trev list [--usdt] FILE\n"
	"       trev list --functions [-f GLOB]... [-x GLOB]... FILE\n"
	"\n"
	"Print the events, one SYSTEM:EVENT a line:\n"
	"  -p PID   of running process PID: its available_events, then the built-in\n"
	"           ftrace events (ftrace:print ...), which have no enable switch\n"
	"  FILE     of a program or shared library that defines trev events, read from\n"
	"           its ELF sections without running it, in the order the library\n"
	"           registers them (the order of available_events)\n"
	"  --usdt   the USDT probes of FILE instead (its .note.stapsdt notes), one a\n"
	"           line: PROVIDER:NAME pc=ADDR semaphore=ADDR|none args=ARGS\n"
	"  --functions  the functions of FILE (a program or library: .symtab, else\n"
	"           .dynsym) and their parameters from its DWARF (or its /usr/lib/debug\n"
	"           file), one a line in address order: NAME(TYPE PARAM, ...) -> RETURN\n"
	"           NAME(void) -> RETURN without parameters, NAME(?) without DWARF\n"
	"  -f, --filter GLOB   only the functions whose name matches GLOB (repeatable)\n"
	"  -x, --exclude GLOB  not those whose name matches GLOB (repeatable)\n";

/* ------------------------------------------------------------------ */
/* A running process                                                    */

static int lst_ftrace_one(const char *name, int is_dir, unsigned int mode, void *arg)
{
	(void)mode, (void)arg;
	if (is_dir)
		printf("ftrace:%s\n", name);
	return 0;
}

static int lst_process(pid_t pid)
{
	struct trev_remote *r = trev_attach(pid);
	char *text = NULL;
	ssize_t n;
	int ret;

	if (!r)
		return 1;
	n = trev_remote_read_file(r, "available_events", &text);
	if (n < 0) {
		trev_err("list: available_events: %s", strerror((int)-n));
		trev_remote_close(r);
		return 1;
	}
	fwrite(text, 1, (size_t)n, stdout);
	free(text);
	ret = trev_remote_readdir(r, "events/ftrace", lst_ftrace_one, NULL);
	trev_remote_close(r);
	if (ret < 0 && ret != -ENOENT) {
		trev_err("list: events/ftrace: %s", strerror(-ret));
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* An ELF file                                                          */

/* A pointer-sized word the dynamic loader writes at @vaddr: its value once loaded. */
struct lst_reloc {
	uint64_t vaddr;
	uint64_t value;
	int known;		/* 0: a symbol of another object (not resolvable here) */
};

struct lst_elf {
	const char *path;
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	struct lst_reloc *rel;	/* sorted by vaddr */
	size_t nr_rel, cap_rel;
};

/*
 * The relocations of a pointer word that matter here: relative ones (a PIE
 * or a shared object: load base + addend, read as the addend) and absolute
 * ones against a symbol of the object itself (its value + addend).
 */
static int lst_reloc_kind(const GElf_Ehdr *eh, unsigned int type)
{
	switch (eh->e_machine) {
	case EM_X86_64:
		return type == 8 /* R_X86_64_RELATIVE */ ? 1 :
		       type == 1 /* R_X86_64_64 */ || type == 6 /* R_X86_64_GLOB_DAT */ ? 2 : 0;
	case EM_AARCH64:
		return type == 1027 /* R_AARCH64_RELATIVE */ ? 1 :
		       type == 257 /* R_AARCH64_ABS64 */ || type == 1025 /* GLOB_DAT */ ? 2 : 0;
	default:
		return 0;
	}
}

static int lst_rel_cmp(const void *a, const void *b)
{
	const struct lst_reloc *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* Read one pointer-sized word at file offset @off. */
static int lst_pread_word(struct lst_elf *e, uint64_t off, uint64_t *out)
{
	return pread(e->fd, out, sizeof(*out), (off_t)off) == (ssize_t)sizeof(*out) ? 0 : -EIO;
}

/* The file offset of @vaddr (and how many bytes follow it in the file). */
static int lst_vaddr_off(struct lst_elf *e, uint64_t vaddr, uint64_t *off, uint64_t *avail)
{
	for (size_t i = 0; i < e->eh.e_phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		*off = ph.p_offset + (vaddr - ph.p_vaddr);
		*avail = ph.p_filesz - (vaddr - ph.p_vaddr);
		return 0;
	}
	return -EFAULT;
}

static int lst_collect_relocs(struct lst_elf *e)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e->elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Data *data, *syms;
		Elf_Scn *symscn;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
			continue;
		data = elf_getdata(scn, NULL);
		symscn = elf_getscn(e->elf, sh.sh_link);
		syms = symscn && gelf_getshdr(symscn, &symsh) ? elf_getdata(symscn, NULL) : NULL;
		if (!data || !sh.sh_entsize)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela ra;
			GElf_Rel rl;
			GElf_Sym sym;
			struct lst_reloc *nr, *r;
			int kind;

			if (sh.sh_type == SHT_RELA) {
				if (!gelf_getrela(data, (int)i, &ra))
					continue;
			} else {
				uint64_t off, avail, v = 0;

				if (!gelf_getrel(data, (int)i, &rl))
					continue;
				/* REL: the addend is the word in place. */
				if (!lst_vaddr_off(e, rl.r_offset, &off, &avail) && avail >= 8)
					lst_pread_word(e, off, &v);
				ra = (GElf_Rela){ rl.r_offset, rl.r_info, (GElf_Sxword)v };
			}
			kind = lst_reloc_kind(&e->eh, (unsigned int)GELF_R_TYPE(ra.r_info));
			if (!kind)
				continue;
			if (e->nr_rel == e->cap_rel) {
				/* Tens of thousands in a big program: grow geometrically. */
				e->cap_rel = e->cap_rel ? 2 * e->cap_rel : 1024;
				nr = realloc(e->rel, e->cap_rel * sizeof(*nr));
				if (!nr)
					return -ENOMEM;
				e->rel = nr;
			}
			r = &e->rel[e->nr_rel++];
			r->vaddr = ra.r_offset;
			r->value = (uint64_t)ra.r_addend;
			r->known = 1;
			if (kind == 2) {
				r->known = syms &&
					   gelf_getsym(syms, (int)GELF_R_SYM(ra.r_info), &sym) &&
					   sym.st_shndx != SHN_UNDEF;
				r->value += r->known ? sym.st_value : 0;
			}
		}
	}
	if (e->nr_rel)
		qsort(e->rel, e->nr_rel, sizeof(*e->rel), lst_rel_cmp);
	return 0;
}

/* The pointer stored at @vaddr as the loaded object would see it (load base 0). */
static int lst_read_ptr(struct lst_elf *e, uint64_t vaddr, uint64_t *out)
{
	struct lst_reloc key = { vaddr, 0, 0 };
	const struct lst_reloc *r = e->nr_rel ?
		bsearch(&key, e->rel, e->nr_rel, sizeof(*e->rel), lst_rel_cmp) : NULL;
	uint64_t off, avail;

	if (r) {
		*out = r->value;
		return r->known ? 0 : -ENOENT;
	}
	if (lst_vaddr_off(e, vaddr, &off, &avail) || avail < 8)
		return -EFAULT;
	return lst_pread_word(e, off, out);
}

/* descr_mem's readers over the file. */
static int lst_mem_read(void *ctx, uint64_t vaddr, void *buf, size_t len)
{
	struct lst_elf *e = ctx;
	uint64_t off, avail;

	if (lst_vaddr_off(e, vaddr, &off, &avail) || avail < len)
		return -EFAULT;
	return pread(e->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -EFAULT;
}

static int lst_mem_read_ptr(void *ctx, uint64_t vaddr, uint64_t *out)
{
	return lst_read_ptr(ctx, vaddr, out);
}

/*
 * One event of the section: "system:name"; 1 for a built-in one; or an
 * error for a broken entry or one of an unknown ABI, said here.
 */
static int lst_event(struct lst_elf *e, uint64_t at, uint64_t call, char *out, size_t size)
{
	const struct descr_mem mem = { e, lst_mem_read, lst_mem_read_ptr };
	struct descr_event ev;
	int ret = descr_event(&mem, call, &ev);

	if (ret == -EPROTO) {
		trev_err("list: %s: the event descriptor at %#llx is of ABI %u; this trev reads "
			 "ABI 0 to %d (use a newer trev)", e->path, (unsigned long long)call,
			 ev.abi, TREV_ABI_VERSION);
		return ret;
	}
	if (ret == -EINVAL) {
		trev_err("list: %s: the event descriptor at %#llx has a broken ABI header "
			 "(ABI %u, size %u)", e->path, (unsigned long long)call, ev.abi, ev.size);
		return ret;
	}
	if (ret) {
		trev_err("list: %s: the __trev_events entry at %#llx cannot be read", e->path,
			 (unsigned long long)at);
		return ret;
	}
	/* Built-in ftrace events (libtrev's own) have no enable switch: not listed. */
	if (ev.flags & TREV_EVENT_FL_FTRACE)
		return 1;
	snprintf(out, size, "%s:%s", ev.system, ev.name);
	return 0;
}

static Elf_Scn *lst_find_section(struct lst_elf *e, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e->elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(e->elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* Open @e->path as an ELF file that trev list reads, or say why not. Return: 0 or 1. */
static int lst_open(struct lst_elf *e)
{
	const char *path = e->path;

	elf_version(EV_CURRENT);
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		trev_err("list: %s: %s", path, strerror(errno));
		return 1;
	}
	e->elf = elf_begin(e->fd, ELF_C_READ, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &e->eh)) {
		trev_err("list: %s: not an ELF file", path);
		return 1;
	}
	if (e->eh.e_type != ET_EXEC && e->eh.e_type != ET_DYN) {
		trev_err("list: %s: not an executable or shared library", path);
		return 1;
	}
	if (e->eh.e_ident[EI_CLASS] != ELFCLASS64 || e->eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    (e->eh.e_machine != EM_X86_64 && e->eh.e_machine != EM_AARCH64)) {
		trev_err("list: %s: only 64-bit little-endian x86-64 and aarch64 files are read",
			 path);
		return 1;
	}
	return 0;
}

static void lst_close(struct lst_elf *e)
{
	free(e->rel);
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
}

static int lst_file(const char *path)
{
	struct lst_elf e = { .path = path, .fd = -1 };
	char **seen = NULL;
	size_t nr_seen = 0, listed = 0;
	GElf_Shdr sh;
	int ret = 1;

	if (lst_open(&e))
		goto out;
	if (!lst_find_section(&e, "__trev_events", &sh) || sh.sh_type == SHT_NOBITS ||
	    sh.sh_size < 8) {
		trev_err("list: %s: no trev events (no __trev_events section)", path);
		goto out;
	}
	if (lst_collect_relocs(&e)) {
		trev_err("list: %s", strerror(ENOMEM));
		goto out;
	}
	for (uint64_t at = sh.sh_addr; at + 8 <= sh.sh_addr + sh.sh_size; at += 8) {
		char line[600], **ns;
		uint64_t call;
		bool dup = false;
		int r;

		/* An entry may be 0 (a discarded event); the loader skips those too. */
		if (lst_read_ptr(&e, at, &call) || !call)
			continue;
		r = lst_event(&e, at, call, line, sizeof(line));
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		/* Registration refuses a second event of the same name. */
		for (size_t i = 0; i < nr_seen && !dup; i++)
			dup = !strcmp(seen[i], line);
		if (dup)
			continue;
		ns = realloc(seen, (nr_seen + 1) * sizeof(*ns));
		if (!ns || !(ns[nr_seen] = strdup(line))) {
			seen = ns ? ns : seen;
			trev_err("list: %s", strerror(ENOMEM));
			goto out;
		}
		seen = ns;
		nr_seen++;
		printf("%s\n", line);
		listed++;
	}
	if (!listed) {
		trev_err("list: %s: no trev events", path);
		goto out;
	}
	ret = fflush(stdout) ? 1 : 0;
out:
	for (size_t i = 0; i < nr_seen; i++)
		free(seen[i]);
	free(seen);
	lst_close(&e);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The USDT probes of an ELF file                                       */

/* One note: its line, or an error said here. Return: 0 or 1. */
static int lst_usdt_note(struct lst_elf *e, const void *desc, size_t len, size_t at,
			 bool have_base, uint64_t base)
{
	struct usdt_note n;
	const char *why;
	uint64_t pc, sem;

	if (usdt_note_parse(desc, len, &n, &why)) {
		trev_err("list: %s: the stapsdt note at offset %#zx of .note.stapsdt is broken: %s",
			 e->path, at, why);
		return 1;
	}
	/* Moved after linking (prelink): the base section says by how much. */
	pc = have_base ? n.pc + (base - n.base) : n.pc;
	sem = have_base && n.semaphore ? n.semaphore + (base - n.base) : n.semaphore;
	printf("%s:%s pc=%#llx semaphore=", n.provider, n.name, (unsigned long long)pc);
	if (sem)
		printf("%#llx", (unsigned long long)sem);
	else
		fputs("none", stdout);
	printf(" args=%s\n", n.args);
	return 0;
}

static int lst_usdt(const char *path)
{
	struct lst_elf e = { .path = path, .fd = -1 };
	GElf_Shdr sh, base_sh = { 0 };
	bool have_base;
	size_t listed = 0;
	Elf_Scn *scn;
	int ret = 1;

	if (lst_open(&e))
		goto out;
	scn = lst_find_section(&e, ".note.stapsdt", &sh);
	if (!scn || sh.sh_type != SHT_NOTE) {
		trev_err("list: %s: no USDT probes (no .note.stapsdt section)", path);
		goto out;
	}
	have_base = lst_find_section(&e, ".stapsdt.base", &base_sh) != NULL;
	for (Elf_Data *d = NULL; (d = elf_getdata(scn, d));) {
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;

		while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const char *name = (const char *)d->d_buf + name_off;

			if (nh.n_type == USDT_NOTE_TYPE && nh.n_namesz == sizeof("stapsdt") &&
			    !memcmp(name, "stapsdt", sizeof("stapsdt"))) {
				if (lst_usdt_note(&e, (const char *)d->d_buf + desc_off,
						  nh.n_descsz, off, have_base, base_sh.sh_addr))
					goto out;
				listed++;
			}
			off = next;
		}
		if (off < d->d_size) {
			trev_err("list: %s: the note at offset %#zx of .note.stapsdt is broken: "
				 "its sizes go past the section", path, off);
			goto out;
		}
	}
	if (!listed) {
		trev_err("list: %s: no USDT probes", path);
		goto out;
	}
	ret = fflush(stdout) ? 1 : 0;
out:
	lst_close(&e);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The functions of an ELF file                                         */

struct lst_globs {
	char **inc, **exc;	/* --filter and --exclude, NULL-terminated */
};

static bool lst_match(char **globs, const char *name)
{
	for (; globs && *globs; globs++)
		if (!fnmatch(*globs, name, 0))
			return true;
	return false;
}

/* One function: "NAME(TYPE PARAM, ...) -> RETURN", "NAME(?)" without DWARF. */
static int lst_function(const char *name, uint64_t addr, struct trev_dwarf_func *f, void *arg)
{
	struct trev_dwarf_param params[128];
	struct lst_globs *g = arg;
	char type[512];
	int n;

	(void)addr;
	if ((g->inc && !lst_match(g->inc, name)) || lst_match(g->exc, name))
		return 0;
	if (!f) {
		printf("%s(?)\n", name);
		return 0;
	}
	n = trev__dwarf_params(f, f->low_pc, params, 128);
	printf("%s(", name);
	if (n == 0)
		fputs("void", stdout);
	for (int i = 0; i < n; i++) {
		if (trev__dwarf_type_name(&params[i].die, type, sizeof(type)))
			snprintf(type, sizeof(type), "?");
		printf("%s%s%s%s", i ? ", " : "", type,
		       params[i].name && type[strlen(type) - 1] != '*' ? " " : "",
		       params[i].name ? params[i].name : "");
	}
	if (n < 0)
		fputs("...", stdout);
	if (trev__dwarf_type_name(&f->die, type, sizeof(type)))
		snprintf(type, sizeof(type), "?");
	printf(") -> %s\n", type);
	return 0;
}

static int lst_functions(const char *path, struct lst_globs *g)
{
	struct trev_dwarf *d;
	int ret = trev__dwarf_open_file(path, &d);

	if (ret) {
		trev_err("list: %s: %s", path, ret == -ENOEXEC ? "not an ELF file" : strerror(-ret));
		return 1;
	}
	ret = trev__dwarf_for_each_func(d, lst_function, g);
	trev__dwarf_close(d);
	if (ret) {
		trev_err("list: %s: %s", path, strerror(-ret));
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

/* Add @glob to the NULL-terminated list @v. */
static int lst_glob_add(char ***v, char *glob)
{
	size_t n = 0;
	char **nv;

	while (*v && (*v)[n])
		n++;
	nv = realloc(*v, (n + 2) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	nv[n] = glob;
	nv[n + 1] = NULL;
	*v = nv;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "usdt", no_argument, NULL, 'u' },
		{ "functions", no_argument, NULL, 'F' },
		{ "filter", required_argument, NULL, 'f' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lst_globs g = { NULL, NULL };
	bool usdt = false, funcs = false;
	pid_t pid = 0;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+p:f:x:h", opts, NULL)) != -1) {
		if (c == 'h') {
			free(g.inc);
			free(g.exc);
			fputs(list_help, stdout);
			return 0;
		}
		if (c == 'u' || c == 'F') {
			*(c == 'u' ? &usdt : &funcs) = true;
			continue;
		}
		if (c == 'f' || c == 'x') {
			if (lst_glob_add(c == 'f' ? &g.inc : &g.exc, optarg)) {
				trev_err("list: %s", strerror(ENOMEM));
				return 1;
			}
			continue;
		}
		if (c != 'p' || (pid = trev_parse_pid(optarg)) < 0) {
			fputs(list_help, stderr);
			return 2;
		}
	}
	if ((pid && (usdt || funcs)) || (usdt && funcs) || ((g.inc || g.exc) && !funcs) ||
	    (pid ? optind != argc : optind != argc - 1)) {
		free(g.inc);
		free(g.exc);
		fputs(list_help, stderr);
		return 2;
	}
	if (funcs) {
		ret = lst_functions(argv[optind], &g);
		free(g.inc);
		free(g.exc);
		return ret;
	}
	if (pid)
		return lst_process(pid);
	return usdt ? lst_usdt(argv[optind]) : lst_file(argv[optind]);
}
