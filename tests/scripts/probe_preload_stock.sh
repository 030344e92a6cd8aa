#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record --probe on a stock binary (docs/probes.md, "Programs that do not link trev"):
# pp_stock, built with plain flags and not linked with trev, opens the files it is given;
# a probe on libc's open() with path=+0(%di):string records each call, under the program's
# pid, with the path it passed, in trev report and trace-cmd report.
#
# A function without a patchable entry is probed on a probe site (src/patch/probe_site.c).
# A libtrev without them refuses the definition ("Invalid probed address or symbol" under
# the target): then this test says so and is skipped (77). Any other outcome is a failure.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

def='p:libc/open open path=+0(%di):string'
f1="$T/first file"
f2="$T/second"
: >"$f1"
: >"$f2"
"$trev" record --probe "$def" -o "$T/stock.dat" -- "$B/tests/pp_stock" "$f1" "$f2" \
	>"$out" 2>"$errf"
st=$?
if [ "$st" = 1 ] && grep -qE '^\[ *[0-9.]+\] trace_uprobe: error: Invalid probed address or symbol$' "$errf" &&
	grep -qxF "  Command: $def" "$errf"; then
	[ -e "$T/stock.dat" ] && fail "refused, yet a file was written"
	grep -q '^open' "$out" && fail "refused, yet the program ran"
	echo "SKIP: this libtrev refuses a probe on libc's open(), a function without a" \
		"patchable entry (no probe sites in its event layer):"
	cat "$errf"
	exit 77
fi
[ "$st" = 0 ] || fail "trev record exited $st"
pid=$(awk '/^open/ { print $2; exit }' "$out")
grep -qE "^open $pid $f1 [0-9]+\$" "$out" && grep -qE "^open $pid $f2 [0-9]+\$" "$out" ||
	fail "pp_stock did not open both files"
want=$(printf '%s path="%s"\n' "$pid" "$f1" "$pid" "$f2")
for reader in trev trace-cmd; do
	if [ "$reader" = trev ]; then
		"$trev" report "$T/stock.dat" 2>/dev/null
	else
		trace-cmd report -i "$T/stock.dat" 2>/dev/null
	fi | grep -E ' open: ' | grep -F "$T/" |
		sed -E 's/^.*-([0-9]+) +\[[0-9]+\].* open: +\([0-9a-f]+\) (path=".*")$/\1 \2/' \
		>"$T/got"
	[ "$(cat "$T/got")" = "$want" ] || fail "$reader: the open() hits of the test's files are
$(cat "$T/got")
not
$want"
done
echo "ok"
