// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One kernel event header as a compilation unit (KH_HEADER, e.g. <trace/events/irq.h>):
 * built against the reference stages (ref/) or against trev (KH_TREV), the latter with the
 * calls gen_fire.py generated (KH_FIRE), compiled as C, and as C++ without them; or read
 * once, plainly, for gen_fire.py (KH_FIRE_STAGE).
 */
/*
 * A header that one of its system's headers must precede, as in the kernel's file that
 * creates both (tcp.h's print helpers are sock.h's), is read plainly first (KH_BEFORE).
 */
#ifdef KH_BEFORE
#include KH_BEFORE
#endif

#ifndef KH_FIRE_STAGE
#define CREATE_TRACE_POINTS
#else
__kh_header_start__	/* gen_fire.py: the events after this line are the header's own */
#endif
#include KH_HEADER

#ifdef KH_FIRE
#include KH_FIRE
#endif
