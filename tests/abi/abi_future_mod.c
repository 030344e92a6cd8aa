/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A shared object as a later trev would build it: beside one event of
 * today's ABI, an event, a tracepoint, an eval map and a trace_printk call
 * site whose headers say ABI 99, in the same sections, and a module record
 * of ABI 99. test_abi_future loads it; `trev list` reads it
 * (tests/scripts/abi_list.sh). What follows each header is filler that no
 * reader may interpret.
 */
#include <stdint.h>
#include <string.h>

#define CREATE_TRACE_POINTS
#include "abi_future_events.h"

#include <trev/trace_printk.h>

#define FUTURE_ABI	99

/* A descriptor of ABI 99: its header, then 120 bytes of a layout unknown here. */
struct future_desc {
	struct trev_abi_hdr abi;
	unsigned char rest[120];
};

#define FUTURE_DESC(fill)							\
	{ { (uint16_t)sizeof(struct future_desc), FUTURE_ABI, TREV_ABI_MAGIC },	\
	  { [0 ... 119] = fill } }

__attribute__((visibility("default"))) struct future_desc future_event = FUTURE_DESC(0xa5);
__attribute__((visibility("default"))) struct future_desc future_tp = FUTURE_DESC(0x5a);
__attribute__((visibility("default"))) struct future_desc future_eval = FUTURE_DESC(0x3c);
__attribute__((visibility("default"))) struct future_desc future_site = FUTURE_DESC(0xc3);
__attribute__((visibility("default"))) struct future_desc future_module = FUTURE_DESC(0x11);

void fut_register_module(void);
int fut_fire(int n);

/* In the sections of this object, beside fut_ok's entries. */
static void *const future_event_ptr __attribute__((used, section("__trev_events"))) =
	&future_event;
static void *const future_tp_ptr __attribute__((used, section("__trev_tracepoints"))) =
	&future_tp;
static void *const future_eval_ptr __attribute__((used, section("__trev_eval_map"))) =
	&future_eval;

/* A later trev's registration: refused as a whole. */
__attribute__((visibility("default"))) void fut_register_module(void)
{
	trev_module_register((const struct trev_module *)(const void *)&future_module);
	trev_module_unregister((const struct trev_module *)(const void *)&future_module);
}

/* Fires fut_ok, and a trace_printk() of a later trev's call site. */
__attribute__((visibility("default"))) int fut_fire(int n)
{
	trace_fut_ok(n);
	return trev_trace_bprintk((struct trev_printk_site *)(void *)&future_site, 0, n) +
	       trev_trace_bputs((struct trev_printk_site *)(void *)&future_site, 0);
}
