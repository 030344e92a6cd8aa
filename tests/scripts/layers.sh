#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The layers of src/ (docs/architecture.md): a file may include and call only
# its own layer and the ones below. Checks every '#include "DIR/..."' of
# src/, and every symbol an object file of the library uses against the
# object that defines it (nm), so that a call declared in a header of the
# caller's own layer is caught too. Fails naming each include or call that
# goes up, unless it is one of the exceptions listed below with its reason.
#
#   layers.sh [SOURCE_DIR [BUILD_DIR]]   (ctest: $TREV_SOURCE_DIR, $TREV_BUILD_DIR;
#                                         with no build directory, includes only)
set -uo pipefail
export LC_ALL=C

src=${1:-${TREV_SOURCE_DIR:?usage: layers.sh SOURCE_DIR [BUILD_DIR]}}/src
build=${2:-${TREV_BUILD_DIR:-}}

# Directory of src/ -> layer, lowest first.
declare -A layer=(
	[base]=0
	[ring_buffer]=1 [patch]=1 [sym]=1
	[tracepoint]=2 [events]=2
	[filter]=3 [ftrace]=3 [trigger]=3 [output]=3 [tracedat]=3 [write]=3
	[tracefs]=4
	[frontend]=5 [control]=5
)
names=(base "ring buffer, text patcher, symbols" "tracepoint, events, instances" "write path, filter, trigger, output, trace.dat"
       tracefs "frontends: C API, environment, socket, FUSE")

# Known calls up, each until its fix lands: "FROM_FILE -> TO_FILE SYMBOL" or
# "FROM_FILE -> TO_DIR/HEADER" (paths below src/).
exceptions=(
	# none: every include and call goes down or stays in its layer
)

is_exception() {
	local e
	for e in "${exceptions[@]}"; do
		[ "$e" = "$1" ] && return 0
	done
	return 1
}

bad=0
up() {
	if is_exception "$1"; then
		echo "known: $1"
	else
		echo "UP: $1 ($2)"
		bad=1
	fi
}

# Every directory of src/ has a layer.
for d in "$src"/*/; do
	d=$(basename "$d")
	[ -n "${layer[$d]+x}" ] || { echo "src/$d has no layer: add it to $0"; bad=1; }
done

# Includes.
while IFS=: read -r file inc; do
	from=${file#"$src"/}
	fdir=${from%%/*}
	tdir=${inc%%/*}
	[ -n "${layer[$tdir]+x}" ] || continue	# not a directory of src/
	[ -n "${layer[$fdir]+x}" ] || continue
	if [ "${layer[$tdir]}" -gt "${layer[$fdir]}" ]; then
		up "$from -> $inc" "layer ${layer[$fdir]} includes layer ${layer[$tdir]}"
	fi
done < <(grep -rHoE '^#include "[a-z_]+/[^"]+"' "$src" --include='*.[ch]' |
	 sed -E 's/:#include "/:/; s/"$//')

# Calls (and data): who uses a symbol another object of the library defines.
# The library's objects come from two targets (the top CMakeLists.txt):
# trev_common_objects (the code the trev command shares) and trev_objects.
if [ -n "$build" ]; then
	objdirs=("$build/CMakeFiles/trev_common_objects.dir/src" "$build/CMakeFiles/trev_objects.dir/src")
	for d in "${objdirs[@]}"; do
		[ -d "$d" ] || { echo "no object files in $d"; exit 1; }
	done
	defs=$(mktemp)
	objs=$(mktemp)
	trap 'rm -f "$defs" "$objs"' EXIT
	# "SOURCE OBJECT", one object per source: trev_common_objects' first, so that
	# an object left in trev_objects from before a file went to trev_common is not read.
	for d in "${objdirs[@]}"; do
		for o in $(find "$d" -name '*.o' | sort); do
			rel=${o#"$d"/}
			[ -f "$src/${rel%.o}" ] || continue	# a stale object of a moved file
			echo "${rel%.o} $o"
		done
	done | awk '!seen[$1]++' >"$objs"
	while read -r rel o; do
		nm --defined-only "$o" | awk -v f="$rel" '$2 ~ /^[TDBRVW]$/ { print $3, f }'
	done <"$objs" | sort -u >"$defs"
	while read -r rel o; do
		nm -u "$o" | awk -v f="$rel" '{ print $2, f }'
	done <"$objs" | sort | join - "$defs" | while read -r sym from to; do
		fdir=${from%%/*}
		tdir=${to%%/*}
		if [ "${layer[$tdir]:-0}" -gt "${layer[$fdir]:-0}" ]; then
			echo "$from -> $to $sym"
		fi
	done >"$defs.up"
	while read -r from _ to sym; do
		up "$from -> $to $sym" "layer ${layer[${from%%/*}]:-?} calls layer ${layer[${to%%/*}]:-?}"
	done <"$defs.up"
	rm -f "$defs.up"
fi

if [ "$bad" != 0 ]; then
	echo "FAIL: a lower layer reaches a higher one. The layers, lowest first:"
	for i in "${!names[@]}"; do echo "  $i ${names[$i]}"; done
	exit 1
fi
echo "layers: ok"
