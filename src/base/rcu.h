/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * liburcu-bp for libtrev's own code: the read side inlined (_LGPL_SOURCE,
 * DESIGN.md) and its per-thread reader pointer reached as initial-exec TLS.
 */
#ifndef TREV_BASE_RCU_H
#define TREV_BASE_RCU_H

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif
#include <urcu-bp.h>

#if defined(CONFIG_RCU_TLS) && !defined(TREV_URCU_TLS_IE)
#define TREV_URCU_TLS_IE
/*
 * liburcu-bp declares its reader pointer plain __thread, so position-
 * independent code reaches it through __tls_get_addr(): in libtrev.so
 * two calls for each urcu_bp_read_lock() and one for each unlock, about
 * 60 instructions a read section that the static library does not pay.
 * Declared again after the header, with the model: one %fs load through
 * the GOT (include/trev/define_trace.h does the same for the programs' and
 * libraries' own events). This asks nothing new of a process: libtrev's own per-thread
 * variables are initial-exec already, liburcu-bp is loaded with libtrev,
 * and its 8 bytes take the static TLS block (for a dlopen()ed libtrev,
 * its reserve, as libtrev's own do). docs/function-tracer.md, "Cost".
 */
extern URCU_TLS_STORAGE_CLASS struct urcu_bp_reader *urcu_bp_reader
	__attribute__((tls_model("initial-exec")));
#endif

#endif /* TREV_BASE_RCU_H */
