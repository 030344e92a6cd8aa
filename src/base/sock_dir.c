/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a user's control sockets live (sock_dir.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/sock_dir.h"

int trev__sock_dir(char *dir, size_t size)
{
	const char *env = getenv("TREV_SOCKET_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env && *env)
		n = snprintf(dir, size, "%s", env);
	else if (xdg && *xdg)
		n = snprintf(dir, size, "%s/trev", xdg);
	else
		n = snprintf(dir, size, "/tmp/trev-%u", (unsigned int)geteuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
