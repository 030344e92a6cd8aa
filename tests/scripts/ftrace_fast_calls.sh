#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The trampolines' fast calls call nothing out of line (src/ftrace/trampoline.c,
# docs/function-tracer.md "Registers"): the trampolines keep only xmm0-7 around them, so code
# they reached that used AVX (glibc's string functions end in vzeroupper) would clear the upper
# halves of a traced function's ymm/zmm arguments. In libtrev.so each fast function may call or
# jump to:
#   trev__rb_leave_slow_vsave  the commit's slow publish, which keeps the registers itself;
#   urcu_bp_register           liburcu's read lock, when the thread is unknown to it: never
#                              reached, the fast calls return first (ft_rcu_ready());
#   trev__fg_entry_fast        trev__ft_entry_jmp_fast's tail call;
#   pf_fetch_read              the probes' fast call's (trev__probe_fast_hit, src/probe/
#                              probe_fast.c) memory reads, checked as a fast function too: its
#                              system calls are the syscall instruction, no call;
# and nothing else, no indirect call or jump either. Outside the sanitizer and fuzz trees the
# fast calls are built with general registers only and the trampolines keep no vector register
# around them at all (TREV_FT_GPR_ONLY, CMakeLists.txt): so no fast function may name an xmm, ymm
# or zmm register either (gcc's SSE copies of a stack frame would clobber a traced function's
# xmm arguments).
set -uo pipefail
export LC_ALL=C

lib=${TREV_BUILD_DIR:?}/libtrev.so

case "$(uname -m)" in
x86_64) ;;
*)	echo "SKIP: the trampolines are x86-64 only"; exit 77 ;;
esac
command -v objdump >/dev/null || { echo "SKIP: no objdump (binutils)"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: no $lib" >&2; exit 1; }
# A sanitizer's instrumentation calls its run-time from every function (test_ftrace_vec checks
# the registers there).
san=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$TREV_BUILD_DIR/CMakeCache.txt")
[ -z "$san" ] || { echo "SKIP: a sanitizer build ($san): its instrumentation calls out"; exit 77; }

status=0
for fn in trev__ft_entry_fast trev__ft_entry_jmp_fast trev__fg_entry_fast trev__fg_exit_fast \
	trev__probe_fast_hit pf_fetch_read; do
	dis=$(objdump -d --no-show-raw-insn --disassemble="$fn" "$lib")
	if ! grep -q "<$fn>:" <<<"$dis"; then
		echo "FAIL: $fn is not in $lib" >&2
		status=1
		continue
	fi
	# Branches out of the function: "call <addr> <target>", "jmp/jcc <addr> <target>" whose
	# target is not $fn+offset (a conditional jump can be a tail call too); and any indirect
	# call or jump ("*").
	out=$(awk -v fn="$fn" '
		$2 ~ /^(call|j[a-z]+)$/ {
			if ($3 ~ /^\*/) { print "indirect: " $0; next }
			t = $4; gsub(/[<>]/, "", t); sub(/@plt$/, "", t)
			if (t ~ ("^" fn "(\\+0x[0-9a-f]+)?$")) next
			if (t == "trev__rb_leave_slow_vsave" || t == "urcu_bp_register") next
			if (fn == "trev__ft_entry_jmp_fast" && t == "trev__fg_entry_fast") next
			if (fn == "trev__probe_fast_hit" && t == "pf_fetch_read") next
			print t ": " $0
		}' <<<"$dis")
	vec=$(grep -E '%[xyz]mm[0-9]' <<<"$dis")
	if [ -n "$out" ]; then
		echo "FAIL: $fn calls out of line:" >&2
		echo "$out" >&2
		status=1
	elif [ -n "$vec" ]; then
		echo "FAIL: $fn uses vector registers, which the trampolines do not keep:" >&2
		echo "$vec" >&2
		status=1
	else
		echo "ok: $fn"
	fi
done
exit $status
