/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The C++ functions the function_graph tests trace (fg_cxx_funcs.cpp). */
#ifndef FG_CXX_FUNCS_H
#define FG_CXX_FUNCS_H

extern "C" {
int cx_leaf(int x);
int cx_throw(int x);
int cx_middle(int x, int *dtors);
int cx_catch(int x, int *dtors);
int cx_rethrow(int x, int *dtors);
int cx_wait(int *dtors);
int cx_wait_outer(int *dtors);
}

#endif
