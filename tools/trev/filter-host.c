/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What src/filter/filter.c needs of the library when the trev command builds it alone. */
#include "ring_buffer/rb_internal.h"

/*
 * The ring buffer's rseq CPU id, which the filter's built-in CPU predicate
 * reads. The command has no ring buffer (NULL: that predicate would ask
 * sched_getcpu()); `trev report` gives its filters the record's CPU as a
 * field of their table instead.
 */
RB_TLS const volatile int32_t *trev__rb_cpu_id;
