/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lists of thread ids written to the *_pid control files (pid_list.h). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/pid_list.h"

int trev__pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

struct trev_pid_list *trev__pid_list_add(const struct trev_pid_list *cur, const char *text,
					 size_t len, bool zero_ok, int *err_pos, int *err)
{
	size_t have = cur ? cur->n : 0, cap = 0;
	struct trev_pid_list *p;

	/* Room for every word of @text, which is at most one id each. */
	for (size_t i = 0; i < len; i++)
		cap += !isspace((unsigned char)text[i]) &&
		       (i == 0 || isspace((unsigned char)text[i - 1]));
	p = malloc(sizeof(*p) + (have + cap + 1) * sizeof(pid_t));
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	p->n = have;
	if (have)
		memcpy(p->tid, cur->tid, have * sizeof(pid_t));
	for (size_t i = 0; i < len;) {
		unsigned long v = 0;
		size_t start;
		bool digits = true;

		while (i < len && isspace((unsigned char)text[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !isspace((unsigned char)text[i])) {
			if (!isdigit((unsigned char)text[i]) || v > INT32_MAX / 10)
				digits = false;
			else
				v = v * 10 + (unsigned long)(text[i] - '0');
			i++;
		}
		if (!digits || v > INT32_MAX || (v == 0 && !zero_ok)) {
			*err_pos = (int)start;
			*err = -EINVAL;
			free(p);
			return NULL;
		}
		if (!bsearch(&(pid_t){ (pid_t)v }, p->tid, p->n, sizeof(pid_t), trev__pid_cmp)) {
			p->tid[p->n++] = (pid_t)v;
			qsort(p->tid, p->n, sizeof(pid_t), trev__pid_cmp);
		}
	}
	return p;
}
