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
#                       "ready PID": wait for it, PID in $app, or fail (a FILE used
#                       before must be emptied before the start: the shell may look
#                       before the program has opened it)
#   wait_for COND WHAT [SHOW]
#                       eval COND every 20 ms until it succeeds, or fail saying WHAT did
#                       not come (and the output of SHOW, eval'ed then)
#   pid_gone PID        true when process PID has ended (or is a zombie not ours to reap)
#   wait_gone PID WHAT  wait until process PID has ended (exit status in $rc), or fail
#   blocked_on PID FILE true when a thread of PID sleeps in a system call on its
#                       descriptor of FILE (an absolute path), e.g. a read of trace_pipe
#   wait_thread_ran PID COMM
#                       wait until the thread named COMM of process PID has gone to sleep
#                       twice more (voluntary context switches): a loop that sleeps once a
#                       round, as ctl_app's emitter, has finished the round it was in
#   asleep PID          the main thread of PID sleeps (state S or D in /proc/PID/stat)
#   drain FILE          read FILE (a trace_pipe) with O_NONBLOCK until it has nothing left
#   wait_recording N    trev record -p $app, started in the background as $rec with its
#                       stderr in $errf, says it records; then wait until $app has written
#                       N more events, or fail
#   start_listener DIR  a trace-cmd listen on a free loopback port ($lport), in a process
#                       group of its own ($lpid; stop_listeners kills every group started),
#                       writing its files into DIR (made empty), or fail
#   run STATUS CMD...   run CMD, keep its stdout and stderr, check its exit status
#   has REGEX           its stdout has a line matching REGEX (grep -E)
#   err_has REGEX       its stderr has one
#   err_is N TEXT       line N of its stderr is TEXT
#   fail MESSAGE        print MESSAGE, the last command's output, and exit 1
#
# The waits wait for a condition, never for a time: $WAIT_GUARD seconds (60) only guard
# against a hang, and a machine under load may use any part of them.
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

listener_groups=()
start_listener() {
	rm -rf "$1"
	mkdir -p "$1"
	for _ in $(seq 20); do
		lport=$((20000 + RANDOM % 20000))
		setsid trace-cmd listen -p "$lport" -d "$1" >"$1.log" 2>&1 &
		lpid=$!
		listener_groups+=("$lpid")
		for _ in $(seq $((WAIT_GUARD * 50))); do
			ss -Hltn "sport = :$lport" | grep >/dev/null . && return 0
			kill -0 "$lpid" 2>/dev/null || break
			sleep 0.02
		done
	done
	fail "trace-cmd listen did not start (see $1.log)"
}

stop_listeners() {
	for g in "${listener_groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null; done
	listener_groups=()
}

cli_cleanup() {
	exec 2>/dev/null
	stop_listeners
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

WAIT_GUARD=${WAIT_GUARD:-60}

wait_for() {
	local end=$((SECONDS + WAIT_GUARD))

	until eval "$1"; do
		if [ "$SECONDS" -ge "$end" ]; then
			fail "no sign after $WAIT_GUARD s (a hang guard) that $2${3:+: $(eval "$3")}"
		fi
		sleep 0.02
	done
}

# Gone: kill -0 fails, or a zombie that is not ours to reap.
pid_gone() {
	local stat

	kill -0 "$1" 2>/dev/null || return 0
	read -r stat <"/proc/$1/stat" 2>/dev/null || return 0
	stat=${stat##*) }
	[ "${stat%% *}" = Z ]
}

asleep() {
	local stat

	read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
	stat=${stat##*) }
	[[ "${stat%% *}" == [SD] ]]
}

wait_gone() {
	wait_for "pid_gone $1" "$2"
	wait "$1" 2>/dev/null
	rc=$?
}

# /proc/PID/task/TID/syscall is "NR ARG0 ..." while the thread sleeps in system call NR
# ("running" otherwise); read with a builtin, as the shell is the ancestor that ptrace
# rules (Yama) let look. Without that file, a sleeping thread with FILE open counts.
blocked_on() {
	local pid=$1 file=$2 fd task nr arg0 stat

	for fd in /proc/"$pid"/fd/*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "$file" ] || continue
		for task in /proc/"$pid"/task/*; do
			if read -r nr arg0 _ <"$task/syscall" 2>/dev/null; then
				[ "$nr" != running ] && [ "$((arg0))" = "${fd##*/}" ] && return 0
			elif read -r stat <"$task/stat" 2>/dev/null; then
				stat=${stat##*) }
				[[ "${stat%% *}" == [SD] ]] && return 0
			fi
		done
	done
	return 1
}

thread_sleeps() {
	local task comm key n

	for task in /proc/"$1"/task/*; do
		read -r comm <"$task/comm" 2>/dev/null || continue
		[ "$comm" = "$2" ] || continue
		while read -r key n; do
			[ "$key" = voluntary_ctxt_switches: ] && { echo "$n"; return 0; }
		done <"$task/status"
	done
	return 1
}

wait_thread_ran() {
	local from

	# Listing /proc/PID/task can miss a thread while others come and go (the control
	# socket's connection threads): look until it is seen.
	wait_for "from=\$(thread_sleeps $1 $2)" "process $1 shows a thread named $2"
	wait_for "[ \"\$(thread_sleeps $1 $2)\" -ge $((from + 2)) ]" "thread $2 of $1 ran a round"
}

drain() {
	python3 - "$1" <<'PY' || fail "drain $1 failed"
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
try:
    while os.read(fd, 65536):
        pass
except BlockingIOError:
    pass
os.close(fd)
PY
}

ready_pid() {
	app=$(awk '/^ready/ { print $2 }' "$1")
	[ -n "$app" ]
}

wait_ready() {
	local f

	f=$(printf %q "$1")
	app=""
	wait_for "ready_pid $f" "the program said 'ready PID' in $1" "cat $f"
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
	for _ in $(seq $((WAIT_GUARD * 20))); do
		if [ -z "$base" ] && grep -q "^trev: recording process $app; Ctrl-C to stop$" "$errf"; then
			base=$(written_events)
		fi
		[ -n "$base" ] && [ "$(written_events)" -ge $((base + $1)) ] && return 0
		kill -0 "$rec" 2>/dev/null || fail "trev record -p ended before it recorded"
		sleep 0.05
	done
	fail "trev record -p: no recording line, or not $1 events after it"
}
