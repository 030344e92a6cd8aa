/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for trev merge (tools/trev/dat_merge.c): the input is a
 * trace.dat file, merged with itself as two buffers, so that the parser,
 * the joining of formats (every id collides with itself) and the rewriting
 * of every page's records all run on it. Seeds: tests/fuzz/seeds/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dat_merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[64];
	struct trev_merge_in in[2];
	char path[64], err[512];
	int fd;

	if (!out[0])
		snprintf(out, sizeof(out), "/tmp/fuzz_dat_merge.%d.dat", (int)getpid());
	err[0] = '\0';
	if (trev_dat_merge_parse(data, size, err, sizeof(err)) < 0 && !err[0])
		abort();	/* a refusal always says why */
	fd = memfd_create("fuzz_dat_merge", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	in[0] = (struct trev_merge_in){ path, "" };
	in[1] = (struct trev_merge_in){ path, "again" };
	err[0] = '\0';
	if (trev_dat_merge(out, in, 2, NULL, err, sizeof(err)) < 0 && !err[0])
		abort();
	unlink(out);
	close(fd);
	return 0;
}
