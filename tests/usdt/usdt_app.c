// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * usdt_app: calls each event of usdt_events.h three times with known
 * arguments (round i = 0, 1, 2), for the USDT tests (tests/scripts/usdt_*.sh),
 * and exits. Nothing else: perf and bpftrace attach before it starts.
 */
#include <limits.h>
#include <stdio.h>

#define CREATE_TRACE_POINTS
#include "usdt_events.h"

void usdt_app_cxx(int round);

int main(void)
{
	static const char *const names[] = { "zero", "one", "two" };

	for (int i = 0; i < 3; i++) {
		struct usdt_pair p = { 100 + i, 200 + i };

		trace_usdt_ints(-5 - i, 4000000000u + (unsigned int)i, -1234567890123L - i,
				ULONG_MAX - (unsigned long)i, (unsigned char)(200 + i),
				(short)(-300 - i));
		trace_usdt_str(names[i], 42 + i);
		trace_usdt_pair(p, 7 + i);
		usdt_app_cxx(i);
	}
	printf("usdt_app: done\n");
	return 0;
}
