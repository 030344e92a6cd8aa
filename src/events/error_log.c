// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An instance's error_log: the last TREV_ERR_LOG_MAX errors that its control
 * files and triggers refused, in the kernel's shape (tracing_log_err()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/ring_buffer.h>

#include "base/buf.h"
#include "base/log.h"
#include "events/events_internal.h"

void trev__tracing_log_err(struct trev_trace_array *tr, const char *loc, const char *cmd, int pos,
			   const char *fmt, ...)
{
	struct trev_err_entry *e = &tr->errs[tr->nr_errs % TREV_ERR_LOG_MAX];
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	free(e->loc);
	free(e->msg);
	free(e->cmd);
	e->ts = trev_rb_clock_now(tr->rb);
	e->loc = strdup(loc);
	e->msg = msg;
	e->cmd = strdup(cmd);
	e->pos = pos < 0 ? 0 : pos;
	tr->nr_errs++;
	trev__log(TREV_LOG_DEBUG, "%s: error: %s\n", loc, msg ? msg : "");
}

int trev__error_log_show(struct trev_trace_array *tr, struct trev_buf *out)
{
	unsigned int n = tr->nr_errs < TREV_ERR_LOG_MAX ? tr->nr_errs : TREV_ERR_LOG_MAX;

	for (unsigned int i = tr->nr_errs - n; i < tr->nr_errs; i++) {
		const struct trev_err_entry *e = &tr->errs[i % TREV_ERR_LOG_MAX];

		/* "  Command: " is 11 columns; the caret goes under the error. */
		if (trev__buf_printf(out, "[%5llu.%06llu] %s: error: %s\n  Command: %s\n%*s^\n",
				     (unsigned long long)(e->ts / 1000000000ull),
				     (unsigned long long)(e->ts % 1000000000ull / 1000),
				     e->loc ? e->loc : "", e->msg ? e->msg : "",
				     e->cmd ? e->cmd : "", 11 + e->pos, ""))
			return -ENOMEM;
	}
	return 0;
}

void trev__error_log_clear(struct trev_trace_array *tr)
{
	for (unsigned int i = 0; i < TREV_ERR_LOG_MAX; i++) {
		free(tr->errs[i].loc);
		free(tr->errs[i].msg);
		free(tr->errs[i].cmd);
		tr->errs[i] = (struct trev_err_entry){ 0 };
	}
	tr->nr_errs = 0;
}
