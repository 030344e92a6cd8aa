#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev list: the events of a running process (its available_events over the control socket,
# then the built-in ftrace events), and of programs and shared libraries read from their ELF
# sections without running them: PIE executables, a non-PIE one, a dlopen()ed module. What a
# file lists equals what the same program's available_events says, in the same order, and
# the order of the event IDs in a trace.dat file it recorded. Every error case.
set -uo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
trev=$B/tools/trev/trev
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err

# ---- a running process against its own executable -----------------------------------------
"$B/tests/ctl_app" 20 >"$T/app" &
pids+=($!)
wait_ready "$T/app"

run 0 "$trev" list -p "$app"
cp "$out" "$T/proc"
has '^trev_test:tt_ints$'
has '^ftrace:print$'
"$trev" cat -p "$app" available_events >"$T/avail" || fail "trev cat available_events"
grep -v '^ftrace:' "$T/proc" >"$T/proc.events"
cmp -s "$T/avail" "$T/proc.events" || fail "list -p is not available_events, then ftrace:*"
grep '^ftrace:' "$T/proc" | sed 's/^ftrace://' | sort >"$T/ft.got"
"$trev" ls -p "$app" events/ftrace | sed -n 's|/$||p' | sort >"$T/ft.want"
cmp -s "$T/ft.want" "$T/ft.got" || fail "list -p: the ftrace events are not events/ftrace/'s"

run 0 "$trev" list "$B/tests/ctl_app"
cmp -s "$T/proc.events" "$out" || { diff -u "$T/proc.events" "$out" >&2; fail "ctl_app: the file lists other events than the process"; }
echo "ok: a running process and its executable (PIE) list the same events"

# ---- executables and libraries -----------------------------------------------------------
# The events of a trace.dat file the program recorded, in ID (registration) order.
mkdir -p "$T/rec"
"$B/tests/dat_record" "$T/rec" normal >/dev/null || fail "dat_record"
trace-cmd dump --events -i "$T/rec/v6.dat" 2>/dev/null |
	awk '/^name: / { n = $2 } /^ID: / && n { print $2, n; n = "" }' | sort -n |
	awk '$1 >= 1000 { print "demo:" $2 }' >"$T/dat.events" 2>/dev/null
for exe in dat_record dat_record_nopie; do
	[ -x "$B/tests/$exe" ] || continue
	run 0 "$trev" list "$B/tests/$exe"
	if command -v trace-cmd >/dev/null; then
		cmp -s "$T/dat.events" "$out" || { diff -u "$T/dat.events" "$out" >&2; fail "$exe: not the recorded events in ID order"; }
	fi
	[ "$(wc -l <"$out")" -eq 4 ] || fail "$exe: not the 4 demo events"
	echo "ok: $exe ($(file -b "$B/tests/$exe" | cut -d, -f1))"
done
[ -x "$B/tests/dat_record_nopie" ] || echo "note: no non-PIE build in this tree (sanitizers)"

run 0 "$trev" list "$B/examples/demo_events"
[ "$(sort "$out")" = "$(printf 'demo:demo_batch\ndemo:demo_request\ndemo:demo_worker_start\ndemo:demo_worker_stop')" ] ||
	fail "demo_events"
run 0 "$trev" list "$B/examples/te_test"
[ "$(cat "$out")" = "xhr_test:te_test" ] || fail "te_test"
run 0 "$trev" list "$B/tests/libtrev_dl_module.so"
[ "$(sort "$out")" = "$(printf 'dl_test:dl_hello\ndl_test:dl_mode\ndl_test:dl_value')" ] || fail "the dlopen module"
echo "ok: examples and a shared library"

# ---- errors ----------------------------------------------------------------------------------
run 1 "$trev" list "$T/nosuch"
err_is 1 "trev: list: $T/nosuch: No such file or directory"
run 1 "$trev" list /etc/passwd
err_is 1 "trev: list: /etc/passwd: not an ELF file"
: >"$T/empty"
run 1 "$trev" list "$T/empty"
err_is 1 "trev: list: $T/empty: not an ELF file"
run 1 "$trev" list "$(command -v bash)"
err_is 1 "trev: list: $(command -v bash): no trev events (no __trev_events section)"
obj=$(find "$B" -name 'dl_module.c.o' | head -1)
if [ -n "$obj" ]; then
	run 1 "$trev" list "$obj"
	err_is 1 "trev: list: $obj: not an executable or shared library"
fi
# A truncated program: its sections or its data are gone; an error, not a crash.
size=$(stat -c %s "$B/tests/ctl_app")
for cut in 64 4096 $((size / 4)) $((size / 2)) $((size - 100)); do
	head -c "$cut" "$B/tests/ctl_app" >"$T/cut"
	"$trev" list "$T/cut" >"$out" 2>"$errf"
	st=$?
	[ "$st" -le 1 ] || fail "ctl_app cut at $cut: exit status $st"
	[ "$st" = 0 ] || grep -q "^trev: list: $T/cut: " "$errf" || fail "cut at $cut: no message"
done
run 1 "$trev" list -p 999999999
err_is 1 "trev: no process 999999999"
run 1 "$trev" list -p $$
grep -qE "^trev: process $$ does not serve trev \(no socket .*/$$.sock\)$" "$errf" ||
	fail "no trev in the process: $(cat "$errf")"
run 2 "$trev" list -p abc
err_is 1 "trev: -p takes a process id, not 'abc'"
run 2 "$trev" list
run 2 "$trev" list -p "$app" "$B/tests/ctl_app"
run 2 "$trev" list a b
run 0 "$trev" list --help
has '^usage: trev list'
echo "ok: errors"
echo "all trev list checks passed"
