#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# TREV_EVENTS enables events at start-up, TREV_OUTPUT receives the trace text at exit:
# seed 004's te_test program, its output checked line by line.
set -euo pipefail

bin="$TREV_BUILD_DIR/examples/te_test"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

fail() {
	echo "FAIL: $*" >&2
	echo "---- output:" >&2
	cat "$out" >&2
	exit 1
}

# Enabled: four lines, in the kernel's format, from the thread named xhr-thread.
TREV_EVENTS='xhr_test:te_test' TREV_OUTPUT="$out" "$bin" 4 >/dev/null
grep -q '^# tracer: nop$' "$out" || fail "no header"
grep -q '^# entries-in-buffer/entries-written: 4/4   #P:[0-9]*$' "$out" || fail "entries line"
n=$(grep -cE '^      xhr-thread-[0-9]+ +\[[0-9]{3}\] \.\.\.\. +[0-9]+\.[0-9]{6}: te_test: count=1 output=[0-3]$' "$out" || true)
[ "$n" -eq 4 ] || fail "expected 4 te_test lines, got $n"
for i in 0 1 2 3; do
	grep -q "te_test: count=1 output=$i\$" "$out" || fail "missing output=$i"
done

# Not enabled: the header says nothing was written.
TREV_OUTPUT="$out" "$bin" 2 >/dev/null
grep -q '^# entries-in-buffer/entries-written: 0/0 ' "$out" || fail "events recorded while disabled"

# A system, a disable term and stderr as the destination.
err=$(TREV_EVENTS='xhr_test:*,!xhr_test:te_test' TREV_OUTPUT=stderr "$bin" 2 2>&1 >/dev/null)
grep -q '^# entries-in-buffer/entries-written: 0/0 ' <<<"$err" || fail "!term did not disable: $err"

# A term that matches nothing is reported at exit, and the rest still works.
err=$(TREV_EVENTS='nosuch:event,xhr_test:*' TREV_OUTPUT=stderr "$bin" 1 2>&1 >/dev/null)
grep -q "TREV_EVENTS: 'nosuch:event' matched no event" <<<"$err" || fail "no warning: $err"
grep -q 'te_test: count=1 output=0$' <<<"$err" || fail "xhr_test:* not applied: $err"
echo "PASS"
