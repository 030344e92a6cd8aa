#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The control socket's two holds (docs/control-socket.md, "Holds"), driven over the raw
# protocol: the start-up hold (TREV_ATTACH_WAIT) ends on RELEASE or after its time-out; the
# exit hold (HOLD) answers when the process begins to exit, keeps it serving until the
# holding connection closes, and ends at once when the holder goes away.
set -uo pipefail
export LC_ALL=C

ctl_app="$TREV_BUILD_DIR/tests/ctl_app"
rec_app="$TREV_BUILD_DIR/tests/rec_app"
# wait_for, wait_gone, asleep (its fail is replaced below)
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
sockdir=$(mktemp -d)
chmod 700 "$sockdir"
export TREV_SOCKET_DIR="$sockdir"
work=$(mktemp -d)
pids=()

cleanup() {
	exec 2>/dev/null
	for p in "${pids[@]}"; do
		kill -KILL "$p" && wait "$p"
	done
	rm -rf "$sockdir" "$work"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	for f in "$work"/*; do echo "---- $f:" >&2; cat "$f" >&2; done
	exit 1
}

command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }

# client.py SOCKET ACTION...: a protocol client. Actions: hold (send HOLD, print the reply
# when it comes), release, read PATH; "wait" blocks until stdin closes.
cat >"$work/client.py" <<'PY'
import socket, struct, sys
MAGIC = 0x31565254
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
def reply():
    h = b""
    while len(h) < 20:
        b = s.recv(20 - len(h))
        if not b:
            print("closed", flush=True); sys.exit(0)
        h += b
    magic, op, res, handle, arg, n = struct.unpack("<IHHIiI", h)
    data = b""
    while len(data) < n:
        data += s.recv(n - len(data))
    return op, arg, data
def call(op, handle=0, arg=0, payload=b""):
    s.sendall(struct.pack("<IHHIiI", MAGIC, op, 0, handle, arg, len(payload)) + payload)
    return reply()
assert call(1, payload=struct.pack("<I", 3))[1] == 3
print("hello", flush=True)
args = sys.argv[2:]
while args:
    a = args.pop(0)
    if a == "hold":
        s.sendall(struct.pack("<IHHIiI", MAGIC, 12, 0, 0, 0, 0))
        print("hold-set %d" % reply()[1], flush=True)     # the hold counts
        print("hold-reply %d" % reply()[1], flush=True)   # the exit began
    elif a == "release":
        print("release %d" % call(11)[1], flush=True)
    elif a == "read":
        path = args.pop(0).encode()
        h = call(2, arg=1 | 16, payload=path)[1]
        op, n, data = call(3, handle=h, arg=4096, payload=struct.pack("<i", 0))
        print("read %d %s" % (n, data.decode().strip()), flush=True)
    elif a == "wait":
        sys.stdin.read()
PY

wait_line() {	# wait_line FILE REGEX WHAT: wait for a line, or fail saying WHAT did not happen
	wait_for "grep -qE -- '$2' '$1' 2>/dev/null" "$3"
}

# ---- start-up hold: held until RELEASE, which the program then passes. Held: once its
# socket is there, the program sleeps (or, not held, runs on and ends) and has not fired.
TREV_ATTACH_WAIT=60 "$rec_app" 10 >"$work/app1.out" 2>"$work/app1.err" &
app=$!; pids+=($app)
wait_for "[ -e '$sockdir/$app.sock' ] || pid_gone $app" "rec_app under TREV_ATTACH_WAIT made its socket"
wait_for "asleep $app || pid_gone $app" "rec_app under TREV_ATTACH_WAIT sleeps"
pid_gone "$app" && fail "rec_app under TREV_ATTACH_WAIT ended without a RELEASE"
grep -q fired "$work/app1.out" && fail "rec_app ran on before RELEASE"
tr '\0' '\n' </proc/$app/environ | grep >/dev/null TREV_ATTACH_WAIT || fail "environ lost TREV_ATTACH_WAIT"
python3 "$work/client.py" "$sockdir/$app.sock" release >"$work/rel.out" </dev/null ||
	fail "release client failed"
grep -q '^release 0$' "$work/rel.out" || fail "RELEASE was not answered 0"
wait "$app"; st=$?
[ $st = 0 ] || fail "rec_app exited $st after RELEASE"
grep -q '^fired 10$' "$work/app1.out" || fail "rec_app did not run after RELEASE"

# ---- start-up hold: the time-out passes, the program warns and runs on.
TREV_ATTACH_WAIT=1 "$rec_app" 10 >"$work/app2.out" 2>"$work/app2.err" || fail "rec_app failed"
grep -q '^fired 10$' "$work/app2.out" || fail "rec_app did not run after the time-out"
grep -q 'TREV_ATTACH_WAIT: no RELEASE from a recorder within 1 s; running on' "$work/app2.err" ||
	fail "no time-out warning"
# A bad value: one warning, no hold.
TREV_ATTACH_WAIT=abc "$rec_app" 1 >"$work/app3.out" 2>"$work/app3.err" || fail "rec_app failed"
grep -q "TREV_ATTACH_WAIT=abc: not 1..3600 seconds; ignored" "$work/app3.err" || fail "no warning for abc"

# ---- exit hold: the reply comes at exit; the process serves until the holder leaves.
"$ctl_app" 10 >"$work/ctl.out" 2>"$work/ctl.err" &
app=$!; pids+=($app)
wait_line "$work/ctl.out" '^ready' "ctl_app started"
mkfifo "$work/stdin"
python3 "$work/client.py" "$sockdir/$app.sock" hold read buffer_size_kb wait \
	<"$work/stdin" >"$work/hold.out" &
client=$!; pids+=($client)
exec 7>"$work/stdin"
wait_line "$work/hold.out" '^hold-set 1$' "HOLD was acknowledged: the hold counts"
grep -q hold-reply "$work/hold.out" && fail "HOLD answered before the exit"
kill -TERM "$app"
wait_line "$work/hold.out" '^hold-reply 0$' "HOLD was answered at exit"
wait_line "$work/hold.out" '^read 5 1408$' "the exiting process served the holder"
kill -0 "$app" 2>/dev/null || fail "the process exited while held"
exec 7>&-	# the holder hangs up: the exit goes on
wait "$client"
wait "$app"; st=$?
[ $st = 0 ] || fail "ctl_app exited $st after the hold"
grep -q 'exit held' "$work/ctl.err" && fail "the exit waited out the hold: the holder's hang-up did not end it"

# ---- exit hold: a holder killed before the exit holds nothing.
"$ctl_app" 10 >"$work/ctl2.out" 2>"$work/ctl2.err" &
app=$!; pids+=($app)
wait_line "$work/ctl2.out" '^ready' "ctl_app started"
python3 "$work/client.py" "$sockdir/$app.sock" hold >"$work/hold2.out" </dev/null &
client=$!
wait_line "$work/hold2.out" '^hold-set 1$' "HOLD was acknowledged: the hold counts"
kill -KILL "$client"; wait "$client" 2>/dev/null
kill -TERM "$app"
# The hold would last 10 s and then warn "exit held"; a freed connection lets exit() go on
# at once, without the warning. (Not a time limit: the warning tells the two apart.)
wait_gone "$app" "ctl_app exited after its holder was killed"
[ $rc = 0 ] || fail "ctl_app exited $rc"
grep -q 'exit held' "$work/ctl2.err" && fail "ctl_app waited out the hold of a killed holder"
echo "control holds: ok"
