#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The functions the event macros generate are notrace (issue 35; docs/function-tracer.md,
# "Building a program for it"): tests/ftrace/ft_user defines its events (CREATE_TRACE_POINTS)
# in a file built with the function flags, at -O0 so that every static inline helper of the
# headers is a function of its own. With its events on and function_graph, then function,
# as the tracer, the program's own functions are traced (main, ft_user_work) and none of
# trev's: no __traceiter_*, __traceloop_*, trace_*, trev_event_raw_event_* (the probes),
# trev_event_get_offsets_*, trev_event_define_fields_*, trev_raw_output_*, trev_assign_*,
# trev_static_key_*, (un)register_trace_*, trev_module_init/exit, trev_fentry_*,
# trev_jump_label_*.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
app=$B/tests/ft_user
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

generated='^(__traceiter_|__traceloop_|trace_|trev_|register_trace_|unregister_trace_|check_trace_callback_type_)'

for tracer in function_graph function; do
	TREV_SOCKET=0 TREV_EVENTS='ft_user:*' TREV_WRITE="current_tracer=$tracer" \
		TREV_OUTPUT=stdout "$app" >"$T/$tracer" 2>"$T/err" ||
		fail "ft_user with $tracer failed: $(cat "$T/err")"
	if [ $tracer = function ]; then
		# "TASK-PID [CPU] flags TIME: func <-parent"
		sed -nE 's/^.*: (\S+) <-\S+$/\1/p' "$T/$tracer"
	else
		# " CPU)  DURATION |  func() {", "func();"
		sed -nE 's/^.*\|\s+([A-Za-z_][A-Za-z0-9_.:]*)\(\).*$/\1/p' "$T/$tracer"
	fi | sort -u >"$T/$tracer.funcs"
	for f in main ft_user_work; do
		grep -qxF $f "$T/$tracer.funcs" || fail "$tracer did not trace $f:
$(cat "$T/$tracer")"
	done
	# The events were on: their lines are in the trace.
	grep -q 'ft_user_odd: n=1 s=odd state=DONE flags=WRITE' "$T/$tracer" ||
		fail "$tracer: no ft_user_odd event line:
$(cat "$T/$tracer")"
	if grep -E "$generated" "$T/$tracer.funcs" >"$T/bad"; then
		fail "$tracer traced functions the event macros generate: $(tr '\n' ' ' <"$T/bad")"
	fi
done
echo "ok"
