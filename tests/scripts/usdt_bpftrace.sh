#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bpftrace sees usdt_app's events (tests/usdt/, docs/usdt.md): bpftrace -l lists the four
# usdt probes, and a program attached to three of them prints their arguments, strings
# included, with the values the program passed. Skips (77) where bpftrace cannot: not
# root, no bpftrace, no BPF or uprobes in this kernel.
set -uo pipefail
export LC_ALL=C

app="$TREV_BUILD_DIR/tests/usdt_app"
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
[ "$(id -u)" -eq 0 ] || skip "bpftrace needs root"
command -v bpftrace >/dev/null || skip "no bpftrace (Debian: bpftrace)"
# bpftrace says "couldn't set RLIMIT_MEMLOCK" where it may not raise it; the limit is not
# needed on kernels that charge BPF memory to the cgroup, so only a failure counts.
ulimit -l unlimited 2>/dev/null
bpftrace -e 'BEGIN { printf("bpf-ok\n"); exit(); }' >"$T/out" 2>"$T/err"
grep -qx 'bpf-ok' "$T/out" || skip "bpftrace cannot load a BPF program here: $(grep -v RLIMIT "$T/err" | head -1)"

bpftrace -l "usdt:$app:*" >"$T/out" 2>"$T/err" || fail "bpftrace -l failed"
for e in usdt_ints usdt_str usdt_pair usdt_cxx; do
	grep -qx "usdt:$app:usdt_test:$e" "$T/out" || fail "bpftrace -l does not list usdt_test:$e"
done

# Only the child of -c: the probes are on the file, and another test may run it meanwhile.
prog='
usdt:APP:usdt_test:usdt_ints /pid == cpid/ {
	printf("ints %ld %lu %ld %lu %lu %ld\n", arg0, arg1, arg2, arg3, arg4, arg5);
}
usdt:APP:usdt_test:usdt_str /pid == cpid/ { printf("str %s %ld\n", str(arg0), arg1); }
usdt:APP:usdt_test:usdt_cxx /pid == cpid/ { printf("cxx %ld %lu %s %lu\n", arg0, arg1, str(arg2), arg3); }
'
if ! bpftrace -e "${prog//APP/$app}" -c "$app" >"$T/out" 2>"$T/err"; then
	# A kernel that loads BPF but will not attach uprobes (a container) skips; a probe
	# bpftrace cannot find or read fails.
	grep -qiE 'attach.*(Permission|not permitted|not supported)|uprobe.*(Permission|not permitted|not supported)' "$T/err" &&
		skip "bpftrace cannot attach uprobes here: $(grep -v RLIMIT "$T/err" | head -1)"
	fail "bpftrace -c usdt_app failed"
fi
grep -qx 'usdt_app: done' "$T/out" || fail "usdt_app did not finish"
grep -E '^(ints|str|cxx) ' "$T/out" >"$T/got"

umax=(18446744073709551615 18446744073709551614 18446744073709551613)
u64=(9223372036854775808 9223372036854775809 9223372036854775810)
names=(zero one two)
cxx=(cxx-even cxx-odd cxx-odd)
: >"$T/want"
for i in 0 1 2; do
	echo "ints $((-5 - i)) $((4000000000 + i)) $((-1234567890123 - i)) ${umax[i]} $((200 + i)) $((-300 - i))"
	echo "str ${names[i]} $((42 + i))"
	echo "cxx $((-1000 - i)) $((i == 1)) ${cxx[i]} ${u64[i]}"
done >"$T/want"
diff -u "$T/want" "$T/got" >&2 || fail "bpftrace printed other values"
echo "usdt_bpftrace: 9 probes fired with their values"
