// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A user's program as docs/function-tracer.md builds one: this whole file
 * with the function tracer's flags, main() too, and it defines its events
 * (CREATE_TRACE_POINTS, tests/events/ft_user_events.h). Its main() is
 * called by libc's start code, so the function tracer's `main <-parent`
 * names a function of libc (tests/scripts/ftrace_libc_parent.sh); the
 * functions the event macros generate carry trev's notrace attribute, so
 * function_graph lists none of them (tests/scripts/ftrace_event_notrace.sh);
 * its events and function records are converted to CTF
 * (tests/scripts/cli_convert_ctf_names.sh). With "dat FILE", it writes
 * what it traced to FILE itself (trev_record_dat(): the names come from
 * the library's own symbol lookup, not trev record's).
 */
#include <stdio.h>
#include <string.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "ft_user_events.h"

int ft_user_work(int n);

/* Not static: the symbol stays a function of its own at every -O. */
__attribute__((noinline)) int ft_user_work(int n)
{
	static const unsigned long flags[] = { FT_USER_F_READ, FT_USER_F_READ | FT_USER_F_SYNC,
					       FT_USER_F_WRITE | FT_USER_F_SYNC };

	trace_ft_user_step(n, "step", (unsigned int)(n % 3), flags[n % 3]);
	trace_ft_user_odd(n, "odd", FT_USER_DONE, FT_USER_F_WRITE);
	return n + 1;
}

int main(int argc, char **argv)
{
	int sum = 0, ret;

	for (int i = 0; i < 3; i++)
		sum += ft_user_work(i);
	if (sum != 6) {
		fprintf(stderr, "ft_user: sum %d, not 6\n", sum);
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "dat")) {
		ret = trev_write("tracing_on", "0");
		if (!ret)
			ret = trev_record_dat(NULL, argv[2], 6);
		if (ret) {
			fprintf(stderr, "ft_user: %s: %s\n", argv[2], strerror(-ret));
			return 1;
		}
	}
	return 0;
}
