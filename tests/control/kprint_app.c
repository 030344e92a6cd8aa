/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fires the kprint events (tests/events/kprint_events.h) once each way and
 * exits, for tests/scripts/interop_kprint.sh: kp_state with every enum
 * value, one negative and one unknown, and kp_ptrs with a function of its
 * own and fixed addresses.
 */
#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "kprint_events.h"

static const unsigned char ip4[4] = { 192, 168, 1, 20 };
static const unsigned char ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const unsigned char mac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const unsigned char uuid[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
					0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };

/* The function %pS and %ps name. */
void kprint_target(void);

__attribute__((noinline, used)) void kprint_target(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	trace_kp_state(KP_IDLE, 0);
	trace_kp_state(KP_RUNNING, 48);
	trace_kp_state(KP_BLOCKED, 24);
	trace_kp_state(KP_NEGATIVE, 240);
	trace_kp_state(7, 1);
	trace_kp_ptrs((void *)kprint_target, ip4, ip6, mac, uuid, 0x80f);
	return 0;
}
