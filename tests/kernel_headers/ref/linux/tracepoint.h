/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reference side's <linux/tracepoint.h> (ours, a stand-in for the kernel's): what an event
 * header's event forms mean when it is read plainly. The reference only needs the formats, so
 * a plain read declares nothing; ref/trace/define_trace.h then reads the header again through
 * the kernel's stages.
 *
 * With KH_FIRE_STAGE defined (gen_fire.py's preprocessing pass) each event that gets a format
 * leaves one marker line instead, which gen_fire.py turns into a call of trace_<name>():
 *
 *	__kh_event__ name ( proto ) __kh_end__
 */
#ifndef KH_REF_TRACEPOINT_H
#define KH_REF_TRACEPOINT_H

#define PARAMS(args...)		args
#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define TP_CONDITION(args...)	args

#endif /* KH_REF_TRACEPOINT_H */

/* Outside the guard, as in the kernel: define_trace.h undefines these when it is done. */
#ifndef TRACE_EVENT

#define TRACE_DEFINE_ENUM(x)
#define TRACE_DEFINE_SIZEOF(x)
#define TRACE_EVENT_FLAGS(event, flag)
#define TRACE_EVENT_PERF_PERM(event, expr...)
#define DECLARE_TRACE(name, proto, args)
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DECLARE_EVENT_CLASS_NOP(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT_NOP(template, name, proto, args)
#define TRACE_EVENT_NOP(name, proto, args, tstruct, assign, print)
#define DECLARE_EVENT_NOP(name, proto, args)

#ifdef KH_FIRE_STAGE
#define KH_EVENT(name, proto)	__kh_event__ name ( proto ) __kh_end__
#else
#define KH_EVENT(name, proto)
#endif

#define DEFINE_EVENT(template, name, proto, args)		KH_EVENT(name, PARAMS(proto))
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg) KH_EVENT(name, PARAMS(proto))
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)	KH_EVENT(name, PARAMS(proto))
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond) KH_EVENT(name, PARAMS(proto))
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)	KH_EVENT(name, PARAMS(proto))
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg) \
	KH_EVENT(name, PARAMS(proto))
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign, print, reg, unreg) \
	KH_EVENT(name, PARAMS(proto))
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print) \
	KH_EVENT(name, PARAMS(proto))

#endif /* TRACE_EVENT */
