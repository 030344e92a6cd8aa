#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The SystemTap SDT notes of usdt_app (tests/usdt/, docs/usdt.md), as readelf -n shows them:
# one note per event (each is called at one place), provider = TRACE_SYSTEM, name = the
# event, one argument per TP_PROTO argument with its sign, and a semaphore that is the
# upper half of the tracepoint's key word (__tracepoint_<name> + 18), in section .probes.
set -uo pipefail
export LC_ALL=C

app="$TREV_BUILD_DIR/tests/usdt_app"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	echo "---- notes:" >&2
	cat "$T/notes" >&2
	exit 1
}

case "$(uname -m)" in
x86_64) ;;
*)	echo "SKIP: USDT notes are emitted on x86-64 only (docs/usdt.md)"; exit 77 ;;
esac
command -v readelf >/dev/null || { echo "SKIP: no readelf (binutils)"; exit 77; }

readelf -nW "$app" >"$T/readelf" || fail "readelf -n $app failed"
# One line per note: provider name location semaphore args...
awk '
	/Provider: / { p = $0; sub(/.*Provider: /, "", p) }
	/^ *Name: / { n = $2 }
	/^ *Location: / { loc = $2; sem = $6; sub(/,$/, "", loc) }
	/^ *Arguments: / { $1 = ""; print p, n, loc, sem $0 }
' "$T/readelf" >"$T/notes"

# Probes, and the sign of each argument: -8 signed, 8 unsigned or a pointer (or a struct,
# passed as 0).
expect=(
	"usdt_ints -8 8 -8 8 8 -8"
	"usdt_str 8 -8"
	"usdt_pair 8 -8"
	"usdt_cxx -8 8 8 8"
)
[ "$(wc -l <"$T/notes")" -eq ${#expect[@]} ] ||
	fail "expected ${#expect[@]} notes, found $(wc -l <"$T/notes")"

probes_start=$(readelf -SW "$app" | awk '$2 == ".probes" { print "0x" $4 }')
probes_size=$(readelf -SW "$app" | awk '$2 == ".probes" { print "0x" $6 }')
[ -n "$probes_start" ] || fail "no section .probes"

for e in "${expect[@]}"; do
	read -r name sizes <<<"$e"
	line=$(awk -v n="$name" '$1 == "usdt_test" && $2 == n' "$T/notes")
	[ "$(printf '%s\n' "$line" | grep -c .)" -eq 1 ] || fail "not one note usdt_test:$name"
	read -r _ _ loc sem args <<<"$line"
	got=$(printf '%s\n' "$args" | tr ' ' '\n' | sed 's/@.*//' | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$sizes" ] || fail "usdt_test:$name: argument sizes '$got', expected '$sizes'"
	# Each argument is a register (no immediates, no memory operands: docs/usdt.md).
	printf '%s\n' "$args" | tr ' ' '\n' | grep -qvE '^-?8@%[a-z0-9]+$' &&
		fail "usdt_test:$name: an argument is not a register: $args"
	tp=$(nm "$app" | awk -v s="__tracepoint_$name" '$3 == s { print "0x" $1 }')
	[ -n "$tp" ] || fail "no symbol __tracepoint_$name"
	[ $((sem)) -eq $((tp + 18)) ] ||
		fail "usdt_test:$name: semaphore $sem is not __tracepoint_$name ($tp) + 18"
	[ $((sem)) -ge $((probes_start)) ] && [ $((sem)) -lt $((probes_start + probes_size)) ] ||
		fail "usdt_test:$name: semaphore $sem is not in .probes"
	# The probe is a nop, in the code.
	insn=$(objdump -d --no-show-raw-insn --start-address=$((loc)) --stop-address=$((loc + 1)) "$app" |
		awk -F'\t' '/^ *[0-9a-f]+:/ { print $2 }')
	[ "$insn" = "nop" ] || fail "usdt_test:$name: the instruction at $loc is '$insn', not nop"
done
echo "usdt_notes: ${#expect[@]} notes checked"
