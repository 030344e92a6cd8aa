/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* trev stat -p PID: buffers, entries and losses per CPU and per thread (placeholder). */
#include "trev.h"

int cmd_stat(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	trev_err("stat: not yet");
	return 1;
}
