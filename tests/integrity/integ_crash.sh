#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Nothing lost when the program dies of a fault (issue 16): integ_crash's three writers
# (tests/integrity/integ_crash.c) write 2000 integ:integ_rec events each, the program writes the
# counts, and then it dies: SIGSEGV on the main thread, on a writer, inside a trace call (its
# event half made), from a stack overflow; SIGABRT, SIGBUS, SIGFPE, SIGILL; SIGSEGV with a
# handler of the program's installed before the library started, or after it (one that calls
# the handler it replaced, and one that does not). Each program runs twice, without and with
# TREV_OUTPUT, and for each:
#   - its wait status is the same both times, and is death by the signal (a core file is
#     written both times too, where cores go to the working directory);
#   - TREV_OUTPUT holds the trace once, and integ_check finds every event written before the
#     fault, intact, in order: written == read exactly (nothing is lost: big discard buffers);
#   - the program's own handler ran where it had one; one installed after the library started
#     replaces its handler, and then nothing is written (docs/tracefs.md says so).
# A fault while another thread reads `trace` over and over: the same. Then the child that writes
# the trace, in trouble (TREV_OUTPUT cannot be opened, and the library's log hook...):
#   - waits for a lock a parked thread holds: the child's watchdog ends it after 5 s without
#     progress, and says so; a SIGTERM sent meanwhile waits, the process dies of its SIGSEGV;
#   - dies of SIGSEGV itself: the process says so and dies of its own SIGSEGV;
#   - the fault was in the log hook, so the dying thread held the library's log lock: the
#     child's message still reaches the hook (the child makes the library's locks anew).
# Also TREV_OUTPUT=stdout (the text once on stdout), and under ASan its SIGSEGV handler chained.
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
	# its malloc() calls. Those reports, and only those, are left out. TSan's own fault
	# handlers exit with status 66: off, as ASan's below.
	printf '%s:crash_child_main\n' race mutex signal >"$T/tsan.supp"
	export TSAN_OPTIONS=${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$T/tsan.supp:print_suppressions=0
	TSAN_OPTIONS+=:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
fi
asan_default=${ASAN_OPTIONS:-}
if [ "$sanitize" = address ]; then
	# ASan's own handlers die with exit status 1: off, so that the signals are the program's.
	# Cores: ASan turns them off (disable_coredump), and its shadow memory would make them huge.
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	ASAN_OPTIONS+=:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
fi

# Cores: checked where they go to the working directory and this shell may allow them.
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
cores=0
if [ -z "$sanitize" ] && [ -n "$pattern" ] && [[ "$pattern" != \|* && "$pattern" != */* ]] &&
	(ulimit -c unlimited) 2>/dev/null; then
	cores=1
else
	echo "core files not checked (core_pattern '$pattern', sanitizer '${sanitize:-none}')"
fi

# run DIR HOW TREV: integ_crash HOW in DIR (its working directory), with TREV_OUTPUT=DIR/trace.txt
# when TREV is "trev", TREV_OUTPUT=stdout when it is "stdout", TREV_OUTPUT=DIR/out, a directory,
# when it is "dir"; its exit status in $st.
run() {
	local dir=$1 how=$2 with=$3 output=""

	rm -rf "$dir"
	mkdir -p "$dir"
	case "$with" in
	trev) output="$dir/trace.txt" ;;
	stdout) output=stdout ;;
	dir) output="$dir/out"; mkdir "$output" ;;
	esac
	# The group's 2>/dev/null: the shell's own "Segmentation fault (core dumped)" line.
	{
		(
			cd "$dir" || exit 125
			[ $cores = 1 ] && ulimit -c unlimited
			exec env INTEG_CRASH_HOW="$how" TREV_SOCKET=0 TREV_BUFFER_KB=4096 \
				TREV_WRITE='options/overwrite=0' TREV_EVENTS=integ:integ_rec \
				${output:+TREV_OUTPUT="$output"} "$app_bin" "$dir/counts" "$how" 3 2000
		) >"$dir/app.out" 2>"$dir/app.err"
	} 2>/dev/null
	st=$?
}

# A core file in DIR: present (1) or not (0).
core_in() {
	local f

	for f in "$1"/core*; do
		[ -f "$f" ] && { rm -f "$1"/core*; echo 1; return; }
	done
	echo 0
}

show_app() { cp "$1/app.err" "$errf"; cp "$1/app.out" "$out"; }

# crash NAME HOW SIG [OWN]: HOW kills integ_crash with SIG, with and without TREV_OUTPUT;
# OWN: "own" when the program's handler must have run, "replaced" when TREV_OUTPUT stays unwritten,
# "may_block" when the writer may meet a lock another thread held (then stopped by the watchdog).
crash() {
	local name=$1 how=$2 sig=$3 own=${4:-} base="$T/$1.base" dir="$T/$1" want st0 core0 core1

	want=$((128 + $(kill -l "$sig")))
	run "$base" "$how" ""
	st0=$st
	core0=$(core_in "$base")
	run "$dir" "$how" trev
	core1=$(core_in "$dir")
	show_app "$dir"
	[ "$st" = "$st0" ] || fail "$name: exit status $st with TREV_OUTPUT, $st0 without"
	[ "$st" = "$want" ] || fail "$name: exit status $st, not $want (SIG$sig)"
	if [ $cores = 1 ]; then
		[ "$core0" = 1 ] || fail "$name: no core file even without TREV_OUTPUT"
		[ "$core1" = 1 ] || fail "$name: no core file with TREV_OUTPUT"
	fi
	grep -q '^written 2000$' "$dir/app.out" || fail "$name: the writers did not finish"
	if [ "$own" = own ] || [ "$own" = replaced ]; then
		grep -q '^own handler$' "$dir/app.err" || fail "$name: the program's handler did not run"
	fi
	# A thread reading `trace` may hold a lock of the C library (malloc's) when the other
	# one faults: the child that writes the trace can then block on it, and the watchdog
	# stops it (docs/tracefs.md, "When the program dies", the first residual risk). The
	# process still dies as it would have; nothing else may be said.
	if [ "$own" = may_block ] &&
		grep -qx 'trev: TREV_OUTPUT: no progress writing the trace (a lock held when the program died?); stopped' \
			"$dir/app.err"; then
		grep -q . <(grep -v '^trev: TREV_OUTPUT: no progress' "$dir/app.err") &&
			fail "$name: unexpected messages on stderr"
		echo "$name: SIG$sig, status $st: the writer met a lock the reading thread held (documented); the watchdog stopped it"
		return
	fi
	grep -vq '^own handler$' "$dir/app.err" && fail "$name: unexpected messages on stderr"
	if [ "$own" = replaced ]; then
		[ -e "$dir/trace.txt" ] && fail "$name: a trace was written by a handler that was replaced"
		echo "$name: SIG$sig, status $st, the program's handler replaced the library's: no trace"
		return
	fi
	[ -s "$dir/trace.txt" ] || fail "$name: TREV_OUTPUT is empty"
	[ "$(grep -c '^# tracer: nop$' "$dir/trace.txt")" = 1 ] || fail "$name: not one trace header"
	"$check" -c -n "$name" "$dir/counts" "$dir/trace.txt" >"$out" 2>"$errf" ||
		{ cat "$out"; fail "$name: the checker failed"; }
	echo "$name: SIG$sig, status $st$([ $cores = 1 ] && echo ", core file"): $(cat "$out")"
}

crash segv segv SEGV
crash segv_thread segv-thread SEGV
crash in_write in-write SEGV
crash overflow overflow SEGV
crash abort abort ABRT
crash bus bus BUS
crash fpe fpe FPE
if [ "$(uname -m)" = x86_64 ]; then
	crash ill ill ILL
else
	echo "ill: not checked (__builtin_trap() raises SIGILL on x86 only)"
fi
crash handler_before handler-before SEGV own
crash handler_after handler-after SEGV own
crash handler_replace handler-replace SEGV replaced
crash reader reader SEGV may_block

# ---- The child in trouble. Stuck: started in the background, for the SIGTERM.
dir="$T/stuck"
rm -rf "$dir"
mkdir -p "$dir/out"
env INTEG_CRASH_HOW=stuck TREV_SOCKET=0 TREV_EVENTS=integ:integ_rec TREV_OUTPUT="$dir/out" \
	"$app_bin" "$dir/counts" stuck 3 2000 >"$dir/app.out" 2>"$dir/app.err" &
pids+=($!)
stuck=$!
wait_for "grep -q '^log hook\$' '$dir/app.err'" "stuck: the child reached the log hook"
kill -TERM "$stuck"
wait_gone "$stuck" "stuck: the process ended"
show_app "$dir"
[ "$rc" = 139 ] || fail "stuck: exit status $rc, not 139 (SIGSEGV, before the SIGTERM)"
grep -q '^trev: TREV_OUTPUT: no progress writing the trace' "$dir/app.err" ||
	fail "stuck: the watchdog did not say it stopped the child"
echo "stuck: the watchdog ended the child; SIGTERM meanwhile: status $rc (SIGSEGV)"

run "$T/writer_dies" writer-dies dir
show_app "$T/writer_dies"
[ "$st" = 139 ] || fail "writer-dies: exit status $st, not 139"
grep -q '^log hook$' "$T/writer_dies/app.err" || fail "writer-dies: the log hook did not run"
grep -q '^trev: TREV_OUTPUT: the trace writer died of signal 11$' "$T/writer_dies/app.err" ||
	fail "writer-dies: the process did not say its child died"
echo "writer-dies: the child died of SIGSEGV; status $st (SIGSEGV)"

run "$T/in_log" in-log dir
show_app "$T/in_log"
[ "$st" = 139 ] || fail "in-log: exit status $st, not 139"
grep -q '^log hook in the child$' "$T/in_log/app.err" ||
	fail "in-log: the child's message did not reach the log hook"
grep -q 'no progress' "$T/in_log/app.err" && fail "in-log: the child was stuck"
echo "in-log: the log lock the dying thread held was free in the child; status $st (SIGSEGV)"

# TREV_OUTPUT=stdout: the program's lines, then the trace once.
run "$T/stdout" segv stdout
show_app "$T/stdout"
[ "$st" = 139 ] || fail "segv, TREV_OUTPUT=stdout: exit status $st, not 139"
[ "$(grep -c '^# tracer: nop$' "$T/stdout/app.out")" = 1 ] || fail "stdout: not one trace header"
[ "$(grep -c '^written 2000$' "$T/stdout/app.out")" = 1 ] || fail "stdout: the program's line twice"
"$check" -c -n stdout "$T/stdout/counts" "$T/stdout/app.out" >"$out" 2>"$errf" ||
	{ cat "$out"; fail "stdout: the checker failed"; }
echo "stdout: $(cat "$out")"

if [ "$sanitize" = address ]; then
	# ASan's SIGSEGV handler was there before the library: the trace first, then ASan's report.
	ASAN_OPTIONS=${asan_default:+$asan_default:}detect_leaks=0 run "$T/asan.base" segv ""
	st0=$st
	ASAN_OPTIONS=${asan_default:+$asan_default:}detect_leaks=0 run "$T/asan" segv trev
	show_app "$T/asan"
	[ "$st" = "$st0" ] || fail "asan: exit status $st with TREV_OUTPUT, $st0 without"
	grep -q 'AddressSanitizer: SEGV' "$T/asan/app.err" || fail "asan: no report from ASan's handler"
	"$check" -c -n asan "$T/asan/counts" "$T/asan/trace.txt" >"$out" 2>"$errf" ||
		{ cat "$out"; fail "asan: the checker failed"; }
	echo "asan (its handler chained): status $st: $(cat "$out")"
fi
echo "nothing lost when the program dies of a fault: ok"
