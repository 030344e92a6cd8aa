/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* trev_check_output() (trev.h): an output path checked before anything is recorded. */
#include <errno.h>
#include <string.h>

#include "base/out_file.h"
#include "trev.h"

int trev_check_output(const char *path)
{
	char why[256];
	int ret = trev__out_check(path, why, sizeof(why));

	/* The rest (a missing directory, no permission) is for the open to say. */
	if (ret != -EACCES && ret != -ELOOP)
		return 0;
	trev_err("%s: %s", path, why[0] ? why : strerror(-ret));
	return -1;
}
