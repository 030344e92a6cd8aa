#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The kernel's own ftrace selftests (tools/testing/selftests/ftrace, ftracetest) run,
# unmodified, against trev's tree (docs/ftracetest.md):
#   1. tools/testing/selftests/ftrace and the event headers are taken from Debian's
#      linux-source-6.1 (tests/kernel_headers/extract.sh installs it if missing);
#   2. ft_target.c is linked with the kernel's sched, irq, timer, kmem and signal headers
#      compiled with trev (tests/kernel_headers/'s stand-ins), and fires all their events
#      every millisecond from a thread, which also calls functions named as the kernel's
#      (ft_funcs.c, built for the function tracer); a second thread fires sched_process_fork,
#      _exec and _exit (and an exec's first run: sched_waking, _wakeup, _switch) for the
#      real forks, execs and exits of this script's process tree (the connector, ft_target.c);
#   3. `trev mount -p PID` serves its tree over FUSE, and ftracetest runs in a private mount
#      namespace (unshare -m) where that mount is bound over /sys/kernel/tracing and
#      /sys/kernel/debug/tracing: the kernel's tracefs is never touched;
#   4. the counts are printed, and every case that does not pass with its class and reason
#      (classes.txt); the results are compared with expected.txt, better or worse.
#
#   ftracetest.sh            run, print, compare with expected.txt (exit 1 when they differ)
#   ftracetest.sh --update   run, print, write expected.txt
#   ftracetest.sh CASE...    only these cases (paths under test.d/, e.g. 00basic/basic1.tc);
#                            no comparison
#
# Needs root (ftracetest refuses anything else, and the namespace needs CAP_SYS_ADMIN), FUSE
# and unshare; exits 77 (skipped) without them. TREV_SOURCE_DIR / TREV_BUILD_DIR as ctest
# sets them (default: this tree and its build/). Work files in $TREV_BUILD_DIR/ftracetest/:
# ftracetest's logs of every case in logs/, the target's build in target/.
set -euo pipefail
export LC_ALL=C
export PYTHONDONTWRITEBYTECODE=1

FT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
S=${TREV_SOURCE_DIR:-$(cd "$FT/../.." && pwd)}
B=${TREV_BUILD_DIR:-$S/build}
KH=$S/tests/kernel_headers
W=$B/ftracetest
CC=${CC:-cc}
# The headers whose events the target fires; tests/kernel_headers/headers.list's names.
HEADERS=(sched irq timer kmem signal)

skip() {
	echo "SKIP: $*"
	exit 77
}

update=0
only=()
for arg in "$@"; do
	case $arg in
	--update) update=1 ;;
	-*) echo "usage: $0 [--update] [CASE...]" >&2; exit 2 ;;
	*) only+=("$arg") ;;
	esac
done

# Only the normal tree: the target links libtrev.a with objects built without instrumentation.
if grep -q '^TREV_SANITIZE:STRING=.' "$B/CMakeCache.txt" 2>/dev/null; then
	skip "$B is a sanitizer tree; run ftracetest on the normal build"
fi
[ "$(id -u)" -eq 0 ] || skip "ftracetest runs only as root"
[ -c /dev/fuse ] || skip "/dev/fuse is missing"
for tool in unshare python3 pkg-config findmnt; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
unshare -m true 2>/dev/null || skip "unshare -m cannot make a mount namespace here"
[ -f "$B/libtrev.a" ] || { echo "FAIL: $B/libtrev.a is not built" >&2; exit 1; }
[ -x "$B/tools/trev/trev" ] || { echo "FAIL: $B/tools/trev/trev is not built" >&2; exit 1; }

mkdir -p "$W"
"$KH/extract.sh" "$W" 'tools/testing/selftests/ftrace/*'
"$KH/prepare.sh" "$W"
SUITE=$W/linux/tools/testing/selftests/ftrace

# ---- the target ------------------------------------------------------------------------------
T=$W/target
rm -rf "$T"
mkdir -p "$T"
objs=()
for name in "${HEADERS[@]}"; do
	line=$(grep -P "^$name\t" "$KH/headers.list") ||
		{ echo "FAIL: $name is not in $KH/headers.list" >&2; exit 1; }
	read -r _ inc dir _ <<<"$line"
	common=(-std=gnu11 -g -O1 -D_GNU_SOURCE -Werror=implicit-function-declaration
		-include "$KH/standin/kernel_types.h" "-DKH_HEADER=<$inc>")
	ref_inc=(-I"$KH/ref" -I"$KH/standin" -I"$W/linux/include" -I"$W/linux/$dir" -I"$W/stubs")
	trev_inc=(-DKH_TREV -I"$S/include" -I"$KH/standin" -I"$W/trev/include" -I"$W/trev/$dir"
		-I"$W/stubs" -DTRACE_INCLUDE_PATH=trace/events)
	# gen_fire.py's calls that fire every event of the header, as the corpus test makes them,
	# but sched_process_fork and sched_process_exit: ft_sched.h fires those for the real forks
	# and exits of this script's processes (ftracetest's shell), as ft_kmem.h fires a kmalloc
	# with a real call site.
	fire=(-DKH_FIRE="\"$T/fire_$name.h\"")
	[ ! -f "$FT/ft_$name.h" ] ||
		fire=(-DKH_FIRE="\"$FT/ft_$name.h\"" -DFT_FIRE="\"$T/fire_$name.h\"")
	if ! "$CC" "${common[@]}" "${ref_inc[@]}" -DKH_FIRE_STAGE -E -P "$KH/tu.c" \
		-o "$T/$name.i" >"$T/$name.log" 2>&1 ||
	   ! python3 "$KH/gen_fire.py" "$T/$name.i" "$KH/standin/kernel_types.h" \
		>"$T/fire_$name.gen" 2>>"$T/$name.log" ||
	   ! sed -e '/trace_sched_process_fork(/d' -e '/trace_sched_process_exit(/d' \
		"$T/fire_$name.gen" >"$T/fire_$name.h" ||
	   ! "$CC" "${common[@]}" "${trev_inc[@]}" "${fire[@]}" \
		-Dkh_fire_all=ft_fire_"$name" -c "$KH/tu.c" -o "$T/$name.o" >>"$T/$name.log" 2>&1; then
		echo "FAIL: the target's $inc does not build:" >&2
		cat "$T/$name.log" >&2
		exit 1
	fi
	objs+=("$T/$name.o")
done
# The kernel-named functions, with the function tracer's flags (docs/function-tracer.md).
if ! "$CC" -std=gnu11 -g -O2 -fpatchable-function-entry=5 -include "$S/include/trev/fentry.h" \
	-I"$S/include" -c "$FT/ft_funcs.c" -o "$T/ft_funcs.o" >"$T/link.log" 2>&1 ||
   ! "$CC" -std=gnu11 -g -O1 -D_GNU_SOURCE -I"$S/include" -I"$KH/standin" \
	"$FT/ft_target.c" "$T/ft_funcs.o" "$KH/standin/standin.c" "${objs[@]}" "$B/libtrev.a" \
	$(pkg-config --libs liburcu-bp fuse3 libdw libelf capstone) -lpthread -o "$T/ft_target" \
	>>"$T/link.log" 2>&1; then
	echo "FAIL: ft_target does not build:" >&2
	cat "$T/link.log" >&2
	exit 1
fi

# ---- run -------------------------------------------------------------------------------------
mnt=$(mktemp -d /tmp/ftracetest-mnt.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	if grep -q " $mnt " /proc/mounts; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
	fi
	rmdir "$mnt" 2>/dev/null || true
}
trap cleanup EXIT

# wait_until WHAT CMD...: poll CMD until it succeeds; a generous bound ends only a run that
# already failed.
wait_until() {
	local what=$1 i
	shift
	for ((i = 0; i < 3000; i++)); do
		"$@" && return 0
		sleep 0.02
	done
	echo "FAIL: $what did not happen in a minute" >&2
	exit 1
}

: >"$T/target.out"
# Its sched_process_fork and _exit: the processes of this script ($$), ftracetest among them.
"$T/ft_target" $$ >"$T/target.out" 2>"$T/target.err" &
target=$!
pids+=($target)
wait_until "ft_target's ready line" grep -q '^ready ' "$T/target.out"

"$B/tools/trev/trev" mount -p "$target" "$mnt" 2>"$T/mount.err" &
mount_pid=$!
pids+=($mount_pid)
mounted() { grep -q " $mnt fuse.trev " /proc/mounts; }
mounted_or_gone() { mounted || ! kill -0 "$mount_pid" 2>/dev/null; }
wait_until "trev mount at $mnt" mounted_or_gone
if ! mounted; then
	grep -q 'FUSE is not available' "$T/mount.err" && skip "$(cat "$T/mount.err")"
	echo "FAIL: trev mount: $(cat "$T/mount.err")" >&2
	exit 1
fi

logs=$W/logs
rm -rf "$logs"
mkdir -p "$logs"
cases=()
for c in "${only[@]}"; do
	[ -f "$SUITE/test.d/$c" ] || { echo "no such case: $c" >&2; exit 2; }
	cases+=("$SUITE/test.d/$c")
done
start=$(date +%s)
# The shell in the namespace: its own mounts only. ftracetest takes the first tracefs of
# /proc/mounts (the kernel's, at /sys/kernel/tracing), and the path leads to the top mount,
# ours; that is checked before it runs.
unshare -m --propagation private -- bash "$FT/in_namespace.sh" "$mnt" "$SUITE" "$logs" \
	"${cases[@]}" >"$W/ftracetest.out" 2>&1 || true
end=$(date +%s)
cleanup
trap - EXIT

grep -q '^=== Ftrace unit tests ===' "$W/ftracetest.out" || {
	echo "FAIL: ftracetest did not run:" >&2
	cat "$W/ftracetest.out" >&2
	exit 1
}

# ---- results ---------------------------------------------------------------------------------
# The target's complaints (no process events connector ...) explain results.
[ ! -s "$T/target.err" ] || { echo "ft_target said:"; cat "$T/target.err"; }
results=$W/results.txt
python3 "$FT/results.py" "$logs" "$SUITE/test.d" "$FT/classes.txt" "$results" \
	"$((end - start))" | tee "$W/summary.txt"

if [ ${#only[@]} -gt 0 ]; then
	exit 0
fi
if [ $update -eq 1 ]; then
	{
		echo "# Expected results of tests/ftracetest/ftracetest.sh: ftracetest's result of each"
		echo "# case on trev's tree (a case flagged instance runs twice: top, then an instance)."
		echo "# Regenerate with: tests/ftracetest/ftracetest.sh --update (or make ftracetest-update)"
		cat "$results"
	} >"$FT/expected.txt"
	echo "expected.txt updated"
	exit 0
fi
if ! diff -u <(grep -v '^#' "$FT/expected.txt") "$results"; then
	echo "FAIL: results differ from tests/ftracetest/expected.txt (- expected, + now);"
	echo "      if the change is an improvement, record it: tests/ftracetest/ftracetest.sh --update"
	exit 1
fi
if grep -q '^not passing, unclassified' "$W/summary.txt"; then
	echo "FAIL: a case that does not pass has no class: add it to tests/ftracetest/classes.txt"
	exit 1
fi
echo "PASS: every case as expected.txt records"
