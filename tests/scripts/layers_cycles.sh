#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# layers.sh's own checks on small trees of its own (docs/architecture.md,
# "Folders inside a layer"): an include between two folders of one layer
# against their ranks fails, naming it; a cycle between folders fails,
# naming the folders and an include of each edge, whatever the layers; a
# tree whose folders include only down passes.
set -uo pipefail
export LC_ALL=C

src_dir=${TREV_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# mk TREE FILE INCLUDE...: src/FILE of TREE including each "INCLUDE".
mk() {
	local tree=$1 file=$2 inc
	shift 2
	mkdir -p "$tmp/$tree/src/$(dirname "$file")"
	for inc in "$@"; do
		echo "#include \"$inc\""
	done >"$tmp/$tree/src/$file"
}

check() {
	local what=$1 tree=$2 want_rc=$3 out rc
	shift 3
	out=$(bash "$src_dir/tests/scripts/layers.sh" "$tmp/$tree" 2>&1)
	rc=$?
	if [ "$rc" != "$want_rc" ]; then
		echo "FAIL: $what: exit $rc, not $want_rc:"
		echo "$out"
		fail=1
		return
	fi
	for line in "$@"; do
		if ! grep -qF -- "$line" <<<"$out"; then
			echo "FAIL: $what: no line \"$line\" in:"
			echo "$out"
			fail=1
		fi
	done
}

# Down only: write (rank 2) includes output (1) and events (layer 2).
mk down output/a.c output/a.h events/e.h
mk down write/b.c output/a.h events/e.h write/b.h
mk down events/e.c events/e.h
check "includes that go down" down 0 "layers: ok"

# output (rank 1) includes write (rank 2) of its layer, and write includes output.
mk circle output/a.c write/b.h
mk circle write/b.c output/a.h
check "a circle in a layer" circle 1 \
	"UP: output/a.c -> write/b.h (layer 3: output (rank 1) includes write (rank 2))" \
	"output -> write: output/a.c -> write/b.h" \
	"write -> output: write/b.c -> output/a.h" \
	"FAIL: a lower layer or rank reaches a higher one, or folders form a cycle."
grep -q "^CYCLE between folders: \(output write\|write output\)$" <<<"$(bash \
	"$src_dir/tests/scripts/layers.sh" "$tmp/circle" 2>&1)" ||
	{ echo "FAIL: the circle's folders are not named"; fail=1; }

# A cycle through three folders of three layers: base -> events -> ftrace -> base.
mk three base/x.c events/e.h
mk three events/e.c ftrace/f.h
mk three ftrace/f.c base/x.h
out=$(bash "$src_dir/tests/scripts/layers.sh" "$tmp/three" 2>&1)
if ! grep -qE '^CYCLE between folders: ' <<<"$out" ||
   [ "$(grep -E '^CYCLE between folders: ' <<<"$out" | tr ' ' '\n' | grep -cE '^(base|events|ftrace)$')" != 3 ]; then
	echo "FAIL: the cycle of base, events and ftrace is not named:"
	echo "$out"
	fail=1
fi

# A folder without a layer or a rank.
mk nolayer newdir/n.c
check "a folder without a layer" nolayer 1 "src/newdir has no layer" "src/newdir has no rank"

[ "$fail" = 0 ] && echo "layers_cycles: ok"
exit "$fail"
