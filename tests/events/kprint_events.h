/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events of the kprint system: TRACE_DEFINE_ENUM and TRACE_DEFINE_SIZEOF
 * names in their print fmt, the kernel's %p extensions in TP_printk, and
 * negative values in __print_symbolic/__print_flags pairs.
 * Used by test_eval_map, test_events_cxx and the trace-cmd interop script.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kprint

#if !defined(_TRACE_KPRINT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_KPRINT_H

#include <trev/tracepoint.h>

#ifndef _TRACE_KPRINT_DEF
#define _TRACE_KPRINT_DEF
#include <stdint.h>
enum kp_state {
	KP_IDLE,
	KP_RUNNING = 5,
	KP_BLOCKED = 42,
	KP_NEGATIVE = -3,
};

/* 24 bytes on every ABI trev builds for. */
struct kp_req {
	uint64_t id;
	uint32_t len;
	uint32_t flags;
	uint64_t tag;
};
#endif

TRACE_DEFINE_ENUM(KP_IDLE);
TRACE_DEFINE_ENUM(KP_RUNNING);
TRACE_DEFINE_ENUM(KP_BLOCKED);
TRACE_DEFINE_ENUM(KP_NEGATIVE);
TRACE_DEFINE_SIZEOF(struct kp_req);

TRACE_EVENT(kp_state,
	TP_PROTO(int state, unsigned int bytes),
	TP_ARGS(state, bytes),
	TP_STRUCT__entry(
		__field(int, state)
		__field(unsigned int, bytes)
	),
	TP_fast_assign(
		__entry->state = state;
		__entry->bytes = bytes;
	),
	TP_printk("KP_IDLE state=%s reqs=%zu busy=%d neg=%d",
		  __print_symbolic(__entry->state,
				   { KP_IDLE, "idle" },
				   { KP_RUNNING, "running" },
				   { KP_BLOCKED, "blocked" }),
		  __entry->bytes / sizeof(struct kp_req),
		  (__entry->state == KP_RUNNING || __entry->state == KP_BLOCKED),
		  __entry->state == KP_NEGATIVE)
);

TRACE_EVENT(kp_ptrs,
	TP_PROTO(void *fn, const unsigned char *ip4, const unsigned char *ip6,
		 const unsigned char *mac, const unsigned char *uuid, unsigned long bits),
	TP_ARGS(fn, ip4, ip6, mac, uuid, bits),
	TP_STRUCT__entry(
		__field(void *, fn)
		__array(unsigned char, ip4, 4)
		__array(unsigned char, ip6, 16)
		__array(unsigned char, mac, 6)
		__array(unsigned char, uuid, 16)
		__array(unsigned long, bits, 1)
	),
	TP_fast_assign(
		__entry->fn = fn;
		memcpy(__entry->ip4, ip4, 4);
		memcpy(__entry->ip6, ip6, 16);
		memcpy(__entry->mac, mac, 6);
		memcpy(__entry->uuid, uuid, 16);
		__entry->bits[0] = bits;
	),
	TP_printk("S=%pS s=%ps ip4=%pI4 ip6=%pI6c mac=%pM uuid=%pU bits=%*pb list=%*pbl",
		  __entry->fn, __entry->fn, __entry->ip4, __entry->ip6, __entry->mac,
		  __entry->uuid, 12, __entry->bits, 12, __entry->bits)
);

/*
 * Negative values in the pairs of __print_symbolic and __print_flags, as
 * xdp.h's XDP_* actions have: C converts them to unsigned long, and so must
 * C++ (no narrowing error).
 */
TRACE_EVENT(kp_neg,
	TP_PROTO(int act, unsigned long flags, long long big),
	TP_ARGS(act, flags, big),
	TP_STRUCT__entry(
		__field(int, act)
		__field(unsigned long, flags)
		__field(long long, big)
	),
	TP_fast_assign(
		__entry->act = act;
		__entry->flags = flags;
		__entry->big = big;
	),
	TP_printk("act=%s flags=%s big=%s",
		  __print_symbolic(__entry->act, { -1, "NEG" }, { KP_NEGATIVE, "KPNEG" },
				   { 0, "ZERO" }),
		  __print_flags(__entry->flags, "|", { 1, "ONE" }, { -4, "HIGH" }),
		  __print_symbolic_u64(__entry->big, { -2LL, "NEG2" }, { 1U, "ONE" }))
);

#endif /* _TRACE_KPRINT_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kprint_events

#include <trev/define_trace.h>
