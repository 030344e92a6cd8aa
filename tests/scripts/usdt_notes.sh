#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The SystemTap SDT notes of usdt_app (tests/usdt/, docs/usdt.md), as readelf -n shows them:
# one note per event (each is called at one place), provider = TRACE_SYSTEM, name = the
# event, one argument per TP_PROTO argument with its sign, and a semaphore that is the
# upper half of the tracepoint's key word (__tracepoint_<name> + 18), in section .probes.
# Then trev list --usdt: the same notes as readelf, and its errors on broken ones.
set -uo pipefail
export LC_ALL=C

app="$TREV_BUILD_DIR/tests/usdt_app"
trev="$TREV_BUILD_DIR/tools/trev/trev"
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
	printf '%s\n' "$args" | tr ' ' '\n' | grep >/dev/null -vE '^-?8@%[a-z0-9]+$' &&
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

# trev list --usdt reads the same notes.
"$trev" list --usdt "$app" >"$T/list" 2>"$T/err" || fail "trev list --usdt failed: $(cat "$T/err")"
while read -r p n loc sem args; do
	printf '%s:%s pc=%#x semaphore=%#x args=%s\n' "$p" "$n" $((loc)) $((sem)) "$args"
done <"$T/notes" >"$T/want"
diff -u "$T/want" "$T/list" >&2 || fail "trev list --usdt differs from readelf -n"

# Its errors: each one line, exit status 1.
list_err() {	# FILE STATUS REGEX
	"$trev" list --usdt "$1" >"$T/out" 2>"$T/err"
	local st=$?
	[ "$st" -eq "$2" ] || fail "trev list --usdt $1 exited $st, expected $2 ($(cat "$T/err"))"
	[ ! -s "$T/out" ] || fail "trev list --usdt $1 printed: $(cat "$T/out")"
	grep -qE "$3" "$T/err" || fail "trev list --usdt $1: stderr is '$(cat "$T/err")', not /$3/"
}
objcopy --dump-section .note.stapsdt="$T/note.bin" "$app" "$T/copy" ||
	fail "objcopy cannot extract .note.stapsdt"
# An argument of size 3 (in the first note, whichever event it is).
python3 - "$T/note.bin" "$T/bad_size.bin" "$T/bad_len.bin" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
namesz, descsz, typ = struct.unpack_from('<III', d, 0)
args = 12 + 8 + 24
for _ in range(2):
	args = d.index(b'\0', args) + 1
at = d.index(b'@', args) - 1
d[at] = ord('3')
open(sys.argv[2], 'wb').write(d)
d = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<I', d, 4, 0x100000)
open(sys.argv[3], 'wb').write(d)
PY
[ -s "$T/bad_len.bin" ] || fail "python3 could not make the broken notes"
objcopy --update-section .note.stapsdt="$T/bad_size.bin" "$app" "$T/bad_size" ||
	fail "objcopy --update-section failed"
objcopy --update-section .note.stapsdt="$T/bad_len.bin" "$app" "$T/bad_len" ||
	fail "objcopy --update-section failed"
list_err "$T/bad_size" 1 "^trev: list: $T/bad_size: the stapsdt note at offset 0 of \.note\.stapsdt is broken: an argument's size is not 1, 2, 4 or 8 \(with or without -\)\$"
list_err "$T/bad_len" 1 "^trev: list: $T/bad_len: the note at offset 0 of \.note\.stapsdt is broken: its sizes go past the section\$"
list_err "$TREV_BUILD_DIR/tools/trev/trev" 1 "^trev: list: .*/trev: no USDT probes \(no \.note\.stapsdt section\)\$"
list_err "$T/nosuch" 1 "^trev: list: $T/nosuch: No such file or directory\$"
list_err "$T/note.bin" 1 "^trev: list: $T/note.bin: not an ELF file\$"

echo "usdt_notes: ${#expect[@]} notes checked, with readelf and trev list --usdt"
