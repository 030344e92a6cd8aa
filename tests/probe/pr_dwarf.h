/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The probed functions of the DWARF argument tests (pr_dwarf.c, built with
 * the function tracer's flags and -g; pr_nodw.c without -g, in libpr_nodw.so
 * and pr_nodie.c in the program).
 */
#ifndef PR_DWARF_H
#define PR_DWARF_H

/*
 * Each signature kept as written, no clones with parameters removed: gcc's
 * noipa; clang has no such attribute and makes no such clone of a function
 * other objects may call, so noinline is enough there.
 */
#ifdef __clang__
#define PR_NOIPA __attribute__((noinline))
#else
#define PR_NOIPA __attribute__((noipa))
#endif

struct pr_req {
	int id;
	long len;
	const char *path;
	char name[8];
	struct {
		short lo;
		unsigned int flag : 3;
		unsigned int mode : 4;
	} in;
	union {
		int u_int;
		long u_long;
	};
	struct pr_req *next;
};

long pr_dw_ints(int a, long b, unsigned short c, signed char d, unsigned long e, int f, long g);
int pr_dw_str(const char *path, int n);
long pr_dw_req(struct pr_req *req, int flags);
void pr_dw_void(int x);
struct pr_req *pr_dw_ret(struct pr_req *r);
int pr_dw_none(void);
int pr_dw_float(double x, int y);
int pr_nodw(int a);
int pr_nodie(int a);

#endif
