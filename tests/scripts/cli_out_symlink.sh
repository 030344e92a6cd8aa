#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Output files are not written through another user's symlink in a sticky directory open to
# all (src/base/out_file.h, the rule of the kernel's fs.protected_symlinks applied whatever
# the sysctl says): as root, with a link of uid 65534 (nobody) in a 1777 directory pointing
# at root's file, `trev record -o`, `--kernel-output`, `trev recover -o`, TREV_OUTPUT at exit
# and TREV_OUTPUT from the crash writer each refuse it with a line naming the link, and the
# target is unchanged. A link of our own there, a link of the directory's owner, and a link
# in a directory that is not sticky are followed as before. The sysctl is left as it is.
set -uo pipefail
export LC_ALL=C

[ "$(id -u)" = 0 ] || { echo "cli_out_symlink: needs root (a link of another uid)"; exit 77; }
nobody=$(id -u nobody 2>/dev/null) || { echo "cli_out_symlink: no user nobody"; exit 77; }

B=$TREV_BUILD_DIR
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err
unset TREV_OUTPUT TREV_FLIGHT TREV_EVENTS

pub=$T/pub			# as /tmp: sticky, writable by all
mkdir "$pub" && chmod 1777 "$pub"
secret=$T/secret		# root's file that nobody's link points at
echo "root's own" >"$secret"
chmod 600 "$secret"
ln -s "$secret" "$pub/x.dat"
chown -h "$nobody:$nobody" "$pub/x.dat"
mkdir "$T/sdir"
ln -s "$T/sdir" "$pub/d"	# a directory on the way
chown -h "$nobody:$nobody" "$pub/d"

refused="refusing to follow the symlink x.dat of uid $nobody: it lies in a sticky directory writable by all (mode 01777, owner uid 0), and is neither ours nor the directory's owner's"
refused_d=${refused/symlink x.dat/symlink d}

# err_line LINE: stderr has LINE, exactly (the library's lines may follow others)
err_line() { grep -qxF -- "$1" "$errf" || fail "stderr has no line '$1'"; }

untouched() {
	[ "$(cat "$secret")" = "root's own" ] || fail "$1: the link's target was written"
	[ -z "$(ls -A "$T/sdir")" ] || fail "$1: a file was made through the link d: $(ls "$T/sdir")"
}

# ---- trev record -o, --kernel-output, trev recover -o ---------------------------------------------
run 1 "$trev" record -e 'demo:*' -o "$pub/x.dat" -- "$B/examples/demo_events"
err_is 1 "trev: $pub/x.dat: $refused"
untouched "record -o"
run 1 "$trev" record -e 'demo:*' -o "$pub/d/y.dat" -- "$B/examples/demo_events"
err_is 1 "trev: $pub/d/y.dat: $refused_d"
untouched "record -o through a directory link"
# Checked before the kernel is asked for anything (no tracefs needed to be refused).
run 1 "$trev" record -e 'demo:*' -K sched:sched_switch --kernel-output "$pub/x.dat" \
	-o "$T/ok.dat" -- "$B/examples/demo_events"
err_is 1 "trev: $pub/x.dat: $refused"
untouched "--kernel-output"

flight=$T/flight
run 137 env TREV_FLIGHT="$flight" TREV_EVENTS=trev_test:tt_ints "$B/tests/rec_app" 50 1 \
	midsignal 9 "$T/counts"
run 1 "$trev" recover -o "$pub/x.dat" "$flight"
err_is 1 "trev: $pub/x.dat: $refused"
untouched "recover -o"

# ---- TREV_OUTPUT: at exit, and from the crash writer -------------------------------------------
run 0 env TREV_EVENTS='demo:*' TREV_OUTPUT="$pub/x.dat" "$B/examples/demo_events"
err_line "trev: TREV_OUTPUT: cannot open $pub/x.dat: $refused"
untouched "TREV_OUTPUT"
# integ_crash (tests/integrity/integ_crash.c) dies of a SIGSEGV; the crash writer opens it.
# A sanitizer's own fault handlers are off, as tests/integrity/integ_crash.sh has them, so
# that the signal is the program's (TSan's report of the crash writer's child left out too).
san=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$B/CMakeCache.txt" 2>/dev/null)
no_handlers=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
printf '%s:crash_child_main\n' race mutex signal >"$T/tsan.supp"
env TREV_EVENTS=integ:integ_rec TREV_OUTPUT="$pub/x.dat" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:$no_handlers" \
	TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$T/tsan.supp:print_suppressions=0:$no_handlers" \
	"$B/tests/integ_crash" "$T/counts" segv 1 10 >"$out" 2>"$errf"
st=$?
[ "$st" = 139 ] || fail "integ_crash exited $st, not by its SIGSEGV${san:+ (a $san build)}"
err_line "trev: TREV_OUTPUT: cannot open $pub/x.dat: $refused"
untouched "TREV_OUTPUT at a crash"

# ---- Links that are followed: our own, the directory owner's, one outside a sticky directory ---
echo old >"$T/mine.target"
ln -s "$T/mine.target" "$pub/mine.dat"	# root's: ours, and the directory's owner's
run 0 "$trev" record -e 'demo:*' -o "$pub/mine.dat" -- "$B/examples/demo_events"
[ -L "$pub/mine.dat" ] || fail "our own link was replaced"
trace-cmd report -i "$T/mine.target" >"$out" 2>&1 || fail "our link's target is no trace.dat"
has 'demo_'
# The directory's owner's link (nobody's directory, nobody's link, followed by root).
mkdir "$T/npub" && chown "$nobody:$nobody" "$T/npub" && chmod 1777 "$T/npub"
echo old >"$T/n.target"
ln -s "$T/n.target" "$T/npub/n.txt" && chown -h "$nobody:$nobody" "$T/npub/n.txt"
run 0 env TREV_EVENTS='demo:*' TREV_OUTPUT="$T/npub/n.txt" "$B/examples/demo_events"
grep -q 'demo_' "$T/n.target" || fail "the directory owner's link was not followed"
# Not sticky: nobody's link in root's 0755 directory.
mkdir "$T/plain"
echo old >"$T/p.target"
ln -s "$T/p.target" "$T/plain/p.txt" && chown -h "$nobody:$nobody" "$T/plain/p.txt"
run 0 env TREV_EVENTS='demo:*' TREV_OUTPUT="$T/plain/p.txt" "$B/examples/demo_events"
grep -q 'demo_' "$T/p.target" || fail "a link outside a sticky directory was not followed"
# A new file in the sticky directory is made as before.
run 0 env TREV_EVENTS='demo:*' TREV_OUTPUT="$pub/new.txt" "$B/examples/demo_events"
grep -q 'demo_' "$pub/new.txt" || fail "no new file in the sticky directory"

echo "cli_out_symlink: ok (fs.protected_symlinks is $(cat /proc/sys/fs/protected_symlinks 2>/dev/null))"
