#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The layers of src/ (docs/architecture.md): a file may include and call only
# its own layer and the ones below, and inside a layer only its own folder and
# the folders ranked below it. Checks every '#include "DIR/..."' of src/, and
# every symbol an object file of the library uses against the object that
# defines it (nm), so that a call declared in a header of the caller's own
# layer is caught too. Fails naming each include or call that goes up, unless
# it is one of the exceptions listed below with its reason; and fails naming
# each cycle between folders (a file of folder A includes or calls one of B,
# and one of B, through any folders, one of A), ranks or not.
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
	[filter]=3 [ftrace]=3 [probe]=3 [trigger]=3 [output]=3 [tracedat]=3 [write]=3
	[tracefs]=4
	[frontend]=5 [control]=5
)
# Folder -> rank inside its layer, lowest first: a folder includes and calls
# only the folders of its layer with a lower rank (docs/architecture.md).
declare -A rank=(
	[base]=0
	[ring_buffer]=0 [patch]=0 [sym]=0
	[tracepoint]=0 [events]=1
	[filter]=0 [tracedat]=0 [output]=1 [write]=2 [trigger]=3 [ftrace]=4 [probe]=5
	[tracefs]=0
	[control]=0 [frontend]=1
)
# Symbols of libc (and libgcc) the library defines to interpose them
# (docs/function-tracer.md): a call to one is a call to libc, not to the
# folder that defines it.
interposed=" backtrace pthread_exit _Unwind_ForcedUnwind _Unwind_RaiseException
	     _Unwind_Resume_or_Rethrow __cxa_begin_catch "
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

# Every directory of src/ has a layer and a rank.
for d in "$src"/*/; do
	d=$(basename "$d")
	[ -n "${layer[$d]+x}" ] || { echo "src/$d has no layer: add it to $0"; bad=1; }
	[ -n "${rank[$d]+x}" ] || { echo "src/$d has no rank: add it to $0"; bad=1; }
done

# "FROM_DIR TO_DIR how" for each include and call between folders.
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

# Includes.
while IFS=: read -r file inc; do
	from=${file#"$src"/}
	fdir=${from%%/*}
	tdir=${inc%%/*}
	[ -n "${layer[$tdir]+x}" ] || continue	# not a directory of src/
	[ -n "${layer[$fdir]+x}" ] || continue
	if [ "${layer[$tdir]}" -gt "${layer[$fdir]}" ]; then
		up "$from -> $inc" "layer ${layer[$fdir]} includes layer ${layer[$tdir]}"
	elif [ "$tdir" != "$fdir" ] && [ "${layer[$tdir]}" = "${layer[$fdir]}" ] &&
	     [ "${rank[$tdir]}" -ge "${rank[$fdir]}" ]; then
		up "$from -> $inc" "layer ${layer[$fdir]}: $fdir (rank ${rank[$fdir]}) includes $tdir (rank ${rank[$tdir]})"
	fi
	[ "$tdir" != "$fdir" ] && echo "$fdir $tdir $from -> $inc" >>"$edges"
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
	trap 'rm -f "$defs" "$objs" "$edges"' EXIT
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
		[ "$fdir" = "$tdir" ] && continue
		case $interposed in *" $sym "*) continue ;; esac
		echo "$fdir $tdir $from -> $to $sym" >>"$edges"
		if [ "${layer[$tdir]:-0}" -gt "${layer[$fdir]:-0}" ]; then
			echo "$from -> $to $sym layer ${layer[$fdir]:-?} calls layer ${layer[$tdir]:-?}"
		elif [ "${layer[$tdir]:-0}" = "${layer[$fdir]:-0}" ] &&
		     [ "${rank[$tdir]:-0}" -ge "${rank[$fdir]:-0}" ]; then
			echo "$from -> $to $sym layer ${layer[$fdir]:-?}: $fdir (rank ${rank[$fdir]:-?}) calls $tdir (rank ${rank[$tdir]:-?})"
		fi
	done >"$defs.up"
	while read -r from _ to sym why; do
		up "$from -> $to $sym" "$why"
	done <"$defs.up"
	rm -f "$defs.up"
fi

# Cycles between folders: the strongly connected components of the graph of
# folders that the includes and calls above draw, each with its edges.
cycles=$(awk '
	{ if (!(($1, $2) in how)) { adj[$1] = adj[$1] " " $2; how[$1, $2] = $0 }
	  node[$1]; node[$2] }
	function reach(a, b,    seen, stack, n, x, i, k, nb) {
		delete seen; n = 0; stack[++n] = a
		while (n > 0) {
			x = stack[n--]
			k = split(adj[x], nb, " ")
			for (i = 1; i <= k; i++) {
				if (nb[i] == b) return 1
				if (!(nb[i] in seen)) { seen[nb[i]]; stack[++n] = nb[i] }
			}
		}
		return 0
	}
	END {
		for (a in node) for (b in node) if (a < b && reach(a, b) && reach(b, a)) {
			if (!(a in comp)) comp[a] = a
			comp[b] = comp[a]
		}
		for (x in comp) members[comp[x]] = members[comp[x]] " " x
		for (c in members) {
			printf "CYCLE between folders:%s\n", members[c]
			for (e in how) {
				split(e, ab, SUBSEP)
				if ((ab[1] in comp) && (ab[2] in comp) && comp[ab[1]] == c && comp[ab[2]] == c) {
					line = how[e]; sub(/^[^ ]+ [^ ]+ /, "", line)
					printf "  %s -> %s: %s\n", ab[1], ab[2], line
				}
			}
		}
	}' "$edges")
if [ -n "$cycles" ]; then
	echo "$cycles"
	bad=1
fi

if [ "$bad" != 0 ]; then
	echo "FAIL: a lower layer or rank reaches a higher one, or folders form a cycle."
	echo "The layers, lowest first (and the ranks of their folders):"
	for i in "${!names[@]}"; do
		r=""
		for d in "${!layer[@]}"; do
			[ "${layer[$d]}" = "$i" ] && r="$r ${rank[$d]}:$d"
		done
		echo "  $i ${names[$i]} ($(echo $r | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//'))"
	done
	exit 1
fi
echo "layers: ok"
