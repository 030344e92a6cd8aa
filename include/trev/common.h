/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Definitions shared by every public trev header: the export macro and the
 * attributes the hot path relies on.
 */
#ifndef TREV_COMMON_H
#define TREV_COMMON_H

#if defined(TREV_BUILDING_LIB)
#define TREV_API __attribute__((visibility("default")))
#else
#define TREV_API
#endif

#define trev_likely(x)		__builtin_expect(!!(x), 1)
#define trev_unlikely(x)	__builtin_expect(!!(x), 0)

#ifdef __cplusplus
#define TREV_STATIC_ASSERT(cond, msg)	static_assert(cond, msg)
#else
#define TREV_STATIC_ASSERT(cond, msg)	_Static_assert(cond, msg)
#endif

/*
 * __trev_notrace - the kernel's notrace: the function has no patchable entry
 * even in a file built with the function tracer's flags
 * (-fpatchable-function-entry=5, docs/function-tracer.md), so the tracer
 * never lists it. Every function the event headers generate in the user's
 * files carries it: trev's own code is not the program's to trace.
 */
#define __trev_notrace	__attribute__((patchable_function_entry(0, 0)))

#define __trev_stringify_1(x...)	#x
#define __trev_stringify(x...)		__trev_stringify_1(x)

#endif /* TREV_COMMON_H */
