/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Another process's code addresses to function names, from its /proc/PID/maps and ELF files. */
#ifndef TREV_TOOLS_REMOTE_SYMBOLS_H
#define TREV_TOOLS_REMOTE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rsym_map;
struct rsym_file;
struct rsym_addr;

/*
 * What is known of one process's code: its executable file mappings as
 * /proc/PID/maps listed them last, the symbol tables of the files looked
 * at, and every address looked up with its answer. Each address is
 * resolved once and its answer kept, so it stays right after the process
 * is gone or has mapped something else at that address.
 */
struct trev_remote_symbols {
	pid_t pid;
	int rootfd;			/* its root (O_PATH) in another mount namespace, or -1 */
	struct rsym_map *maps;		/* r-x file mappings, sorted by address */
	size_t nr_maps;
	struct rsym_file *files;	/* every file a mapping named, read on first lookup */
	size_t nr_files;
	struct rsym_addr *addrs;	/* the addresses looked up, sorted */
	size_t nr_addrs, cap_addrs;
};

/*
 * trev_remote_symbols_init() - start naming @pid's addresses: reads its
 * /proc/PID/maps, and opens its root if it has a mount namespace of its
 * own, now, while it runs (a failure leaves every address unknown, nothing
 * else)
 */
void trev_remote_symbols_init(struct trev_remote_symbols *rsyms, pid_t pid);

/*
 * trev_remote_symbols_lookup() - the function of @pid that holds @addr
 * @name: receives the function's name, valid until trev_remote_symbols_free()
 * @start: receives its address in the process
 *
 * An address no mapping read so far holds makes one more read of
 * /proc/PID/maps (a library loaded since). The file is read on the first
 * lookup in it and kept.
 * Context: one thread at a time per @rsyms.
 * Return: 0; 1 when @addr is past the end of the function named, the
 * nearest below it in a stripped file's .dynsym (trev__symtab_lookup());
 * -ENOENT when no symbol names @addr, or -ENOMEM.
 */
int trev_remote_symbols_lookup(struct trev_remote_symbols *rsyms, uint64_t addr, const char **name,
			       uint64_t *start);

/* Free everything; @rsyms can be initialised again. */
void trev_remote_symbols_free(struct trev_remote_symbols *rsyms);

#endif /* TREV_TOOLS_REMOTE_SYMBOLS_H */
