#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Issue 34's target for the hist trigger, counted the way docs/benchmarks.md counts it: an
# event of bench_events' be_ints3 with hist:keys=common_pid on it costs at most 2.5 times the
# instructions of the same event enabled alone (callgrind, exact on every run; no time is
# measured). Only an optimized, uninstrumented tree is counted: -O0 and the sanitizers change
# what the ratio means.
set -uo pipefail
export LC_ALL=C

build=${TREV_BUILD_DIR:?}
bench=$build/bench/bench_events
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

command -v valgrind >/dev/null || { echo "SKIP: no valgrind"; exit 77; }
[ -x "$bench" ] || { echo "SKIP: no $bench (TREV_BENCH=OFF)"; exit 77; }
cache() {
	sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"
}
case "$(cache CMAKE_BUILD_TYPE)" in
Release|RelWithDebInfo|MinSizeRel) ;;
*)	echo "SKIP: build type '$(cache CMAKE_BUILD_TYPE)': counted in an optimized tree only"; exit 77 ;;
esac
[ -z "$(cache TREV_SANITIZE)" ] || { echo "SKIP: a sanitizer tree"; exit 77; }
case "$(cache TREV_FUZZ)" in ON|1|TRUE) echo "SKIP: the fuzz tree"; exit 77 ;; esac

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Instructions in run_ints3() (the event loop) for one case: 11,000 events (10,000 and
# the warm-up's 1,000).
count() {
	BENCH_FAKE_CPU=1 BENCH_EVENTS_N=10000 BENCH_EVENTS_ONLY=$1 \
		valgrind --tool=callgrind --callgrind-out-file="$T/cg.$1" \
		--toggle-collect=run_ints3 "$bench" >"$T/out.$1" 2>&1 ||
		{ cat "$T/out.$1" >&2; fail "bench_events, case $1"; }
	sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$T/out.$1"
}

ints3=$(count ints3)
hist=$(count hist)
[ -n "$ints3" ] && [ -n "$hist" ] && [ "$ints3" -gt 0 ] || fail "no callgrind count"
awk -v e="$ints3" -v h="$hist" 'BEGIN {
	printf "enabled: %.1f instructions an event; hist keys=common_pid: %.1f (%.2f x)\n",
		e / 11000, h / 11000, h / e }'
# hist <= 2.5 x enabled, in integers.
[ $((2 * hist)) -le $((5 * ints3)) ] ||
	fail "the hist trigger costs more than 2.5 x an enabled event (issue 34)"
echo "PASS"
