# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What the trev command's script tests share (tests/scripts/cli_*.sh, control_*.sh). A
# script sources this, calls cli_setup and sets $out and $errf (files for a command's
# stdout and stderr, usually in $T):
#
#   cli_setup           a private socket directory ($TREV_SOCKET_DIR), a work directory
#                       $T and a list $pids of processes; at exit the processes are
#                       killed, cli_cleanup_more runs if the script defines one, and both
#                       directories are removed
#   wait_ready FILE     a program started in the background with its stdout in FILE says
#                       "ready PID": wait for it (10 s at most), PID in $app, or fail
#   wait_recording N    trev record -p $app, started in the background as $rec with its
#                       stderr in $errf, says it records; then wait until $app has written
#                       N more events (10 s at most), or fail
#   run STATUS CMD...   run CMD, keep its stdout and stderr, check its exit status
#   has REGEX           its stdout has a line matching REGEX (grep -E)
#   err_has REGEX       its stderr has one
#   err_is N TEXT       line N of its stderr is TEXT
#   fail MESSAGE        print MESSAGE, the last command's output, and exit 1
#
# Optional: $fail_stdout_lines limits the stdout shown by fail; a function fail_more,
# if the script defines one, prints more after it.

fail() {
	echo "FAIL: $*" >&2
	echo "---- stdout:" >&2
	if [ -n "${fail_stdout_lines:-}" ]; then head -"$fail_stdout_lines" "$out" >&2; else cat "$out" >&2; fi
	echo "---- stderr:" >&2; cat "$errf" >&2
	if declare -F fail_more >/dev/null; then fail_more >&2; fi
	exit 1
}

run() {
	local want=$1 st
	shift
	"$@" >"$out" 2>"$errf"
	st=$?
	[ "$st" = "$want" ] || fail "'$*' exited $st, expected $want"
}

has() { grep -qE -- "$1" "$out" || fail "stdout has no line matching /$1/"; }
err_has() { grep -qE -- "$1" "$errf" || fail "stderr has no line matching /$1/"; }
err_is() { [ "$(sed -n "${1}p" "$errf")" = "$2" ] || fail "stderr line $1 is not '$2'"; }

cli_cleanup() {
	exec 2>/dev/null
	for p in "${pids[@]}"; do
		kill -KILL "$p" && wait "$p"
	done
	if declare -F cli_cleanup_more >/dev/null; then cli_cleanup_more; fi
	rm -rf "$sockdir" "$T"
}

cli_setup() {
	sockdir=$(mktemp -d)
	chmod 700 "$sockdir"
	export TREV_SOCKET_DIR="$sockdir"
	T=$(mktemp -d)
	pids=()
	trap cli_cleanup EXIT
}

wait_ready() {
	app=""
	for _ in $(seq 200); do
		app=$(awk '/^ready/ { print $2 }' "$1")
		[ -n "$app" ] && return 0
		sleep 0.05
	done
	fail "$1: the program did not say it is ready: $(cat "$1")"
}

# The events $app's buffers took so far: per CPU, those still in them and those read.
written_events() {
	local c st n=0
	for c in $("$trev" ls -p "$app" per_cpu | sed 's|/$||'); do
		st=$("$trev" cat -p "$app" "per_cpu/$c/stats")
		n=$((n + $(sed -n 's/^entries: //p' <<<"$st") + $(sed -n 's/^read events: //p' <<<"$st")))
	done
	echo "$n"
}

wait_recording() {
	local base=""
	for _ in $(seq 200); do
		if [ -z "$base" ] && grep -q "^trev: recording process $app; Ctrl-C to stop$" "$errf"; then
			base=$(written_events)
		fi
		[ -n "$base" ] && [ "$(written_events)" -ge $((base + $1)) ] && return 0
		kill -0 "$rec" 2>/dev/null || fail "trev record -p ended before it recorded"
		sleep 0.05
	done
	fail "trev record -p: no recording line, or not $1 events after it"
}
