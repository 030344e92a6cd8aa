/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * liburcu-bp as trev reads it: the read side inlined (_LGPL_SOURCE, so that a
 * read section is a few instructions of an event's path, docs/events.md) and
 * the per-thread reader pointer reached as initial-exec TLS. Included by
 * define_trace.h (a file that defines CREATE_TRACE_POINTS) and by libtrev's
 * own code; not for programs.
 */
#ifndef TREV_URCU_BP_H
#define TREV_URCU_BP_H

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#define TREV_UNDEF_LGPL_SOURCE
#endif
#include <urcu/urcu-bp.h>
#ifdef TREV_UNDEF_LGPL_SOURCE
#undef _LGPL_SOURCE
#undef TREV_UNDEF_LGPL_SOURCE
#endif

#ifdef CONFIG_RCU_TLS
/*
 * liburcu-bp declares its reader pointer plain thread-local, so position-
 * independent code (libtrev.so, a shared library's events) reaches it
 * through __tls_get_addr(): three calls a read section, about 2.5 ns.
 * Declared again after liburcu's header, with the model: one %fs load
 * through the GOT. liburcu-bp is loaded with libtrev, whose own
 * per-thread variables are initial-exec already, so the pointer lies in
 * the static TLS block (for an object loaded by dlopen(), in the block's
 * reserve; docs/events.md).
 */
extern URCU_TLS_STORAGE_CLASS struct urcu_bp_reader *urcu_bp_reader
	__attribute__((tls_model("initial-exec")));
#endif

#endif /* TREV_URCU_BP_H */
