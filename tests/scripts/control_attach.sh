#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The control socket, from outside the traced process: the trev command's cat, write and ls
# on a running program (tests/control/ctl_app.c), streaming trace_pipe, error messages for
# each way attaching can fail, hostile bytes on the socket, the socket's permissions, and a
# forked child serving its own socket.
set -uo pipefail
export LC_ALL=C

app_bin="$TREV_BUILD_DIR/tests/ctl_app"
trev="$TREV_BUILD_DIR/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err
# ctl_app's forked child, which is not ours to wait for.
cli_cleanup_more() {
	for p in $(awk '/^child/ { print $2 }' "$out.app" 2>/dev/null); do
		kill -KILL "$p"
	done
}

# start_app ARGS...: run ctl_app, wait for its "ready PID" line
start_app() {
	: >"$out.app"	# before the start: wait_ready looks at it before the child opens it
	"$app_bin" "$@" >"$out.app" &
	pids+=($!)
	wait_ready "$out.app"
}

start_app 10 fork
# The child says "child PID socket|nosocket" once its own socket listens (or it has none).
wait_for "grep -q '^child ' '$out.app'" "ctl_app's forked child started" "cat '$out.app'"

# The socket and its directory: the user's alone.
[ "$(stat -c %a "$sockdir/$app.sock")" = 600 ] || fail "socket mode $(stat -c %a "$sockdir/$app.sock")"

# ls, write, cat.
run 0 "$trev" ls -p "$app"
has '^events/$'
has '^trace_pipe$'
has '^instances/$'
run 0 "$trev" ls -p "$app" events/trev_test
has '^tt_ints/$'
run 0 "$trev" write -p "$app" events/trev_test/tt_ints/enable 1
run 0 "$trev" cat -p "$app" events/trev_test/tt_ints/enable
[ "$(cat "$out")" = 1 ] || fail "enable reads '$(cat "$out")'"
wait_for "\"\$trev\" cat -p $app trace >\"\$out\" 2>\"\$errf\" &&
	grep -qE '^ +emitter-[0-9]+ +\[[0-9]{3}\] .{4} +[0-9]+\.[0-9]{6}: tt_ints: a=[0-9]+ b=[0-9]+ c=-?[0-9]+' \"\$out\"" \
	"trev cat trace shows a tt_ints line"
has '^# tracer: nop'

# A refused write: the errno and the error_log entry with its caret.
run 1 "$trev" write -a -p "$app" set_event nosuch:event
err_has '^trev: set_event: Invalid argument'
run 0 "$trev" cat -p "$app" error_log
has 'set_event'
run 1 "$trev" write -p "$app" -a instances/nope/set_event x
err_has 'No such file or directory'

run 1 "$trev" cat -p "$app" instances
err_has '^trev: instances: Is a directory$'
run 1 "$trev" ls -p "$app" nosuchdir
err_has 'No such file or directory'

# trace_pipe streams until the reader goes away; the process serves on afterwards.
run 0 "$trev" write -p "$app" trace ""
"$trev" cat -p "$app" trace_pipe >"$out" 2>"$errf" &
reader=$!
pids+=("$reader")
wait_for "grep -q 'tt_ints: a=' \"\$out\" || pid_gone $reader" "trev cat trace_pipe streamed an event"
pid_gone "$reader" && fail "trev cat trace_pipe ended instead of blocking and streaming"
kill -TERM "$reader"
wait_gone "$reader" "trev cat trace_pipe ended on SIGTERM"
run 0 "$trev" cat -p "$app" tracing_on
[ "$(cat "$out")" = 1 ] || fail "tracing_on reads '$(cat "$out")' after the streaming reader left"

# Each way attaching fails: one line, non-zero status.
run 1 "$trev" cat -p 999999999 trace
err_has '^trev: no process 999999999$'
sleep infinity & pids+=($!)
run 1 "$trev" cat -p $! trace
err_has "^trev: process $! does not serve trev"
TREV_SOCKET=0 "$app_bin" 10 >"$out.noserve" & pids+=($!)
noserve=$!
wait_for "grep -q '^ready' '$out.noserve'" "ctl_app with TREV_SOCKET=0 started"
run 1 "$trev" cat -p "$noserve" trace
err_has "TREV_SOCKET=0"
[ ! -e "$sockdir/$noserve.sock" ] || fail "TREV_SOCKET=0 made a socket"
run 2 "$trev" cat -p abc trace
err_has "^trev: -p takes a process id, not 'abc'"
run 2 "$trev" frobnicate
err_has "not a trev command"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	run 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$trev" cat -p "$app" trace
	err_has "belongs to another user"
fi

# Hostile bytes: an error reply or a closed connection, never a dead or hung process.
if command -v python3 >/dev/null; then
	python3 - "$sockdir/$app.sock" <<'PY' >"$out" 2>"$errf" || fail "hostile client script failed"
import socket, struct, sys
path = sys.argv[1]
MAGIC = 0x31565254
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)     # blocking: waits while the accept thread catches up
    s.settimeout(5)
    return s
def reply(s):
    h = b""
    while len(h) < 20:
        b = s.recv(20 - len(h))
        if not b:
            return None
        h += b
    magic, op, res, handle, arg, ln = struct.unpack("<IHHIiI", h)
    data = b""
    while len(data) < ln:
        data += s.recv(ln - len(data))
    return op, arg, data
# garbage: EPROTO (-71), then the server hangs up
s = conn(); s.sendall(b"GET / HTTP/1.0\r\n\r\n\x00\x00"); r = reply(s)
assert r and r[1] == -71, r
assert s.recv(1) == b""
# a payload longer than 1 MiB: EPROTO
s = conn(); s.sendall(struct.pack("<IHHIiI", MAGIC, 2, 0, 0, 0, (1 << 20) + 1)); r = reply(s)
assert r and r[1] == -71, r
# an unknown op: EOPNOTSUPP (-95), and the connection goes on
s = conn(); s.sendall(struct.pack("<IHHIiI", MAGIC, 77, 0, 0, 0, 0)); r = reply(s)
assert r and r[1] == -95, r
s.sendall(struct.pack("<IHHIiI", MAGIC, 1, 0, 0, 0, 4) + struct.pack("<I", 2)); r = reply(s)
assert r and r[1] == 2 and r[2].startswith(b"trev "), r
# HELLO settles on the client's version if the server speaks it (2 to 5), else says its own
for mine, theirs in [(3, 3), (4, 4), (5, 5), (1, 5), (9, 5)]:
    s.sendall(struct.pack("<IHHIiI", MAGIC, 1, 0, 0, 0, 4) + struct.pack("<I", mine)); r = reply(s)
    assert r and r[1] == theirs, (mine, r)
# MAP (op 13): an unknown flag is EINVAL with no descriptor; flag 2 (BUSY, version 4) hands
# over the region and the busy words, each sealed against shrinking; a second MAP is EBUSY
import fcntl, os
m = conn()
m.sendall(struct.pack("<IHHIiI", MAGIC, 13, 0, 0, 4, 0))
data, fds, flags, _ = socket.recv_fds(m, 20, 4)
assert len(data) == 20 and not fds and struct.unpack("<IHHIiI", data)[4] == -22, (data, fds)
m.sendall(struct.pack("<IHHIiI", MAGIC, 13, 0, 0, 2, 0))
data, fds, flags, _ = socket.recv_fds(m, 20, 4)
while len(data) < 20:
    data += m.recv(20 - len(data))
assert struct.unpack("<IHHIiI", data)[4] == 0 and len(fds) == 2, (data, fds)
F_GET_SEALS, F_SEAL_SHRINK = 1034, 2
for fd, magic in zip(fds, (0x62727674, 0x77627674)):      # "tvrb", "tvbw"
    assert fcntl.fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK, fd
    assert struct.unpack("<I", os.pread(fd, 4, 0))[0] == magic, fd
    os.close(fd)
m.sendall(struct.pack("<IHHIiI", MAGIC, 13, 0, 0, 0, 0)); r = reply(m)
assert r and r[1] == -16, r
m.close()
# UNSTAGE (15) and RESTAGE (14), version 5: EINVAL without a consuming MAP; after one,
# UNSTAGE below 16 KiB is EINVAL, and gives 0 bytes when the process staged nothing;
# RESTAGE of malformed records is EBADMSG (-74): a short record, a CPU past the process's,
# a page whose records do not fill its commit
s.sendall(struct.pack("<IHHIiI", MAGIC, 15, 0, 0, 16384, 0)); r = reply(s)
assert r and r[1] == -22, r
s.sendall(struct.pack("<IHHIiI", MAGIC, 14, 0, 0, 0, 4) + b"abcd"); r = reply(s)
assert r and r[1] == -22, r
m = conn()
m.sendall(struct.pack("<IHHIiI", MAGIC, 13, 0, 0, 1, 0))
data, fds, flags, _ = socket.recv_fds(m, 20, 4)
while len(data) < 20:
    data += m.recv(20 - len(data))
assert struct.unpack("<IHHIiI", data)[4] == 0 and len(fds) == 1, (data, fds)
os.close(fds[0])
m.sendall(struct.pack("<IHHIiI", MAGIC, 15, 0, 0, 4096, 0)); r = reply(m)
assert r and r[1] == -22, r
m.sendall(struct.pack("<IHHIiI", MAGIC, 15, 0, 0, 1 << 20, 0)); r = reply(m)
assert r and r[1] == 0 and r[2] == b"", r
page = struct.pack("<QQ", 0, 8) + struct.pack("<II", 1, 7) + bytes(4096 - 24)
for rec in [b"\0" * 15,
            struct.pack("<IIQ", 1 << 20, 0, 5),
            struct.pack("<IIQ", 0, 1, 0) + struct.pack("<IHH", 1, 0, 0) + page[:100],
            struct.pack("<IIQ", 0, 2, 0) + struct.pack("<IHH", 1, 0, 0) * 2 + page]:
    m.sendall(struct.pack("<IHHIiI", MAGIC, 14, 0, 0, 0, len(rec)) + rec); r = reply(m)
    assert r and r[1] == -74, (rec[:24], r)
m.sendall(struct.pack("<IHHIiI", MAGIC, 14, 0, 0, 0, 0)); r = reply(m)
assert r and r[1] == 0, r
m.close()
# bad handles, bad paths, bad flags
for op, handle, arg, payload, want in [
        (3, 9, 16, struct.pack("<i", 0), -9),      # READ of a handle never opened: EBADF
        (3, 0, 16, b"", -9),
        (4, 65, 0, b"x", -9),                      # WRITE
        (6, 1, 0, b"", -9),                        # CLOSE
        (2, 0, 1, b"tr\x00ace", -22),              # OPEN, a NUL in the path: EINVAL
        (2, 0, 1, b"", -22),
        (2, 0, 0x100, b"trace", -22),              # unknown open flags
        (2, 0, 1, b"../../etc/passwd", -2),        # outside the tree: ENOENT
        (7, 0, 0, b"x" * 5000, -22)]:              # STAT, path too long
    s.sendall(struct.pack("<IHHIiI", MAGIC, op, 0, handle, arg, len(payload)) + payload)
    r = reply(s)
    assert r and r[1] == want, (op, handle, payload[:20], r)
# a READ larger than the protocol allows: EINVAL
s.sendall(struct.pack("<IHHIiI", MAGIC, 2, 0, 0, 1, 5) + b"trace"); r = reply(s)
h = r[1]; assert h > 0, r
s.sendall(struct.pack("<IHHIiI", MAGIC, 3, 0, h, (1 << 20) + 1, 4) + struct.pack("<i", 0))
r = reply(s); assert r and r[1] == -22, r
# READ's flags (version 3): FULL with a time-out, an unknown flag, a payload of 12: EINVAL;
# FULL on a text file reads it as without the flag
for payload in [struct.pack("<iI", -1, 1), struct.pack("<iI", 0, 2), struct.pack("<iII", 0, 1, 0)]:
    s.sendall(struct.pack("<IHHIiI", MAGIC, 3, 0, h, 16, len(payload)) + payload)
    r = reply(s); assert r and r[1] == -22, (payload, r)
s.sendall(struct.pack("<IHHIiI", MAGIC, 3, 0, h, 16, 8) + struct.pack("<iI", 0, 1))
r = reply(s); assert r and r[1] == 16 and r[2].startswith(b"# tracer"), r
s.close()
# a half header, then gone
s = conn(); s.sendall(b"TRV"); s.close()
# 17 connections: the 17th is refused with EBUSY (-16) while 16 are served. The server lets
# the connections closed above go in its own time: until it has, some of the 16 are refused
# too, and they are tried again (for 60 s at most, a hang guard).
import time
def hello(c):
    try:
        c.sendall(struct.pack("<IHHIiI", MAGIC, 1, 0, 0, 0, 4) + struct.pack("<I", 4))
    except (BrokenPipeError, ConnectionResetError):
        pass    # refused at once: the refusal is still there to read
    try:
        r = reply(c)
    except ConnectionResetError:
        return None
    return r[1] if r else None
end = time.monotonic() + 60
while True:
    held = [conn() for _ in range(16)]
    res = [hello(c) for c in held]
    if all(r == 4 for r in res):
        break
    assert all(r in (4, -16, None) for r in res), res
    assert time.monotonic() < end, "closed connections still counted after 60 s: %s" % res
    for c in held: c.close()
    time.sleep(0.02)
extra = conn(); r = reply(extra)
assert r and r[1] == -16, r
for c in held: c.close()
print("hostile ok")
PY
	has '^hostile ok$'
fi
# Served again once the server has let the 17 closed connections go.
wait_for "\"\$trev\" cat -p $app tracing_on >\"\$out\" 2>\"\$errf\"" \
	"trev cat tracing_on is served after the hostile clients left"
kill -0 "$app" || fail "the traced process died"

# A forked child serves its own socket; the parent's stays.
child=$(awk '/^child/ { print $2 }' "$out.app")
[ -n "$child" ] || fail "ctl_app's child did not start"
pids+=("$child")
if grep -q '^child .* socket$' "$out.app"; then
	run 0 "$trev" write -p "$child" events/trev_test/tt_ints/enable 1
	run 0 "$trev" cat -p "$child" events/trev_test/tt_ints/enable
	[ "$(cat "$out")" = 1 ] || fail "the child's enable reads '$(cat "$out")'"
else
	echo "note: sanitizer builds serve no socket in forked children"
	[ -e "$sockdir/$child.sock" ] && fail "a child without a server has a socket"
	touch "$sockdir/$child.sock"	# stands for a killed process's socket below
fi
[ -S "$sockdir/$app.sock" ] || fail "the parent's socket is gone"

# A process that exits removes its socket; one killed leaves it, and the next process to start
# in that directory sweeps it away (the child stays a zombie: its parent never reaps it).
kill -KILL "$child"
wait_gone "$child" "ctl_app's child ended on SIGKILL"
[ -e "$sockdir/$child.sock" ] || fail "a killed process's socket vanished"
start_app 10
[ ! -e "$sockdir/$child.sock" ] || fail "a dead process's socket was not swept"
kill -TERM "$app"
wait_gone "$app" "ctl_app exited on SIGTERM"
[ ! -e "$sockdir/$app.sock" ] || fail "the socket outlived its process"
echo "control_attach: all checks passed"
