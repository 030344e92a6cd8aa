#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# USDT with jump labels (docs/jump-labels.md, "The two trade-offs"): jl_usdt_app's notes name
# no semaphore, and bpftrace attached to its jl_tick probe sees exactly the calls made while
# trev has the event enabled (10 11 12), not those before or after (0-2, 20-22), which are
# also the calls trev records. Skips (77) where bpftrace cannot: not root, no bpftrace, no
# BPF or uprobes in this kernel.
set -uo pipefail
export LC_ALL=C

app="$TREV_BUILD_DIR/tests/jl_usdt_app"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	for f in "$T"/out "$T"/err; do
		[ -f "$f" ] && { echo "---- $f:" >&2; cat "$f" >&2; }
	done
	exit 1
}
skip() { echo "SKIP: $*"; exit 77; }

[ "$(uname -m)" = x86_64 ] || skip "USDT notes are emitted on x86-64 only"

# The note: provider jl_test, name jl_tick, semaphore 0.
readelf -nW "$app" >"$T/notes" || fail "readelf -n failed"
grep -A3 'Provider: jl_test' "$T/notes" | grep >/dev/null 'Name: jl_tick' || fail "no jl_test:jl_tick note"
grep -A3 'Name: jl_tick' "$T/notes" | grep >/dev/null 'Semaphore: 0x0*$' ||
	fail "the jl_tick note names a semaphore: $(grep -A3 'Name: jl_tick' "$T/notes")"

[ "$(id -u)" -eq 0 ] || skip "bpftrace needs root"
command -v bpftrace >/dev/null || skip "no bpftrace (Debian: bpftrace)"
ulimit -l unlimited 2>/dev/null
bpftrace -e 'BEGIN { printf("bpf-ok\n"); exit(); }' >"$T/out" 2>"$T/err"
grep -qx 'bpf-ok' "$T/out" || skip "bpftrace cannot load a BPF program here: $(grep -v RLIMIT "$T/err" | head -1)"

prog='usdt:APP:jl_test:jl_tick /pid == cpid/ { printf("usdt %ld\n", arg0); }'
if ! TREV_SOCKET=0 bpftrace -e "${prog//APP/$app}" -c "$app" >"$T/out" 2>"$T/err"; then
	grep -qiE 'attach.*(Permission|not permitted|not supported)|uprobe.*(Permission|not permitted|not supported)' "$T/err" &&
		skip "bpftrace cannot attach uprobes here: $(grep -v RLIMIT "$T/err" | head -1)"
	fail "bpftrace -c jl_usdt_app failed"
fi
grep -qx 'jl_usdt_app: done' "$T/out" || fail "jl_usdt_app did not finish"
got=$(grep '^usdt ' "$T/out" | tr '\n' ' ')
[ "$got" = "usdt 10 usdt 11 usdt 12 " ] || fail "bpftrace saw '$got', want the three calls while enabled"
got=$(grep '^record ' "$T/out" | tr '\n' ' ')
[ "$got" = "record 10 record 11 record 12 " ] || fail "trev recorded '$got'"
echo "usdt_jump_label: bpftrace saw the 3 calls made while trev had the event on, and no other"
