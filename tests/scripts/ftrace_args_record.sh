#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Arguments and return values in trace.dat (docs/function-tracer.md, "Arguments and return
# values"): `trev record` of tests/ftrace/ft_app with func-args (function) and funcgraph-args
# (function_graph) set by TREV_WRITE at start-up, then `trace-cmd report` of each file:
#   - it parses every record (no error, no "FAILED TO PARSE"), names the functions;
#   - the records that carry args[] are 72 bytes (24 + the six registers), the others 24,
#     and the six registers of ft_mix(1, 1, 1, 1, 1, 1) are in the file;
#   - funcgraph_exit's retval field is each function's return value (ft_mix: 56 = 0x38,
#     ft_add(i, 1): i + 1, ft_spin(0): 0x5a5a), read with -R;
#   - `trev report` of the function_graph file prints each call with its arguments.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# report FILE: trace-cmd report's text, and no error.
report() {
	trace-cmd report "$@" >"$T/out" 2>"$T/err" || fail "trace-cmd report $* failed"
	[ ! -s "$T/err" ] || fail "trace-cmd report $* printed errors: $(cat "$T/err")"
	! grep -q "FAILED TO PARSE" "$T/out" || fail "trace-cmd could not parse: $(head "$T/out")"
}

# ft_mix's six argument registers (1, 1, 1, 1, 1, 1) as 48 bytes of FILE.
has_six_ones() {
	python3 -c 'import struct, sys
sys.exit(0 if struct.pack("<6Q", 1, 1, 1, 1, 1, 1) in open(sys.argv[1], "rb").read() else 1)' "$1"
}

# function with func-args: ft_add's and ft_mix's records carry args[].
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_mix ft_add;options/func-args=1' \
	"$trev" record -t function -o "$T/f.dat" -- "$B/tests/ft_app") >"$T/rec" 2>&1 ||
	fail "trev record -t function: $(cat "$T/rec")"
report --debug -i "$T/f.dat"
# "function:   ft_mix [cpu:offset:size]": the record's size.
got=$(sed -nE 's/.* function: +(ft_[a-z]+) \[[0-9]+:0x[0-9a-f]+:([0-9]+)\]$/\1 \2/p' "$T/out")
want='ft_add 72
ft_add 72
ft_add 72
ft_mix 72'
[ "$got" = "$want" ] || fail "function records with args:
$got
want:
$want
$(cat "$T/out")"
has_six_ones "$T/f.dat" || fail "ft_mix's arguments are not in f.dat"
report -R -i "$T/f.dat"
grep -q 'ip=ft_mix parent_ip=main args=' "$T/out" || fail "no ft_mix record with args: $(cat "$T/out")"

# Without the option: 24 bytes, the kernel's record without args.
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_mix' \
	"$trev" record -t function -o "$T/n.dat" -- "$B/tests/ft_app") >"$T/rec" 2>&1 ||
	fail "trev record -t function (no args): $(cat "$T/rec")"
report --debug -i "$T/n.dat"
grep -qE ' function: +ft_mix \[[0-9]+:0x[0-9a-f]+:24\]$' "$T/out" ||
	fail "ft_mix's record without args is not 24 bytes: $(cat "$T/out")"

# function_graph with funcgraph-args: entries of 72 bytes, exits with retval.
(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_*;options/funcgraph-args=1' \
	"$trev" record -t function_graph -o "$T/g.dat" -- "$B/tests/ft_app") >"$T/rec" 2>&1 ||
	fail "trev record -t function_graph: $(cat "$T/rec")"
report --debug -i "$T/g.dat"
sizes=$(sed -nE 's/.* funcgraph_entry: .*\[[0-9]+:0x[0-9a-f]+:([0-9]+)\]$/\1/p' "$T/out" | sort -u)
[ "$sizes" = 72 ] || fail "funcgraph_entry sizes: $sizes: $(cat "$T/out")"
has_six_ones "$T/g.dat" || fail "ft_mix's arguments are not in g.dat"
report -R -i "$T/g.dat"
got=$(sed -nE 's/.* funcgraph_exit: +func=(ft_[a-z]+) retval=([0-9a-f]+) depth=.*/\1 \2/p' "$T/out")
want='ft_add 1
ft_outer 2
ft_add 2
ft_outer 4
ft_add 3
ft_outer 6
ft_mix 38'
[ "$(printf '%s\n' "$got" | head -7)" = "$want" ] ||
	fail "funcgraph_exit retval:
$got
$(cat "$T/out")"
printf '%s\n' "$got" | grep >/dev/null -x 'ft_spin 5a5a' || fail "ft_spin's retval: $got"
# trev report prints the graph with the arguments, as the process's own text does.
"$trev" report "$T/g.dat" >"$T/trev.out" 2>"$T/err" || fail "trev report g.dat: $(cat "$T/err")"
grep -qE '\|  ft_mix\(0x1, 0x1, 0x1, 0x1, 0x1, 0x1\);$' "$T/trev.out" ||
	fail "trev report: no ft_mix(0x1, ...): $(cat "$T/trev.out")"
grep -qE '\|    ft_add\(0x2, 0x1, ' "$T/trev.out" ||
	fail "trev report: no ft_add(0x2, 0x1, ...): $(cat "$T/trev.out")"
echo "ok"
