#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A trev record killed mid-run (kill -9: the OOM killer, a bug) leaves a trace.dat that
# trace-cmd reads, with the events of every page that reached the file, in order from the
# first, with no gap (docs/cli/trev-record.md, "A recorder that is killed"); versions 6 and 7.
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
command -v trace-cmd >/dev/null || { echo "trace-cmd is needed"; exit 77; }

# events DAT: the tt_ints events trace-cmd reads in DAT (0 while it reads none).
events() {
	local n

	n=$(trace-cmd report -i "$1" 2>/dev/null | grep -c ' tt_ints: ')
	echo "${n:-0}"
}

for v in 6 7; do
	dat="$T/killed-$v.dat"
	: >"$T/app-$v"
	# ctl_app fires one event a millisecond until SIGTERM; --flush 50 puts the partial
	# pages in the file twenty times a second.
	"$trev" record --file-version "$v" --flush 50 -e trev_test:tt_ints -o "$dat" -- \
		"$B/tests/ctl_app" 1 >"$T/app-$v" 2>"$errf" &
	rec=$!
	pids+=("$rec")
	wait_ready "$T/app-$v"
	pids+=("$app")
	# The file is at its name, and trace-cmd reads events in it, while trev record runs.
	wait_for '[ -e "$dat" ] && [ "$(events "$dat")" -ge 200 ]' \
		"v$v: $dat shows 200 events while trev record runs" 'ls -l "$T"'
	seen=$(events "$dat")
	kill -KILL "$rec"
	wait_gone "$rec" "trev record"
	[ "$rc" = 137 ] || fail "v$v: trev record exited $rc, not killed"
	# The program goes on untraced; it ends at our SIGTERM, normally.
	pid_gone "$app" && fail "v$v: ctl_app ended with its recorder"
	kill -TERM "$app"
	wait_for "pid_gone $app" "ctl_app ends"

	trace-cmd dump -v -i "$dat" >"$out" 2>&1 || fail "v$v: trace-cmd dump fails on $dat"
	has "^File .* is a valid trace-cmd file$"
	trace-cmd report -i "$dat" >"$out" 2>"$T/report-err" || fail "v$v: trace-cmd report fails"
	grep -v '^cpus=' "$T/report-err" | grep >/dev/null . &&
		fail "v$v: trace-cmd report complains: $(cat "$T/report-err")"
	grep -q 'EVENTS DROPPED' "$out" && fail "v$v: events lost"
	# Every event from the first (a=0), one a millisecond from one thread: no gap, nothing
	# out of order, at least what was seen before the kill.
	grep -E ' tt_ints: ' "$out" | sed -E 's/.* a=([0-9]+) .*/\1/' >"$T/seq"
	awk -v want="$seen" '$1 != NR - 1 { print "event " NR - 1 " is a=" $1; bad = 1; exit }
		END { if (!bad && NR < want) { print NR " events, " want " seen before"; bad = 1 }
		      exit bad }' "$T/seq" >"$T/why" || fail "v$v: $(cat "$T/why")"
	echo "ok: v$v: trev record killed: $(wc -l <"$T/seq") events in $dat ($seen seen before the kill)"
done
