// SPDX-License-Identifier: LGPL-2.1-or-later
/* A command line split at blanks (words.h). */
#include <ctype.h>
#include <errno.h>

#include "base/words.h"

int trev__split_words(char *s, char **argv, int max)
{
	int argc = 0;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return argc;
		if (argc == max)
			return -E2BIG;
		argv[argc++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}
