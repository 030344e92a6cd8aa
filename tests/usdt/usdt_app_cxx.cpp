// SPDX-License-Identifier: LGPL-2.1-or-later
/* usdt_app's C++ call site: the same note, built by the C++ side of trev/usdt.h. */
#include "usdt_events.h"

extern "C" void usdt_app_cxx(int round);

void usdt_app_cxx(int round)
{
	trace_usdt_cxx(-1000 - round, round == 1, round ? "cxx-odd" : "cxx-even",
		       0x8000000000000000ull + (unsigned long long)round);
}
