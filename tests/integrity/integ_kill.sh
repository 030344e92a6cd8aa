#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Nothing lost when the program is stopped (issue 16): integ_crash's three writers
# (tests/integrity/integ_crash.c, "run") write integ:integ_rec events in bursts until the process
# ends; once each has written 500 (it says "written 500"), the script sends, in the middle of the
# writes (SIGINT and SIGTERM come to a writer: main blocks them):
#   - SIGINT, then in another run SIGTERM: the process dies of that signal, and TREV_OUTPUT
#     holds, for each writer, its events 0 .. k-1, intact, in order, none missing, with k >= 500
#     (what it had written before the signal) and k at most what it began (integ_check -a -p:
#     the other writers run on while the trace is written). The program is started with SIGINT's
#     default action (env --default-signal): a shell gives a background job SIG_IGN;
#   - SIGINT to a program that ignores it: the library leaves it alone (/proc/PID/status), the
#     process lives on, and a SIGTERM then ends it, with the trace;
#   - SIGINT to a program with a handler of its own, installed before the library started: the
#     handler stops the writers, main returns 0 and the exit prints the trace once, exact;
#   - nothing: a normal exit prints the trace exactly once, to a file and to stdout;
#   - SIGTERM with TREV_MOUNT: the mount's handler detaches it and hands over to the one that
#     writes the trace (when this machine can mount FUSE file systems).
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
app_bin="$B/tests/integ_crash"
check="$B/tests/integ_check"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
: >"$out" >"$errf"

sanitize=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$B/CMakeCache.txt" 2>/dev/null)
if [ "$sanitize" = thread ]; then
	# To TSan, the child that writes the trace still has the parent's threads, and is inside
	# the handler: it would report the locks the child makes anew (races, double locks) and
	# its malloc() calls. Those reports, and only those, are left out.
	printf '%s:crash_child_main\n' race mutex signal >"$T/tsan.supp"
	# The mount case: the same child's exit finds the FUSE workers the parent started and,
	# dying of the signal, never joined.
	printf 'thread:libfuse3.so\n' >>"$T/tsan.supp"
	export TSAN_OPTIONS=${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$T/tsan.supp:print_suppressions=0
fi
[ "$sanitize" = address ] && export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

# start NAME HOW [ENV...]: integ_crash HOW in the background (its stdout in $T/NAME.out, trace in
# $T/NAME.txt, counters in $T/NAME.bin), with env's options or variables ENV; waits until every
# writer wrote 500 events. Its pid in $app.
start() {
	local name=$1 how=$2

	shift 2
	: >"$T/$name.out"
	env "$@" INTEG_CRASH_HOW="$how" TREV_SOCKET=0 TREV_BUFFER_KB=4096 \
		TREV_WRITE='options/overwrite=0' TREV_EVENTS=integ:integ_rec \
		TREV_OUTPUT="$T/$name.txt" \
		"$app_bin" "$T/$name.bin" "$how" 3 500 >"$T/$name.out" 2>"$T/$name.err" &
	pids+=($!)
	wait_ready "$T/$name.out"
	wait_for "grep -q '^written 500\$' '$T/$name.out'" "$name: each writer wrote 500 events"
}

# signal_bit PID FIELD SIG: SIG is set in /proc/PID/status's FIELD mask (SigIgn, SigCgt).
signal_bit() {
	local mask

	mask=$(sed -n "s/^$2:\t//p" "/proc/$1/status")
	[ -n "$mask" ] && (((16#$mask >> ($(kill -l "$3") - 1)) & 1))
}

# ended NAME WANT [ALSO]: the process $app of run NAME ended with exit status WANT; its
# stderr has no line but the program's own (and lines matching the regex ALSO).
ended() {
	wait_gone "$app" "$1: the process ended"
	cp "$T/$1.err" "$errf"
	cp "$T/$1.out" "$out"
	[ "$rc" = "$2" ] || fail "$1: exit status $rc, not $2"
	grep -v '^own handler$' "$T/$1.err" | grep -vqE "${3:-^\$.}" &&
		fail "$1: unexpected messages on stderr"
	return 0
}

# checked NAME [ARGS]: the trace of run NAME once, and integ_check ARGS on it.
checked() {
	local name=$1

	shift
	[ "$(grep -c '^# tracer: nop$' "$T/$name.txt")" = 1 ] || fail "$name: not one trace header"
	"$check" -c -n "$name" "$@" "$T/$name.txt" >"$out" 2>"$errf" ||
		{ cat "$out"; fail "$name: the checker failed"; }
	cat "$out"
}

printf 'stream %d written 500\n' 0 1 2 >"$T/floors"

# killed NAME SIG: the counts of run NAME, killed by SIG in the middle of its writes, and the trace:
# every writer's events 0 .. k-1 with k >= 500, at most what it began.
killed() {
	"$app_bin" --counts "$T/$1.bin" >"$T/$1.counts" || fail "$1: no counts"
	checked "$1" -a -p "$T/floors" "$T/$1.counts"
}

# ---- SIGINT and SIGTERM, default actions: the library's handler writes the trace.
for sig in INT TERM; do
	start "sig$sig" run --default-signal=INT
	signal_bit "$app" SigCgt "$sig" || fail "sig$sig: the library has no handler for SIG$sig"
	kill -"$sig" "$app"
	ended "sig$sig" $((128 + $(kill -l $sig)))
	killed "sig$sig"
done

# ---- SIGINT ignored by the program: it stays ignored; SIGTERM ends the process.
start ignored run --ignore-signal=INT
signal_bit "$app" SigIgn INT || fail "ignored: SIGINT is not ignored"
signal_bit "$app" SigCgt INT && fail "ignored: the library handles an ignored SIGINT"
kill -INT "$app"	# discarded as it is sent: an ignored signal is never queued
kill -0 "$app" 2>/dev/null || fail "ignored: the process died of an ignored SIGINT"
kill -TERM "$app"
ended ignored 143
killed ignored

# ---- SIGINT with the program's own handler: it ends the program its way; the exit prints.
start own int-handler --default-signal=INT
kill -INT "$app"
ended own 0
grep -q '^own handler$' "$T/own.err" || fail "own: the program's SIGINT handler did not run"
grep -q '^done$' "$T/own.out" || fail "own: main did not return"
"$app_bin" --counts "$T/own.bin" >"$T/own.counts" || fail "own: no counts"
checked own -p "$T/floors" "$T/own.counts"

# ---- A normal exit: the trace exactly once, to a file and to stdout.
for output in file stdout; do
	dest="$T/exit_$output.txt"
	[ $output = stdout ] && dest=stdout
	env TREV_SOCKET=0 TREV_BUFFER_KB=4096 TREV_WRITE='options/overwrite=0' \
		TREV_EVENTS=integ:integ_rec TREV_OUTPUT="$dest" \
		"$app_bin" "$T/exit_$output.counts" exit 3 500 >"$T/exit_$output.out" 2>"$errf"
	rc=$?
	[ $rc = 0 ] || fail "exit ($output): exit status $rc"
	[ $output = stdout ] && cp "$T/exit_$output.out" "$T/exit_$output.txt"
	[ "$(grep -c '^written 500$' "$T/exit_$output.out")" = 1 ] || fail "exit ($output): no 'written'"
	checked "exit_$output" "$T/exit_$output.counts"
done

# ---- SIGTERM with TREV_MOUNT: the mount's handler runs first and hands over.
fuse_skip=""
[ -c /dev/fuse ] || fuse_skip="/dev/fuse is missing"
command -v fusermount3 >/dev/null || fuse_skip="fusermount3 is missing"
if [ "$(id -u)" -ne 0 ] && ! { [ -r /dev/fuse ] && [ -w /dev/fuse ]; }; then
	fuse_skip="not root, and /dev/fuse is not readable and writable"
fi
if [ -n "$fuse_skip" ]; then
	echo "TREV_MOUNT and SIGTERM: not checked ($fuse_skip)"
else
	mnt="$T/mnt"
	mkdir "$mnt"
	cli_cleanup_more() {
		if grep -q " $mnt " /proc/mounts; then
			fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
		fi
	}
	start mount run TREV_MOUNT="$mnt"
	wait_for 'test -e "$mnt/trace"' "the mount has trace"
	kill -TERM "$app"
	# The mount's handler closes the FUSE device so that no thread of the dying process
	# can wait on its own mount; while the trace is written, a FUSE worker may still read
	# the closed device, and libfuse says so (a known message, nothing lost).
	ended mount 143 '^fuse: reading device: Bad file descriptor$'

	grep -q " $mnt " /proc/mounts && fail "mount: still mounted after SIGTERM"
	killed mount
fi
echo "nothing lost when the program is stopped: ok"
