#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# make bench's instruction counts (docs/benchmarks.md, "Instructions, not only time"):
# callgrind on the benchmarks' loops, exact and the same on every host, beside issue 34's
# targets. Usage: bench/instructions.sh BUILD_DIR
set -uo pipefail
export LC_ALL=C

build=${1:?usage: $0 BUILD_DIR}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
N=100000	# and the benchmarks' warm-up: N / 10

command -v valgrind >/dev/null || { echo "instructions: no valgrind, not counted"; exit 0; }

# count PROGRAM LOOP ENV...: the instructions callgrind counts in LOOP, per iteration.
count() {
	local prog=$1 loop=$2
	shift 2
	env "$@" valgrind ${VG_EXTRA:-} --tool=callgrind --callgrind-out-file="$T/cg" \
		--toggle-collect="$loop" "$build/bench/$prog" >"$T/out" 2>&1 || {
		echo "instructions: $prog $* failed:" >&2
		tail -5 "$T/out" >&2
		return 1
	}
	sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$T/out" |
		awk -v n=$((N + N / 10)) '{ printf "%.1f", $1 / n }'
}

ev() {
	count bench_events run_ints3 BENCH_FAKE_CPU=1 BENCH_EVENTS_N=$N BENCH_EVENTS_ONLY="$1"
}
ft() {
	count bench_ftrace run_traced BENCH_FAKE_CPU=1 BENCH_FTRACE_N=$N BENCH_FTRACE_ONLY="$1"
}

# A probe site's hit (bench_probe.c): the loop with a relocated-prologue probe and an empty
# handler or a probe event's record, less the same loop unprobed (all also run the same
# checked calls); "detached": after an attach and a detach. The probed text is rewritten at
# run time: callgrind must look for changed code. Without the control socket (bench_probe.c
# says why; it would run itself again without it, which valgrind does not follow).
pb() {
	VG_EXTRA=--smc-check=all count bench_probe run_calls TREV_SOCKET=0 BENCH_FAKE_CPU=1 \
		BENCH_PROBE_N=$N BENCH_PROBE_ONLY="$1"
}

ints3=$(ev ints3) && filt=$(ev filt_out) && hist=$(ev hist) &&
	fn=$(ft function) && fg=$(ft function_graph) && pr=$(ft probe) &&
	nop=$(ft nop) && proff=$(ft probe_off) &&
	pplain=$(pb plain) && preloc=$(pb relocated) && pev=$(pb relocated_event) &&
	pdet=$(pb detached) || exit 1

echo "==== instructions (callgrind, per event or traced call, the loop included)"
awk -v e="$ints3" -v f="$filt" -v h="$hist" -v fn="$fn" -v fg="$fg" -v pr="$pr" \
	-v pp="$pplain" -v pl="$preloc" -v pe="$pev" -v pd="$pdet" -v nop="$nop" -v po="$proff" 'BEGIN {
	printf "%-40s %10s   %s\n", "case", "instr", "issue 34 target"
	printf "%-40s %10.1f   <= 100\n", "enabled event, 3 ints", e
	printf "%-40s %10.1f   <= 0.4 x enabled (now %.2f x)\n", "filtered out (1 predicate)", f, f / e
	printf "%-40s %10.1f   <= 2.5 x enabled (now %.2f x)\n", "hist trigger keys=common_pid", h, h / e
	printf "%-40s %10.1f   <= 120\n", "function tracer, traced call", fn
	printf "%-40s %10.1f   <= 250\n", "function_graph, entry + exit", fg
	printf "%-40s %10.1f   <= 1.5 x function (issue 32; now %.2f x)\n", "probe event at an entry, 1 arg", pr, pr / fn
	printf "%-40s %10.1f   (docs/probes.md; %.2f x a traced call)\n", \
		"probe site hit, relocated, empty handler", pl - pp, (pl - pp) / fn
	printf "%-40s %10.1f   <= 2 x function (issue 32; now %.2f x)\n", \
		"probe event on a relocated site, 1 arg", pe - pp, (pe - pp) / fn
	printf "%-40s %10.1f   = nop5 call %.1f (issue 32: disabled = unpatched)\n", \
		"probed entry, probe disabled (loop incl.)", po, nop
	printf "%-40s %10.1f   = never probed %.1f (issue 32)\n", \
		"relocated site detached (loop incl.)", pd, pp
}'
