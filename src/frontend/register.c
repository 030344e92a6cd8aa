/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The entry points an object's constructor calls to register its events
 * (<trev/define_trace.h>, and the 0.1.0 layout's). They are the C API's:
 * the library starts up first (a program's constructor may run before
 * ours), then the registry takes the events (events/registry.c), and tells
 * init.c's hook, which applies TREV_EVENTS and wakes `trev record`.
 */
#include <stddef.h>

#include <trev/trace_event.h>

#include "events/abi.h"
#include "events/events_internal.h"
#include "frontend/frontend.h"

void trev_module_register(const struct trev_module *mod)
{
	struct trev_module native;

	trev__library_init();
	if (mod && trev__abi_module(mod, &native) == 0)
		trev__events_register_module(&native);
}

void trev_module_unregister(const struct trev_module *mod)
{
	unsigned int abi;

	/* A refused module was logged when it registered, and holds nothing. */
	if (mod && trev__abi_of(mod, sizeof(*mod), &abi) == 0 && abi != 0)
		trev__events_unregister_module(mod);
}

/* ABI 0: the same sections, passed one by one by an object built against trev 0.1.0. */
void trev_events_register_module_evals(struct trev_event_call *const *start,
				       struct trev_event_call *const *stop,
				       struct trev_tracepoint *const *tp_start,
				       struct trev_tracepoint *const *tp_stop,
				       const struct trev_eval_map *const *eval_start,
				       const struct trev_eval_map *const *eval_stop)
{
	const struct trev_module mod = { TREV_ABI_HDR(struct trev_module), start, stop,
					 tp_start, tp_stop, eval_start, eval_stop };

	trev__library_init();
	trev__events_register_module(&mod);
}

void trev_events_register_module(struct trev_event_call *const *start,
				 struct trev_event_call *const *stop,
				 struct trev_tracepoint *const *tp_start,
				 struct trev_tracepoint *const *tp_stop)
{
	trev_events_register_module_evals(start, stop, tp_start, tp_stop, NULL, NULL);
}

void trev_events_unregister_module(struct trev_event_call *const *start,
				   struct trev_event_call *const *stop,
				   struct trev_tracepoint *const *tp_start,
				   struct trev_tracepoint *const *tp_stop)
{
	const struct trev_module mod = { TREV_ABI_HDR(struct trev_module), start, stop,
					 tp_start, tp_stop, NULL, NULL };

	trev__events_unregister_module(&mod);
}
