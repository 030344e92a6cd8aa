/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record --probe (rec_probe.h): which libtrev the run's processes
 * preload, and whether a probe's target is in a process at all, read from
 * its /proc/PID/maps and the symbol tables of the files it maps.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rec_probe.h"

#ifndef TREV_BUILD_BIN_DIR
#define TREV_BUILD_BIN_DIR	""	/* where this trev is built */
#endif
#ifndef TREV_BUILD_LIBRARY
#define TREV_BUILD_LIBRARY	""	/* ... and its libtrev.so.N */
#endif
#ifndef TREV_LIBDIR_FROM_BINDIR
#define TREV_LIBDIR_FROM_BINDIR	"../lib"	/* LIBDIR as seen from BINDIR, or absolute */
#endif
#ifndef TREV_LIBRARY_NAME
#define TREV_LIBRARY_NAME	"libtrev.so.0"
#endif

int trev_preload_library(char *path, size_t size, char *why, size_t why_size)
{
	const char *env = getenv("TREV_LIBRARY");
	char exe[4096], *slash;
	ssize_t n;

	if (env && *env) {
		if (env[0] != '/' || access(env, R_OK)) {
			snprintf(why, why_size, "TREV_LIBRARY=%s: %s", env,
				 env[0] != '/' ? "not an absolute path" : strerror(errno));
			return -ENOENT;
		}
		snprintf(path, size, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(why, why_size, "/proc/self/exe: %s", strerror(errno));
		return -ENOENT;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	/* The build tree's trev preloads the build tree's library. */
	if (TREV_BUILD_BIN_DIR[0] && strcmp(exe, TREV_BUILD_BIN_DIR) == 0) {
		snprintf(path, size, "%s", TREV_BUILD_LIBRARY);
	} else if (TREV_LIBDIR_FROM_BINDIR[0] == '/') {
		snprintf(path, size, "%s/%s", TREV_LIBDIR_FROM_BINDIR, TREV_LIBRARY_NAME);
	} else {
		snprintf(path, size, "%s/%s/%s", exe, TREV_LIBDIR_FROM_BINDIR, TREV_LIBRARY_NAME);
	}
	if (access(path, R_OK)) {
		snprintf(why, why_size, "%s: %s (TREV_LIBRARY names another)", path,
			 strerror(errno));
		return -ENOENT;
	}
	return 0;
}

/* A sanitizer's runtime that this trev has loaded (its build's libtrev needs it first). */
static int preload_sanitizer_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (!strncmp(base, "libasan.so", 10) || !strncmp(base, "libtsan.so", 10)) {
		*(const char **)arg = info->dlpi_name;
		return 1;
	}
	return 0;
}

char *trev_preload_env(const char *lib)
{
	const char *user = getenv("LD_PRELOAD"), *san = NULL;
	char *s;

	dl_iterate_phdr(preload_sanitizer_cb, &san);
	if (asprintf(&s, "%s%s%s%s%s", san ? san : "", san ? ":" : "",
		     user && *user ? user : "", user && *user ? ":" : "", lib) < 0)
		return NULL;
	return s;
}

/* ------------------------------------------------------------------ */
/* Is the target there?                                                 */

/* What one file was found to define: kept, libc's table is read once a run, not once a process. */
struct probe_seen {
	struct probe_seen *next;
	dev_t dev;
	ino_t ino;
	char *symbol;
	int defined;		/* 1, 0, or -1: the file could not be read */
};

static struct probe_seen *probe_seen;

/* The name of an ELF symbol without its version ("open@@GLIBC_2.2.5"). */
static bool probe_sym_is(const char *name, const char *sym)
{
	size_t n = strlen(sym);

	return name && strncmp(name, sym, n) == 0 && (name[n] == '\0' || name[n] == '@');
}

/* Whether the ELF file on @fd defines function @sym. Return: 1, 0, or -1 (not ELF). */
static int probe_file_defines(int fd, const char *sym)
{
	Elf_Scn *scn = NULL;
	int found = 0;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return -1;
	}
	while (!found && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && !found && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			int type;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			type = GELF_ST_TYPE(s.st_info);
			if (type == STT_FUNC || type == STT_GNU_IFUNC)
				found = probe_sym_is(elf_strptr(elf, sh.sh_link, s.st_name), sym);
		}
	}
	elf_end(elf);
	return found;
}

/* Whether the file @path (device @dev, inode @ino in the maps) defines @sym: 1, 0, -1. */
static int probe_defines(const char *path, dev_t dev, ino_t ino, const char *sym)
{
	struct probe_seen *s;
	struct stat st;
	int fd, ret = -1;

	for (s = probe_seen; s; s = s->next)
		if (s->dev == dev && s->ino == ino && !strcmp(s->symbol, sym))
			return s->defined;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* Another file at that path now (rebuilt, or another mount namespace): cannot tell. */
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == ino &&
	    major(st.st_dev) == major(dev) && minor(st.st_dev) == minor(dev))
		ret = probe_file_defines(fd, sym);
	if (fd >= 0)
		close(fd);
	s = calloc(1, sizeof(*s));
	if (s && (s->symbol = strdup(sym))) {
		s->dev = dev;
		s->ino = ino;
		s->defined = ret;
		s->next = probe_seen;
		probe_seen = s;
	} else {
		free(s);
	}
	return ret;
}

void trev_probe_targets_free(void)
{
	while (probe_seen) {
		struct probe_seen *s = probe_seen;

		probe_seen = s->next;
		free(s->symbol);
		free(s);
	}
}

/* A target as rec_probe judges it: one of the kernel's forms, taken apart. */
struct probe_target {
	char path[4096];	/* PATH:..., or "" */
	char module[4096];	/* MODULE:SYMBOL, or "" */
	char symbol[4096];	/* SYMBOL (also of MODULE: and PATH:), or "" */
};

/* A C identifier, or a name with dots (a versioned or local symbol: "f.cold"). */
static bool probe_name_ok(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_' || *s == '.'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return false;
	return true;
}

/*
 * The target of @def (its second word) in @t. Return: true when it is a form
 * this can judge: SYMBOL[+OFFS], MODULE:SYMBOL, PATH:OFFSET, PATH:SYMBOL,
 * each with an optional %return.
 */
static bool probe_parse_target(const char *def, struct probe_target *t)
{
	char word[4096], *colon, *pct, *plus;
	size_t n;

	def += strspn(def, " \t");
	def += strcspn(def, " \t");		/* p:GRP/EV */
	def += strspn(def, " \t");
	n = strcspn(def, " \t");
	if (!n || n >= sizeof(word))
		return false;
	memcpy(word, def, n);
	word[n] = '\0';
	memset(t, 0, sizeof(*t));
	pct = strchr(word, '%');
	if (pct) {
		if (strcmp(pct, "%return"))
			return false;
		*pct = '\0';
	}
	colon = strrchr(word, ':');
	if (colon && strchr(word, '/') && strchr(word, '/') < colon) {
		*colon = '\0';
		snprintf(t->path, sizeof(t->path), "%s", word);
		/* PATH:OFFSET: the file is all there is to find. */
		if (isdigit((unsigned char)colon[1]))
			return true;
		snprintf(t->symbol, sizeof(t->symbol), "%s", colon + 1);
		return probe_name_ok(t->symbol);
	}
	if (colon) {
		*colon = '\0';
		snprintf(t->module, sizeof(t->module), "%s", word);
		snprintf(t->symbol, sizeof(t->symbol), "%s", colon + 1);
		return probe_name_ok(t->module) && probe_name_ok(t->symbol);
	}
	plus = strchr(word, '+');
	if (plus) {
		char *end;

		strtoul(plus + 1, &end, 0);
		if (plus[1] == '\0' || *end)
			return false;
		*plus = '\0';
	}
	snprintf(t->symbol, sizeof(t->symbol), "%s", word);
	return probe_name_ok(t->symbol);
}

/* A library's module name: its file's name up to the first dot (docs/function-tracer.md). */
static bool probe_is_module(const char *path, const char *module)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	return n == strlen(module) && strncmp(base, module, n) == 0;
}

bool trev_probe_target_absent(pid_t pid, const char *def)
{
	struct probe_target t;
	struct stat pst;
	bool absent = true;
	char maps[64], line[4400];
	FILE *f;

	if (!probe_parse_target(def, &t))
		return false;
	if (t.path[0] && stat(t.path, &pst))
		return false;	/* no such file: the process says so ("Failed to find the given file") */
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return false;
	while (absent && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		unsigned long ino;
		char perms[8];
		int at = 0;
		char *path;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %lu %n", perms, &maj, &min, &ino, &at) < 4 ||
		    !at || perms[2] != 'x')
			continue;
		path = line + at;
		if (path[0] != '/')
			continue;
		if (t.path[0]) {
			if (pst.st_ino == ino && major(pst.st_dev) == maj && minor(pst.st_dev) == min)
				absent = false;
		} else if (t.module[0]) {
			if (probe_is_module(path, t.module))
				absent = false;
		} else if (probe_defines(path, makedev(maj, min), (ino_t)ino, t.symbol) != 0) {
			absent = false;
		}
	}
	fclose(f);
	return absent;
}
