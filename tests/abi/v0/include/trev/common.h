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

#define __trev_stringify_1(x...)	#x
#define __trev_stringify(x...)		__trev_stringify_1(x)

#endif /* TREV_COMMON_H */
