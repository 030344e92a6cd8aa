/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Library start-up: the built-in events and the start-up environment. */
#include <pthread.h>

#include "control/control.h"
#include "core/core_internal.h"
#include "events/events_internal.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void library_init(void)
{
	trev__ftrace_events_register();
	trev__env_init();
	trev__control_env();
}

void trev__library_init(void)
{
	pthread_once(&init_once, library_init);
}

/* Runs before the program's own event registration (it depends on us). */
static void __attribute__((constructor)) trev_constructor(void)
{
	trev__library_init();
	trev__env_control();
	trev__control_init();
}
