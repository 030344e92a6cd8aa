/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stack tracer's traced functions (st_funcs.c, built with the function tracer's flags). */
#ifndef ST_FUNCS_H
#define ST_FUNCS_H

/* Bytes of each st_recurse() frame's own array: its frame is larger. */
#define ST_FRAME_BYTES	512

/* @n frames of st_recurse(), the innermost calling st_leaf(); returns what they summed. */
int st_recurse(int n);
/* One frame, then st_leaf(). */
int st_shallow(int x);
int st_leaf(int x);

#endif
