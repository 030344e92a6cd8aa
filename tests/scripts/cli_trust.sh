#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The trev command trusts nothing it receives (docs/control-socket.md, "Trust"): run as root
# with two other uids (4001, the traced process's user; 4002, another user), it refuses a
# socket directory of another owner or open to others, a socket of another owner or that is
# no socket, and a listener that is not the process, each before sending a byte; it refuses
# each lying reply of a fake server (tests/control/fake_server.py) with one clear line and
# exit status 1; root still attaches to uid 4001's process, uid 4002 still cannot; and a
# process with a private /tmp (its own mount namespace) is reached through /proc/PID/root.
set -uo pipefail
export LC_ALL=C

[ "$(id -u)" = 0 ] || { echo "cli_trust: needs root (other uids, mount namespaces)"; exit 77; }
for tool in setpriv python3 unshare; do
	command -v "$tool" >/dev/null || { echo "cli_trust: $tool is missing"; exit 77; }
done

app_bin="$TREV_BUILD_DIR/tests/ctl_app"
trev="$TREV_BUILD_DIR/tools/trev/trev"
fake="$TREV_SOURCE_DIR/tests/control/fake_server.py"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
# The other uids run it too: a python3 they can reach (not one under /root).
py=python3
for p in /usr/bin/python3 /usr/local/bin/python3; do
	[ -x "$p" ] && py=$p && break
done
cli_setup
out=$T/out
errf=$T/err
# Outside /tmp, so that a process with a private /tmp still finds its programs.
base=$(mktemp -d /var/tmp/trev-trust.XXXXXX)
chmod 755 "$base" "$T"
logs=$base/logs		# the fake servers' logs, written as their uids
mkdir "$logs" && chmod 1777 "$logs"
cli_cleanup_more() { rm -rf "$base"; }

# as UID CMD...: CMD as UID (in the foreground; a background job is started with "${as_N[@]}",
# a plain command, so that $! is the command itself and not a subshell)
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
as_4001=(setpriv --reuid=4001 --regid=4001 --clear-groups)

# The other uids must reach the programs: copy them where everyone can when the build tree
# is closed to them.
as 4001 "$py" -c '' || { echo "cli_trust: uid 4001 cannot run $py"; exit 77; }
if ! as 4001 test -x "$trev" || ! as 4001 test -x "$app_bin" || ! as 4001 test -r "$fake"; then
	mkdir "$base/bin"
	cp "$trev" "$app_bin" "$fake" "$base/bin/"
	chmod -R a+rX "$base/bin"
	trev=$base/bin/trev app_bin=$base/bin/ctl_app fake=$base/bin/fake_server.py
fi

# mkdir_as UID MODE DIR: a directory owned by UID
mkdir_as() { mkdir "$3" && chown "$1:$1" "$3" && chmod "$2" "$3"; }

# wait_uid PID UID COMM: the process has become UID running COMM (setpriv and env exec'd)
wait_uid() {
	for _ in $(seq $((WAIT_GUARD * 20))); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$3" ] &&
			awk -v u="$2" '/^Uid:/ { exit $3 != u }' "/proc/$1/status" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "process $1 did not become uid $2 running $3"
}

# fake_start UID DIR PID LOG: a fake server as UID serving DIR/PID.sock; its pid in $fake_pid
fake_start() {
	local -a as_u=(setpriv --reuid="$1" --regid="$1" --clear-groups)

	"${as_u[@]}" env TREV_SOCKET_DIR="$2" "$py" "$fake" "$2" "$3" "$4" >"$4.out" 2>&1 &
	pids+=($!)
	fake_pid=$!
	wait_ready "$4.out"
}

# fake_logged LOG SOCK: every connection the fake server had so far is in LOG (it serves one
# at a time: a marker connection, logged after them, shows they are done)
fake_logged() {
	"$py" -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"mark")' "$2" ||
		fail "cannot reach the fake server at $2"
	for _ in $(seq $((WAIT_GUARD * 20))); do
		grep -q '^mark$' "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "the fake server did not log the marker"
}

# no_sanitizer: the last command's stderr has no sanitizer report (ASan also exits 1)
no_sanitizer() {
	grep -qE 'Sanitizer|runtime error' "$errf" && fail "a sanitizer report"
	return 0
}

# A victim: a process of uid 4001 whose socket directory is $1 (it serves no socket itself).
victim() {
	"${as_4001[@]}" env TREV_SOCKET_DIR="$1" sleep infinity &
	pids+=($!)
	victim_pid=$!
	wait_uid "$victim_pid" 4001 sleep
}

# ---- The legitimate case: root attaches to uid 4001's process, uid 4002 cannot ---------------
mkdir_as 4001 700 "$base/u4001"
"${as_4001[@]}" env TREV_SOCKET_DIR="$base/u4001" "$app_bin" 30 >"$T/app.out" &
pids+=($!)
wait_ready "$T/app.out"
run 0 "$trev" cat -p "$app" tracing_on
[ "$(cat "$out")" = 1 ] || fail "root: tracing_on reads '$(cat "$out")'"
run 0 as 4001 "$trev" cat -p "$app" tracing_on
[ "$(cat "$out")" = 1 ] || fail "uid 4001: tracing_on reads '$(cat "$out")'"
run 1 as 4002 "$trev" cat -p "$app" tracing_on
err_is 1 "trev: process $app belongs to another user"

# ---- Spoofing: each refused before the attacker's server gets a byte ---------------------------
# The directory belongs to the attacker (who made it first).
mkdir_as 4002 700 "$base/evil"
victim "$base/evil"
fake_start 4002 "$base/evil" "$victim_pid" "$logs/evil"
run 1 "$trev" cat -p "$victim_pid" trace
err_is 1 "trev: refusing $base/evil: owned by uid 4002, not the process's uid 4001"
grep -q fake "$out" && fail "the attacker's text was printed"
run 1 "$trev" write -p "$victim_pid" events/enable 1
err_is 1 "trev: refusing $base/evil: owned by uid 4002, not the process's uid 4001"
run 1 as 4001 "$trev" cat -p "$victim_pid" trace
err_is 1 "trev: refusing $base/evil: owned by uid 4002, not the process's uid 4001"
fake_logged "$logs/evil" "$base/evil/$victim_pid.sock"
grep -q '^conn' "$logs/evil" && fail "the attacker's server was connected to: $(cat "$logs/evil")"

# The victim's own directory, but open to others.
mkdir_as 4001 777 "$base/open"
victim "$base/open"
fake_start 4002 "$base/open" "$victim_pid" "$logs/open"
run 1 "$trev" cat -p "$victim_pid" trace
err_is 1 "trev: refusing $base/open: writable by group or others (mode 0777)"
grep -q fake "$out" && fail "the attacker's text was printed"

# The socket belongs to another user (made elsewhere, then moved in).
mkdir_as 4002 700 "$base/a4002"
mkdir_as 4001 700 "$base/sown"
victim "$base/sown"
fake_start 4002 "$base/a4002" "$victim_pid" "$logs/sown"
mv "$base/a4002/$victim_pid.sock" "$base/sown/"
run 1 "$trev" cat -p "$victim_pid" trace
err_is 1 "trev: refusing $base/sown/$victim_pid.sock: owned by uid 4002, not the process's uid 4001"

# Not a socket at all.
mkdir_as 4001 700 "$base/file"
victim "$base/file"
as 4001 touch "$base/file/$victim_pid.sock"
run 1 "$trev" cat -p "$victim_pid" trace
err_is 1 "trev: refusing $base/file/$victim_pid.sock: not a socket"

# Directory and socket as they should be, but another user's process listens.
mkdir_as 4001 700 "$base/peer"
victim "$base/peer"
fake_start 4002 "$base/a4002" "$victim_pid" "$logs/peer"
chown 4001:4001 "$base/a4002/$victim_pid.sock"
mv "$base/a4002/$victim_pid.sock" "$base/peer/"
run 1 "$trev" cat -p "$victim_pid" trace
err_is 1 "trev: refusing $base/peer/$victim_pid.sock: served by process $fake_pid (uid 4002), not by process $victim_pid"
run 1 "$trev" write -p "$victim_pid" events/enable 1
err_is 1 "trev: refusing $base/peer/$victim_pid.sock: served by process $fake_pid (uid 4002), not by process $victim_pid"
fake_logged "$logs/peer" "$base/peer/$victim_pid.sock"
[ "$(grep -c '^conn 0$' "$logs/peer")" = 2 ] && ! grep -q '^conn [1-9]' "$logs/peer" ||
	fail "the fake listener got bytes: $(cat "$logs/peer")"

# ---- Lying replies: a server that is the process itself, but speaks falsely ---------------------
mkdir_as 4001 700 "$base/liar"
fake_start 4001 "$base/liar" self "$logs/liar"
liar=$fake_pid
# The control: a well-formed exchange goes through.
run 0 "$trev" cat -p "$liar" text
[ "$(cat "$out")" = "fake text from $liar" ] || fail "the fake server's text reads '$(cat "$out")'"
# lie_is WHAT CMD...: exit status 1, no crash, and the first line says what was malformed
lie_is() {
	local want=$1
	shift
	run 1 "$@"
	no_sanitizer
	err_is 1 "trev: process $liar sent a malformed reply to $want"
}
lie_is "READ: 2147483647 bytes announced, 12 received" "$trev" cat -p "$liar" arg_gt_len
lie_is "READ: 1048676 bytes, more than the 1048576 asked" "$trev" cat -p "$liar" len_gt_asked
lie_is "READ: it answers op 0x8002" "$trev" cat -p "$liar" wrong_op
lie_is "READ: handle 7, not 1" "$trev" cat -p "$liar" wrong_handle
lie_is "READ: magic 0xdeadbeef, not 0x31565254" "$trev" cat -p "$liar" bad_magic
lie_is "READ: reserved field 0x0001, not 0" "$trev" cat -p "$liar" reserved
lie_is "OPEN: handle 4096, not 1..64" "$trev" cat -p "$liar" open_handle
lie_is "WRITE: 100 bytes taken of 1 sent" "$trev" write -p "$liar" write_lie 1
lie_is "READDIR: the name at byte 8 is not a file name" "$trev" ls -p "$liar" bad_readdir
# trev stat reads tracing_on with read_file (2147483647 bytes announced used to be added to
# its length, then written past its buffer).
lie_is "READ: 2147483647 bytes announced, 12 received" "$trev" stat -p "$liar"
kill -0 "$liar" || fail "the fake server died"

# ---- A private /tmp: the process's socket is reached through /proc/PID/root -------------------
# The process's own /tmp/trev-UID (no TREV_SOCKET_DIR or XDG_RUNTIME_DIR in its environment).
# `unshare --mount sh -c "$private_tmp" "$TREV_BUILD_DIR" CMD...` runs CMD with a new, empty
# tmpfs on /tmp and the build tree bound back at its path: a clone under /tmp would vanish
# otherwise. mount must not canonicalize /proc/self/fd/3, which would name the new, empty
# directory.
private_tmp='exec 3<"$0" && mount -t tmpfs none /tmp && mkdir -p "$0" &&
	mount --no-canonicalize --bind /proc/self/fd/3 "$0" && exec "$@" 3<&-'
# ns_start CMD...: CMD so, its "ready PID" awaited in a file of its own (a reused file may
# still say the previous program's pid before the new one's shell has truncated it).
ns_n=0
ns_start() {
	ns_n=$((ns_n + 1))
	unshare --mount sh -c "$private_tmp" "$TREV_BUILD_DIR" "$@" >"$T/ns$ns_n.out" 2>&1 &
	pids+=($!)
	wait_ready "$T/ns$ns_n.out"
}
ns_start env -u TREV_SOCKET_DIR -u XDG_RUNTIME_DIR "$app_bin" 30
[ -e "/tmp/trev-0/$app.sock" ] && fail "the private /tmp is not private"
run 0 "$trev" cat -p "$app" tracing_on
[ "$(cat "$out")" = 1 ] || fail "private /tmp: tracing_on reads '$(cat "$out")'"
run 0 "$trev" write -p "$app" events/trev_test/tt_ints/enable 1
run 0 "$trev" cat -p "$app" events/trev_test/tt_ints/enable
[ "$(cat "$out")" = 1 ] || fail "private /tmp: enable reads '$(cat "$out")'"
# The same for uid 4001's process (its /tmp/trev-4001), with the same checks.
ns_start setpriv --reuid=4001 --regid=4001 --clear-groups \
	env -u TREV_SOCKET_DIR -u XDG_RUNTIME_DIR "$app_bin" 30
run 0 "$trev" cat -p "$app" tracing_on
[ "$(cat "$out")" = 1 ] || fail "private /tmp, uid 4001: tracing_on reads '$(cat "$out")'"
run 1 as 4002 "$trev" cat -p "$app" tracing_on
err_is 1 "trev: process $app belongs to another user"
# A pid namespace as well: the process is 1 there, and its socket 1.sock (NSpid's last).
unshare --mount --pid --fork --kill-child sh -c "$private_tmp" "$TREV_BUILD_DIR" \
	env -u TREV_SOCKET_DIR -u XDG_RUNTIME_DIR "$app_bin" 30 >"$T/pidns.out" 2>&1 &
pids+=($!)
wait_ready "$T/pidns.out"
[ "$app" = 1 ] || fail "ctl_app in a pid namespace says it is $app"
app=$(pgrep -P "${pids[-1]}")
[ -n "$app" ] || fail "no ctl_app under unshare ${pids[-1]}"
pids+=("$app")
run 0 "$trev" cat -p "$app" tracing_on
[ "$(cat "$out")" = 1 ] || fail "pid namespace: tracing_on reads '$(cat "$out")'"
# A process without trev there: the message names the path as we can reach it.
ns_start env -u TREV_SOCKET_DIR -u XDG_RUNTIME_DIR sh -c 'echo ready $$; exec sleep infinity'
run 1 "$trev" cat -p "$app" trace
err_is 1 "trev: process $app does not serve trev (no socket /proc/$app/root/tmp/trev-0/$app.sock)"

# ---- trev record names code from the process's files, and opens nothing that is not one ------
# The user of the process can put something else at a mapped file's path while trev record
# (perhaps root) runs: here a FIFO bound over the copy of sym_app it runs from, whose open
# for reading would never return. Its functions go unnamed; the recording ends as asked.
if command -v trace-cmd >/dev/null; then
	mkdir "$base/symapp"
	cp "$TREV_BUILD_DIR/tests/sym_app" "$base/symapp/"
	"$base/symapp/sym_app" wait >"$T/sym.out" &
	pids+=($!)
	wait_ready "$T/sym.out"
	mkfifo "$base/fifo"
	mount --bind "$base/fifo" "$base/symapp/sym_app" || fail "cannot bind a FIFO over sym_app"
	cli_cleanup_more() { umount "$base/symapp/sym_app"; rm -rf "$base"; }
	timeout 30 "$trev" record -e trev_test:tt_ints -o "$T/sym.dat" -p "$app" >"$out" 2>"$errf" &
	rec=$!
	# Until the recorder has read a few rounds (sym_app_printk's among them): the names are
	# looked up at each snapshot and at the end.
	read_events() {
		local cpu
		for cpu in $("$trev" ls -p "$app" per_cpu); do
			"$trev" cat -p "$app" "per_cpu/${cpu%/}/stats"
		done | awk '/^read events:/ { n += $3 } END { print n + 0 }'
	}
	for _ in $(seq $((WAIT_GUARD * 20))); do
		[ "$(read_events)" -ge 30 ] && break
		sleep 0.05
	done
	[ "$(read_events)" -ge 30 ] || fail "trev record read no events of sym_app"
	kill -INT "$rec"
	wait "$rec"
	st=$?
	[ "$st" = 0 ] || fail "trev record -p exited $st (124: it hung) with a FIFO at a mapped path"
	trace-cmd report -i "$T/sym.dat" >"$out" 2>/dev/null || fail "trace-cmd report sym.dat failed"
	grep -qE ' bprint: +sym_mod_printk: sym_mod_printk [0-9]+$' "$out" ||
		fail "sym_mod's call site is not named"
	grep -qE ' bprint: +0x[0-9a-f]+: sym_app_printk [0-9]+$' "$out" ||
		fail "sym_app's call site is named (or missing) although its path is a FIFO now"

	# A program run from a private /tmp: maps says /tmp/sym_app, which is the process's.
	ns_start env -u TREV_SOCKET_DIR -u XDG_RUNTIME_DIR \
		sh -c 'cp "$0" /tmp/sym_app && exec /tmp/sym_app wait' "$TREV_BUILD_DIR/tests/sym_app"
	[ -e /tmp/sym_app ] && fail "the private /tmp is not private"
	"$trev" record -e trev_test:tt_ints -o "$T/ns.dat" -p "$app" >"$out" 2>"$errf" &
	rec=$!
	for _ in $(seq $((WAIT_GUARD * 20))); do
		[ "$(read_events)" -ge 30 ] && break
		sleep 0.05
	done
	[ "$(read_events)" -ge 30 ] || fail "trev record read no events of sym_app in a private /tmp"
	kill -INT "$rec"
	wait "$rec" || fail "trev record -p of a process with a private /tmp failed"
	trace-cmd report -i "$T/ns.dat" >"$out" 2>/dev/null || fail "trace-cmd report ns.dat failed"
	grep -qE ' bprint: +sym_app_printk: sym_app_printk [0-9]+$' "$out" ||
		fail "sym_app's call site in a private /tmp is not named"
fi
echo "cli_trust: all checks passed"
