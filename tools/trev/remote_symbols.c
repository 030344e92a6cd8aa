/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Another process's code addresses to function names, for the kallsyms of
 * the trace.dat files trev record writes: /proc/PID/maps says which file
 * holds an address and where it is mapped, the file's symbol table
 * (src/sym/elf_symtab.c) which function.
 *
 * The process may be gone when the file is written (killed, so there was
 * no exit hold), and the writer asks for names at each snapshot and at
 * the end. So nothing here needs the process after a lookup: maps are
 * read at the start and again only when an address falls outside every
 * mapping read so far (a library loaded since); files are read by path,
 * as they outlive the process; each address's answer is kept.
 *
 * maps names files from our root when the process shares our mount
 * namespace, and from the root of its own otherwise (a container, a
 * private /tmp): there they are looked up in /proc/PID/root, opened at the
 * start and kept (the process may be gone at the end). A path is opened
 * for reading only once fstat() of an O_PATH descriptor says it is the
 * regular file that was mapped: the process's user may have put a FIFO
 * (an open that never returns) or a device there since, and trev record
 * may run as root.
 *
 * Not named: addresses outside file mappings ([vdso], generated code); in
 * a file deleted or replaced since it was mapped ("(deleted)" in maps, or
 * another inode at its path); in a library loaded and unloaded between two
 * reads of maps; in a file without symbols (stripped, .dynsym empty); in a
 * file that /proc or its permissions keep from us. In a file stripped to
 * its .dynsym (Debian's libc), an address no symbol holds is named after
 * the nearest one below it (trev__symtab_lookup()).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "remote_symbols.h"
#include "sym/demangle.h"
#include "sym/elf_symtab.h"

/* One executable mapping of a file, as a line of /proc/PID/maps has it. */
struct rsym_map {
	uint64_t start, end;	/* [start, end) in the process */
	uint64_t offset;	/* the file offset mapped at start */
	size_t file;		/* its index in trev_remote_symbols.files */
};

/* A file some mapping named; its symbols are read on the first lookup in it. */
struct rsym_file {
	char *path;		/* as maps names it */
	ino_t ino;		/* as maps gives it: the file read must be the one mapped */
	int state;		/* 0 not read yet, 1 read, -1 no symbols to be had */
	struct trev_symtab tab;
};

/* One address looked up and its answer. */
struct rsym_addr {
	uint64_t addr;
	uint64_t start;		/* the function's address in the process */
	const char *name;	/* in a file's table; NULL: no symbol holds addr */
	bool past_end;		/* addr is past its end: the nearest below, in .dynsym */
};

/* The file named @path with inode @ino: its index, added if new, or -ENOMEM. */
static ssize_t rsym_file_index(struct trev_remote_symbols *rsyms, const char *path, ino_t ino)
{
	struct rsym_file *files;

	for (size_t i = 0; i < rsyms->nr_files; i++)
		if (rsyms->files[i].ino == ino && !strcmp(rsyms->files[i].path, path))
			return (ssize_t)i;
	files = realloc(rsyms->files, (rsyms->nr_files + 1) * sizeof(*files));
	if (!files)
		return -ENOMEM;
	rsyms->files = files;
	files[rsyms->nr_files] = (struct rsym_file){ .path = strdup(path), .ino = ino };
	if (!files[rsyms->nr_files].path)
		return -ENOMEM;
	return (ssize_t)rsyms->nr_files++;
}

/*
 * One line of maps, "START-END PERMS OFFSET MAJ:MIN INODE   PATH", as a
 * mapping worth looking in: executable and backed by a file that is still
 * there. Return: 1 with @m, @path and @ino set, else 0.
 */
static int rsym_parse_map(char *line, struct rsym_map *m, const char **path, ino_t *ino)
{
	unsigned long long start, end, offset, inode;
	char perms[5] = "", *name;
	size_t len;
	int at = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %*x:%*x %llu %n", &start, &end, perms, &offset,
		   &inode, &at) != 5 || !at)
		return 0;
	name = line + at;
	len = strcspn(name, "\n");
	name[len] = '\0';
	if (perms[2] != 'x' || name[0] != '/' ||
	    (len > 10 && !strcmp(name + len - 10, " (deleted)")))
		return 0;
	*m = (struct rsym_map){ start, end, offset, 0 };
	*path = name;
	*ino = (ino_t)inode;
	return 1;
}

/* Read /proc/PID/maps (again); the mappings read before stay on an error. */
static int rsym_read_maps(struct trev_remote_symbols *rsyms)
{
	struct rsym_map *maps = NULL, m;
	size_t nr = 0, cap = 0, line_cap = 0;
	char procpath[64], *line = NULL;
	const char *path;
	ino_t ino;
	FILE *f;
	int ret = 0;

	snprintf(procpath, sizeof(procpath), "/proc/%d/maps", (int)rsyms->pid);
	f = fopen(procpath, "re");
	if (!f)
		return -errno;
	while (!ret && getline(&line, &line_cap, f) > 0) {
		ssize_t file;

		if (!rsym_parse_map(line, &m, &path, &ino))
			continue;
		file = rsym_file_index(rsyms, path, ino);
		if (file < 0) {
			ret = (int)file;
			break;
		}
		m.file = (size_t)file;
		if (nr == cap) {
			struct rsym_map *grown;

			cap = cap ? 2 * cap : 64;
			grown = realloc(maps, cap * sizeof(*maps));
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			maps = grown;
		}
		maps[nr++] = m;
	}
	if (!ret && ferror(f))
		ret = -EIO;
	/* A process that has exited but is not reaped yet has empty maps. */
	if (!ret && !nr)
		ret = -ESRCH;
	fclose(f);
	free(line);
	if (ret) {
		free(maps);
		return ret;
	}
	/* The kernel lists mappings in address order, as the lookups need them. */
	free(rsyms->maps);
	rsyms->maps = maps;
	rsyms->nr_maps = nr;
	return 0;
}

static const struct rsym_map *rsym_map_find(const struct trev_remote_symbols *rsyms, uint64_t addr)
{
	size_t lo = 0, hi = rsyms->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < rsyms->maps[mid].start)
			hi = mid;
		else if (addr >= rsyms->maps[mid].end)
			lo = mid + 1;
		else
			return &rsyms->maps[mid];
	}
	return NULL;
}

/* @path (absolute, as maps names it) in the process's root, as an O_PATH descriptor. */
static int rsym_open_path(const struct trev_remote_symbols *rsyms, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	if (rsyms->rootfd < 0)
		return open(path, O_PATH | O_CLOEXEC);
	fd = (int)syscall(SYS_openat2, rsyms->rootfd, path + 1, &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		fd = openat(rsyms->rootfd, path + 1, O_PATH | O_CLOEXEC);	/* no openat2 */
	return fd;
}

/* The file's symbols, if it is still the file that was mapped. */
static int rsym_file_read(const struct trev_remote_symbols *rsyms, struct rsym_file *file)
{
	char self[64];
	struct stat st;
	int pfd, fd, ret;

	pfd = rsym_open_path(rsyms, file->path);
	if (pfd < 0)
		return -errno;
	/*
	 * Only the inode is compared: on overlayfs, maps shows the device of
	 * the layer below while stat() shows the overlay's.
	 */
	if (fstat(pfd, &st) || !S_ISREG(st.st_mode) || st.st_ino != file->ino) {
		close(pfd);
		return -ESTALE;
	}
	/* The very file checked, now for reading. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ret = fd < 0 ? -errno : 0;
	close(pfd);
	if (ret)
		return ret;
	ret = trev__symtab_load(&file->tab, fd);
	close(fd);
	if (!ret && !file->tab.nsyms)
		ret = -ENOENT;
	if (ret)
		trev__symtab_free(&file->tab);
	return ret;
}

/*
 * The function of mapping @m that holds @addr (trev__symtab_lookup(): in a
 * stripped file, the nearest one below it, *@past_end): its name and start,
 * or NULL.
 */
static const char *rsym_resolve(struct trev_remote_symbols *rsyms, const struct rsym_map *m,
				uint64_t addr, uint64_t *start, bool *past_end)
{
	struct rsym_file *file = &rsyms->files[m->file];
	const struct trev_symtab_ent *e;
	uint64_t vaddr, size;

	if (!file->state)
		file->state = rsym_file_read(rsyms, file) ? -1 : 1;
	if (file->state < 0 ||
	    trev__symtab_vaddr(&file->tab, m->offset + (addr - m->start), &vaddr))
		return NULL;
	e = trev__symtab_lookup(&file->tab, vaddr, past_end, &size);
	if (!e)
		return NULL;
	*start = addr - (vaddr - e->value);
	return file->tab.names + e->name;
}

/* The kept answer for @addr, or NULL and where it goes in the sorted array. */
static struct rsym_addr *rsym_addr_find(const struct trev_remote_symbols *rsyms, uint64_t addr,
					size_t *at)
{
	size_t lo = 0, hi = rsyms->nr_addrs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rsyms->addrs[mid].addr == addr)
			return &rsyms->addrs[mid];
		if (rsyms->addrs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return NULL;
}

static struct rsym_addr *rsym_addr_insert(struct trev_remote_symbols *rsyms, size_t at,
					  const struct rsym_addr *a)
{
	if (rsyms->nr_addrs == rsyms->cap_addrs) {
		size_t cap = rsyms->cap_addrs ? 2 * rsyms->cap_addrs : 256;
		struct rsym_addr *grown = realloc(rsyms->addrs, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		rsyms->addrs = grown;
		rsyms->cap_addrs = cap;
	}
	memmove(&rsyms->addrs[at + 1], &rsyms->addrs[at],
		(rsyms->nr_addrs - at) * sizeof(*rsyms->addrs));
	rsyms->addrs[at] = *a;
	rsyms->nr_addrs++;
	return &rsyms->addrs[at];
}

/* The process's root when maps names its files from there (another mount namespace), else -1. */
static int rsym_open_root(pid_t pid)
{
	struct stat ours, theirs;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	if (stat("/proc/self/ns/mnt", &ours) || stat(path, &theirs) ||
	    (ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/*
 * C++ names as the library shows them in the process (demangle.h): the
 * command is C, so it loads the C++ runtime's demangler itself, once.
 */
static void rsym_demangler(void)
{
	static bool done;
	void *h;

	if (done)
		return;
	done = true;
	h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		trev__demangle_set((trev_cxa_demangle_fn)dlsym(h, "__cxa_demangle"));
}

void trev_remote_symbols_init(struct trev_remote_symbols *rsyms, pid_t pid)
{
	rsym_demangler();
	memset(rsyms, 0, sizeof(*rsyms));
	rsyms->pid = pid;
	rsyms->rootfd = rsym_open_root(pid);
	rsym_read_maps(rsyms);
}

int trev_remote_symbols_lookup(struct trev_remote_symbols *rsyms, uint64_t addr, const char **name,
			       uint64_t *start)
{
	struct rsym_addr *a, found = { addr, 0, NULL, false };
	const struct rsym_map *m;
	size_t at = 0;

	a = rsym_addr_find(rsyms, addr, &at);
	if (!a) {
		/*
		 * The address came in a page already read: its code was
		 * mapped before this read of maps. If this read does not hold
		 * it either, it was unmapped since or is in no file, and no
		 * later read will hold it: the miss is kept as well.
		 */
		m = rsym_map_find(rsyms, addr);
		if (!m && !rsym_read_maps(rsyms))
			m = rsym_map_find(rsyms, addr);
		if (m)
			found.name = rsym_resolve(rsyms, m, addr, &found.start, &found.past_end);
		a = rsym_addr_insert(rsyms, at, &found);
		if (!a)
			return -ENOMEM;
	}
	if (!a->name)
		return -ENOENT;
	*name = a->name;
	*start = a->start;
	return a->past_end;
}

void trev_remote_symbols_free(struct trev_remote_symbols *rsyms)
{
	for (size_t i = 0; i < rsyms->nr_files; i++) {
		free(rsyms->files[i].path);
		trev__symtab_free(&rsyms->files[i].tab);
	}
	free(rsyms->files);
	free(rsyms->maps);
	free(rsyms->addrs);
	if (rsyms->rootfd >= 0)
		close(rsyms->rootfd);
	memset(rsyms, 0, sizeof(*rsyms));
	rsyms->rootfd = -1;
}
