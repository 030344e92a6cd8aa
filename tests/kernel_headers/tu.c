// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One kernel event header as a compilation unit (KH_HEADER, e.g. <trace/events/irq.h>):
 * built against the reference stages (ref/) or against trev (KH_TREV), the latter with the
 * calls gen_fire.py generated (KH_FIRE), compiled as C, and as C++ without them; or read
 * once, plainly, for gen_fire.py (KH_FIRE_STAGE).
 */
#ifndef KH_FIRE_STAGE
#define CREATE_TRACE_POINTS
#endif
#include KH_HEADER

#ifdef KH_FIRE
#include KH_FIRE
#endif
