/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The replaceable, level-filtered hook every library message goes through. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "base/log.h"

static void log_stderr(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	fprintf(stderr, "trev: %s", msg);
}

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static trev_log_fn log_fn = log_stderr;
static void *log_arg;
static int log_level = TREV_LOG_WARN;

void trev_set_log(trev_log_fn fn, void *arg, int max_level)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn;
	log_arg = arg;
	log_level = max_level;
	pthread_mutex_unlock(&log_lock);
}

void trev__log_crash_child(void)
{
	pthread_mutex_init(&log_lock, NULL);
}

/*
 * A hook gets whole lines: a message that does not end with a newline (or
 * that was cut to fit) gets one, so that the next message, or whatever the
 * program prints, starts a line of its own.
 */
void trev__log(int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	pthread_mutex_lock(&log_lock);
	if (log_fn && level <= log_level) {
		va_start(ap, fmt);
		n = vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		if (n < 0)
			n = 0;
		if (n > (int)sizeof(msg) - 2)
			n = (int)sizeof(msg) - 2;
		if (n == 0 || msg[n - 1] != '\n') {
			msg[n] = '\n';
			msg[n + 1] = '\0';
		}
		log_fn(level, msg, log_arg);
	}
	pthread_mutex_unlock(&log_lock);
}
