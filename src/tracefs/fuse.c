/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The FUSE mount of the tree: not built yet; trev_mount() says so. */
#include <errno.h>

#include <trev/trev.h>

int trev_mount(const char *dir)
{
	(void)dir;
	return -ENOSYS;
}

int trev_unmount(void)
{
	return -ENOSYS;
}
