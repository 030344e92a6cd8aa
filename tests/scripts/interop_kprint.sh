#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trace-cmd report on a `trev record` of the kprint events (tests/events/kprint_events.h):
#   - kp_state's __print_symbolic over TRACE_DEFINE_ENUM names and its sizeof(struct kp_req)
#     (TRACE_DEFINE_SIZEOF) print as trev's own `trace` text prints them, except where
#     libtraceevent 1.7.1 itself differs from the kernel (a negative int: docs/events.md);
#   - kp_ptrs' %pI4 %pI6c %pM %pU print as trev's; %pS/%ps name the function, as the
#     file's kallsyms holds the values of the fields print fmts print that way (%pS
#     without the kernel's "/size": kallsyms has no sizes), and %*pb/%*pbl print the
#     array's value followed by the letters (libtraceevent 1.7.1 does not know them).
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
app=$B/tests/kprint_app
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The text after "EVENT:" of each line of an event, one space-separated run squeezed.
after() {	# after EVENT FILE
	sed -nE "s/.* $1: +//p" "$2"
}

TREV_SOCKET=0 TREV_EVENTS='kprint:*' TREV_OUTPUT=stdout "$app" >"$T/trace"
(cd "$T" && "$B/tools/trev/trev" record -e 'kprint:*' -o "$T/k.dat" -- "$app") 2>"$T/rec.err" ||
	fail "trev record: $(cat "$T/rec.err")"
trace-cmd report -i "$T/k.dat" >"$T/report" 2>"$T/report.err" || fail "trace-cmd report failed"
[ ! -s "$T/report.err" ] || fail "trace-cmd report printed errors: $(cat "$T/report.err")"
grep -q "FAILED TO PARSE" "$T/report" && fail "trace-cmd could not parse: $(grep FAILED "$T/report")"

after kp_state "$T/trace" >"$T/want"
after kp_state "$T/report" >"$T/got"
[ "$(wc -l <"$T/want")" -eq 5 ] || fail "trace text has $(wc -l <"$T/want") kp_state lines, not 5"
# The one documented difference: KP_NEGATIVE (-3) in an int field.
grep -qx "KP_IDLE state=0xfffffffffffffffd reqs=10 busy=0 neg=1" "$T/want" || fail "trace: negative line"
sed -i 's/^KP_IDLE state=0xfffffffffffffffd reqs=10 busy=0 neg=1$/KP_IDLE state=0xfffffffd reqs=10 busy=0 neg=0/' "$T/want"
diff -u "$T/want" "$T/got" >&2 || fail "trace-cmd report's kp_state differs from the trace text"

want=$(after kp_ptrs "$T/trace")
got=$(after kp_ptrs "$T/report")
[[ $want =~ ^S=kprint_target\+0x0/0x[0-9a-f]+\ s=kprint_target\ (ip4=.*uuid=[-0-9a-f]+)\ bits=80f\ list=0-3,11$ ]] ||
	fail "trace text of kp_ptrs: $want"
same=${BASH_REMATCH[1]}
[[ $got =~ ^S=kprint_target\+0x0\ s=kprint_target\ (ip4=.*uuid=[-0-9a-f]+)\ bits=0x80fb\ list=0x80fbl$ ]] ||
	fail "trace-cmd report of kp_ptrs: $got"
[ "${BASH_REMATCH[1]}" = "$same" ] || fail "addresses differ: '${BASH_REMATCH[1]}' vs '$same'"
echo "PASS"
