/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's messages (layer 0, docs/architecture.md): every layer logs
 * through trev__log(), which hands the text to the hook trev_set_log()
 * installed (stderr by default) when its level passes the filter.
 */
#ifndef TREV_BASE_LOG_H
#define TREV_BASE_LOG_H

#include <trev/trev.h>	/* TREV_LOG_*, trev_log_fn */

void trev__log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* In the child that writes a dying process's trace: the log's lock made anew. */
void trev__log_crash_child(void);

#endif /* TREV_BASE_LOG_H */
