#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# perf sees usdt_app's events (tests/usdt/, docs/usdt.md): perf probe adds the SDT events
# sdt_usdt_test:*, perf record runs the program under them while trev records the same
# events into its own trace, and perf script prints every argument value the program
# passed. Skips (77) where perf cannot: not root, no perf, no tracefs, no uprobes.
set -uo pipefail
export LC_ALL=C

app="$TREV_BUILD_DIR/tests/usdt_app"
T=$(mktemp -d)
tracing=/sys/kernel/tracing
# perf keeps its build-id cache in $HOME/.debug: a private one, so that neither this
# run nor root's cache sees the other's binaries.
mkdir -p "$T/home"
export HOME=$T/home
probes_added=

cleanup() {
	[ -n "$probes_added" ] && perf probe -q -d 'sdt_usdt_test:*' 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	for f in "$T"/out "$T"/err "$T"/script "$T"/trace; do
		[ -f "$f" ] && { echo "---- $f:" >&2; cat "$f" >&2; }
	done
	exit 1
}
skip() { echo "SKIP: $*"; exit 77; }

[ "$(uname -m)" = x86_64 ] || skip "USDT notes are emitted on x86-64 only"
[ "$(id -u)" -eq 0 ] || skip "perf probe needs root (uprobe_events)"
command -v perf >/dev/null && perf version >/dev/null 2>&1 || skip "no perf (Debian: linux-perf)"
if [ ! -e "$tracing/uprobe_events" ] && ! grep -q " $tracing tracefs " /proc/mounts; then
	mount -t tracefs nodev "$tracing" 2>/dev/null || skip "tracefs is not mounted at $tracing and cannot be"
fi
[ -e "$tracing/uprobe_events" ] || skip "no $tracing/uprobe_events (kernel without CONFIG_UPROBE_EVENTS)"

# The probes' names are the kernel's, one set for the machine: another run of this test
# (another build tree) waits until this one is done, and the other way round.
exec 9>/tmp/trev-test-kernel-tracing.lock
flock 9
# A probe left by an earlier run that died would make perf probe -a refuse.
perf probe -q -d 'sdt_usdt_test:*' >/dev/null 2>&1
perf buildid-cache --add "$app" >"$T/out" 2>"$T/err" || fail "perf buildid-cache --add failed"
perf list sdt >"$T/out" 2>"$T/err"
for e in usdt_ints usdt_str usdt_pair usdt_cxx; do
	grep -qE "sdt_usdt_test:$e[ @].*SDT event" "$T/out" || fail "perf list sdt has no sdt_usdt_test:$e"
done
probes_added=1
for e in usdt_ints usdt_str usdt_pair usdt_cxx; do
	if ! perf probe -q -x "$app" -a "sdt_usdt_test:$e" >"$T/out" 2>"$T/err"; then
		# What the machine refuses (a container's tracefs, a kernel without
		# uprobes) skips; anything else about the probe fails.
		grep -qiE 'uprobe|not supported|Permission|not permitted|Read-only|tracefs|debugfs' "$T/err" &&
			skip "perf probe cannot add uprobes here: $(head -1 "$T/err")"
		fail "perf probe -a sdt_usdt_test:$e failed"
	fi
done
# Each probe carries the semaphore: (0x...) after the address.
grep -qE "^p:sdt_usdt_test/usdt_ints .*:0x[0-9a-f]+\(0x[0-9a-f]+\) arg1=" "$tracing/uprobe_events" ||
	fail "the uprobe of usdt_ints has no reference counter: $(grep usdt_ints "$tracing/uprobe_events")"

# trev records the same events at the same time: the two halves of the key are independent.
TREV_EVENTS='usdt_test:*' TREV_OUTPUT="$T/trace" \
	perf record -q -o "$T/perf.data" -e 'sdt_usdt_test:*' -- "$app" >"$T/out" 2>"$T/err" || {
	grep -qiE 'perf_event_open|Permission|not permitted|not supported' "$T/err" &&
		skip "perf record cannot open the events here: $(head -1 "$T/err")"
	fail "perf record failed"
}
grep -qx 'usdt_app: done' "$T/out" || fail "usdt_app did not finish"
perf script -i "$T/perf.data" -F event,trace >"$T/script" 2>"$T/err" || fail "perf script failed"

# perf script: "sdt_usdt_test:usdt_ints: (ADDR) arg1=-5 ...", the address dropped.
sed -E 's/^ *([a-z_:]+): +\([0-9a-f]+\) /\1 /' "$T/script" >"$T/got"
want=$T/want
: >"$want"
umax=(18446744073709551615 18446744073709551614 18446744073709551613)
u64=(9223372036854775808 9223372036854775809 9223372036854775810)
for i in 0 1 2; do
	echo "sdt_usdt_test:usdt_ints arg1=$((-5 - i)) arg2=$((4000000000 + i)) arg3=$((-1234567890123 - i)) arg4=${umax[i]} arg5=$((200 + i)) arg6=$((-300 - i))" >>"$want"
	echo "sdt_usdt_test:usdt_str arg1=STR arg2=$((42 + i))" >>"$want"
	echo "sdt_usdt_test:usdt_pair arg1=0 arg2=$((7 + i))" >>"$want"
	echo "sdt_usdt_test:usdt_cxx arg1=$((-1000 - i)) arg2=$((i == 1)) arg3=STR arg4=${u64[i]}" >>"$want"
done
# Strings are pointers to perf (docs/usdt.md): only their being non-zero is checked.
sed -E 's/(usdt_str arg1|usdt_cxx .*arg3)=[1-9][0-9]*/\1=STR/' "$T/got" >"$T/got2"
diff -u "$want" "$T/got2" >"$T/diff" || { cat "$T/diff" >&2; fail "perf script printed other values"; }

# trev's own trace of the same run has the same values.
grep -q 'usdt_ints: neg=-7 big=4000000002 lneg=-1234567890125 umax=18446744073709551613 uc=202 s=-302$' "$T/trace" ||
	fail "trev's trace lacks the last usdt_ints"
grep -q 'usdt_cxx: neg=-1001 flag=1 s=cxx-odd u=9223372036854775809$' "$T/trace" ||
	fail "trev's trace lacks the second usdt_cxx"
[ "$(grep -c ': usdt_' "$T/trace")" -eq 12 ] || fail "trev's trace does not have 12 events"
echo "usdt_perf: 12 SDT events with their values, and trev's 12"
