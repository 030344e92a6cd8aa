// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A stock program: built with no flag of trev's and not linked with it
 * (tests/scripts/probe_preload.sh probes libc's open() in it). Opens each argument
 * and prints "open PID PATH FD".
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);

		printf("open %d %s %d\n", (int)getpid(), argv[i], fd);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
