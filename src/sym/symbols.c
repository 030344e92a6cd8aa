/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Code addresses to symbol names (the kernel's kallsyms, for %ps/%pS/%pB and
 * the ip of trace_printk): dladdr() first, then the ELF .symtab (else
 * .dynsym) of the object that holds the address, read once with libelf and
 * kept for the process.
 *
 * Differences from the kernel:
 *  - the size in "name+0x1a/0x40" is the symbol's ELF st_size (the function
 *    itself); kallsyms reports the distance to the next symbol, which also
 *    counts the alignment padding after the function. A symbol without a size
 *    gets the distance to the next symbol, as in kallsyms.
 *  - an address past the end of the symbol before it (padding, PLT stubs,
 *    code with no symbol) is unknown here when the object has a .symtab;
 *    kallsyms would name the symbol before it. In an object stripped to its
 *    .dynsym (Debian's libc: its static functions, __libc_start_call_main
 *    among them, are in no table) it is named after the nearest exported
 *    symbol below it in its segment, always with the offset ("name+0x8a"),
 *    since the name alone would say the address is in that function.
 *  - no " [module]" suffix: every object of the process is "the kernel".
 *
 * A table is kept for the life of the process, keyed by path and load
 * address: an object unloaded and another loaded in its place under the same
 * name at the same address would be named from the old table.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/elf_symtab.h"
#include "sym/symbols.h"

/* The symbols of one loaded object; never freed. */
struct sym_obj {
	struct sym_obj *next;
	uintptr_t bias;		/* run-time address - link-time address */
	char *path;		/* as the dynamic loader names it ("" for the executable) */
	struct trev_symtab tab;	/* nsyms 0 when the object has no symbols */
};

static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sym_obj *sym_objs;	/* every object looked at; under sym_lock */

void trev__sym_crash_child(void)
{
	pthread_mutex_init(&sym_lock, NULL);
}

/* dl_iterate_phdr() search: the object whose PT_LOAD segments hold addr. */
struct sym_find {
	uintptr_t addr;
	uintptr_t bias;
	const char *path;
	int found;
};

static int sym_find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sym_find *f = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (f->addr >= start && f->addr - start < ph->p_memsz) {
			f->bias = info->dlpi_addr;
			f->path = info->dlpi_name;
			f->found = 1;
			return 1;
		}
	}
	return 0;
}

/* Read the symbols of @path into @obj. Called with sym_lock held. */
static void sym_load(struct sym_obj *obj, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (trev__symtab_load(&obj->tab, fd))
		trev__symtab_free(&obj->tab);
	close(fd);
}

/* The cached table of the object at @bias named @path; NULL without memory. */
static struct sym_obj *sym_obj_get(const char *path, uintptr_t bias)
{
	struct sym_obj *obj;

	pthread_mutex_lock(&sym_lock);
	for (obj = sym_objs; obj; obj = obj->next)
		if (obj->bias == bias && strcmp(obj->path, path) == 0)
			goto out_unlock;
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		goto out_unlock;
	obj->bias = bias;
	obj->path = strdup(path);
	if (!obj->path) {
		free(obj);
		obj = NULL;
		goto out_unlock;
	}
	/* The executable is "" to the loader; /proc/self/exe is its file. */
	sym_load(obj, *path ? path : "/proc/self/exe");
	obj->next = sym_objs;
	sym_objs = obj;
out_unlock:
	pthread_mutex_unlock(&sym_lock);
	return obj;
}

/**
 * trev__sym_lookup() - the symbol that holds an address
 * @addr: a run-time code or data address
 * @sym: filled in when found
 *
 * dladdr() when it names a symbol that holds @addr; otherwise the .symtab of
 * the object that holds @addr (static functions, executables linked without
 * -rdynamic), read on first use and kept; in an object with .dynsym only,
 * the nearest symbol below @addr (@sym->past_end).
 *
 * Context: any thread, not from a signal handler (takes the loader's lock and
 * a mutex; the first lookup in an object reads its file).
 * Return: 0, or -ENOENT when no symbol holds @addr.
 */
int trev__sym_lookup(unsigned long addr, struct trev_sym *sym)
{
	struct sym_find f = { .addr = addr };
	const struct trev_symtab_ent *e;
	const ElfW(Sym) *dsym = NULL;
	struct sym_obj *obj;
	uint64_t size;
	Dl_info info;

	if (dladdr1((void *)addr, &info, (void **)&dsym, RTLD_DL_SYMENT) && info.dli_sname &&
	    info.dli_saddr && dsym && dsym->st_size &&
	    addr - (unsigned long)info.dli_saddr < dsym->st_size) {
		sym->name = info.dli_sname;
		sym->start = (unsigned long)info.dli_saddr;
		sym->size = dsym->st_size;
		sym->object = info.dli_fname ? info.dli_fname : "";
		sym->past_end = false;
		return 0;
	}
	dl_iterate_phdr(sym_find_cb, &f);
	if (!f.found)
		return -ENOENT;
	obj = sym_obj_get(f.path ? f.path : "", f.bias);
	if (!obj || !obj->tab.nsyms)
		return -ENOENT;
	e = trev__symtab_lookup(&obj->tab, addr - f.bias, &sym->past_end, &size);
	if (!e)
		return -ENOENT;
	sym->name = obj->tab.names + e->name;
	sym->start = (unsigned long)e->value + f.bias;
	sym->size = (unsigned long)size;
	sym->object = obj->path;
	return 0;
}

/**
 * trev__sym_snprint() - print an address as %ps, %pS or %pB print it
 * @buf: where to write
 * @size: its size; the text is cut to fit and always NUL-terminated
 * @addr: the address
 * @mode: TREV_SYM_NAME "name", TREV_SYM_OFFSET "name+0x1a/0x40",
 *	  TREV_SYM_BACKTRACE as TREV_SYM_OFFSET for the call before a return
 *	  address (looks up @addr - 1, prints its offset + 1)
 *
 * An address no symbol holds prints as "0x%lx", as the kernel's
 * sprint_symbol() does; one past the end of the nearest symbol below it
 * (sym.past_end) prints with its offset in every mode.
 *
 * Context: as trev__sym_lookup().
 * Return: the length of the whole text (as snprintf: may be >= @size).
 */
int trev__sym_snprint(char *buf, size_t size, unsigned long addr, enum trev_sym_mode mode)
{
	unsigned long look = mode == TREV_SYM_BACKTRACE ? addr - 1 : addr;
	struct trev_sym sym;

	if (trev__sym_lookup(look, &sym) < 0)
		return snprintf(buf, size, "0x%lx", addr);
	if (mode == TREV_SYM_NAME && !sym.past_end)
		return snprintf(buf, size, "%s", sym.name);
	if (mode == TREV_SYM_NAME)
		return snprintf(buf, size, "%s+0x%lx", sym.name, look - sym.start);
	/* The kernel's "+%#lx/%#lx": its %#x prints 0 as "0x0". */
	return snprintf(buf, size, "%s+0x%lx/0x%lx", sym.name,
			look - sym.start + (mode == TREV_SYM_BACKTRACE), sym.size);
}
