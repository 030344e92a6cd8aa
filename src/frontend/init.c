/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Library start-up: the built-in events and the start-up environment. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "events/events_internal.h"
#include "filter/filter.h"
#include "frontend/frontend.h"
#include "ftrace/ftrace.h"
#include "sym/demangle.h"
#include "trigger/trigger_internal.h"
#include "write/write.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* The top instance's region goes in the flight recorder's file when there is one. */
static const struct trev__top_region_ops flight_region = {
	.open = trev__flight_open,
	.abandon = trev__flight_abandon,
};

/* An object's events are registered (events/registry.c tells us). */
static void events_registered(unsigned int first_id, const void *section)
{
	/* Start-up enables (TREV_EVENTS) apply to objects loaded later too. */
	trev__env_apply_events(first_id);
	trev__env_control();
	trev__env_at_exit();
	/* The program's own events are in: `trev record -- COMMAND` may configure them now. */
	trev__control_module_registered(section);
}

/* What filters and triggers hang on an event file goes with it. */
static void event_file_release(struct trev_event_file *file)
{
	trev__filter_free(file->filter);
	trev__triggers_free_file(file);
}

static const struct trev__event_file_ops event_file_ops = {
	.release = event_file_release,
	.call_gone = trev__triggers_drop_call,
	.triggers_call = trev__triggers_call,
	.triggers_post_call = trev__triggers_post_call,
};

static void library_init(void)
{
	trev__demangle_resolve();	/* the loader's lock: before any of ours */
	trev__event_file_ops_set(&event_file_ops);
	trev__top_region_set(&flight_region);
	trev__events_on_register(events_registered);
	trev__ftrace_events_register();
	trev__ftrace_fn_register();
	trev__ftrace_register_program();	/* before TREV_WRITE can name its functions */
	trev__env_init();
	trev__control_env();
}

void trev__library_init(void)
{
	pthread_once(&init_once, library_init);
}

/*
 * A program that holds libtrev itself, linked statically, has this section;
 * a libtrev.so preloaded into it (`trev record --probe`, docs/probes.md)
 * then leaves the process to that copy: two would serve one socket path
 * and join the session twice.
 */
static const char init_lib_mark[] __attribute__((used, section("__trev_lib"))) = "trev";

/*
 * Whether this copy is a preloaded libtrev.so in a program that holds its
 * own libtrev: looked at only when LD_PRELOAD names a libtrev (one open of
 * the program's file then), never otherwise.
 */
static bool init_preload_redundant(void)
{
	const char *preload = getenv("LD_PRELOAD");

	if (!preload || !strstr(preload, "libtrev"))
		return false;
	return !trev__control_in_main(init_lib_mark) &&
	       trev__control_main_has_section("__trev_lib");
}

/* Runs before the program's own event registration (it depends on us). */
static void __attribute__((constructor)) trev_constructor(void)
{
	if (init_preload_redundant())
		return;
	trev__library_init();
	trev__env_control();
	trev__control_init();
}
