# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A fake trev control socket for tests/scripts/cli_trust.sh and cli_timeout.sh: what an
# attacker (or a broken process) could serve. python3 fake_server.py DIR PID LOG [HOW] binds
# DIR/PID.sock (PID "self": its own pid), prints "ready PID" and serves one connection at a
# time. HOW "silent": it reads what comes and never answers; "partial": it answers HELLO with
# the first 7 bytes of a header, then nothing; "noaccept": it never accepts (a backlog of 0:
# the first connect is queued, the next ones wait). Otherwise:
#
#   HELLO     a well-formed answer ("trev 0.1.0 pid PID")
#   OPEN P    handle 1 (P "open_handle": handle 4096; "silent_open": no answer, nor to
#             anything after it); P picks how READ and WRITE lie
#   READ      P "arg_gt_len": 2147483647 bytes announced, 12 sent; "len_gt_asked": 100 more
#             than asked; "wrong_op", "wrong_handle", "bad_magic", "reserved": that field
#             wrong; "tracing_on" lies as arg_gt_len (what trev stat reads); any other P:
#             "fake text from PID\n", then the end of the file
#   WRITE     P "write_lie": 100 bytes taken of what was sent; else all of them
#   READDIR P "bad_readdir": an entry named "../x"; else no entries
#   STAT, CLOSE, anything else: result 0, no payload
#
# LOG gets "conn N" when a client hangs up, N the bytes it had sent: 0 for a client that
# refused the socket after connecting. A connection whose first bytes are "mark" is logged as
# "mark" and closed (the script's way to know every earlier connection is logged).
import os
import signal
import socket
import struct
import sys

MAGIC = 0x31565254
REPLY = 0x8000
HDR = struct.Struct("<IHHIiI")

dirname, pid_arg, log_path = sys.argv[1:4]
how = sys.argv[4] if len(sys.argv) > 4 else ""
pid = os.getpid() if pid_arg == "self" else int(pid_arg)
path = os.path.join(dirname, "%d.sock" % pid)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(0 if how == "noaccept" else 8)
print("ready %d" % pid, flush=True)
if how == "noaccept":
    while True:
        signal.pause()


def log(line):
    with open(log_path, "a") as f:
        f.write(line + "\n")


def recv_exact(c, n, got):
    data = b""
    while len(data) < n:
        b = c.recv(n - len(data))
        if not b:
            return None
        data += b
        got[0] += len(b)
    return data


def reply(c, op, handle, arg, payload=b"", magic=MAGIC, reserved=0, rop=None):
    rop = (op | REPLY) if rop is None else rop
    c.sendall(HDR.pack(magic, rop, reserved, handle, arg, len(payload)) + payload)


def stall(c, got):
    while True:
        b = c.recv(65536)
        if not b:
            return
        got[0] += len(b)


def serve(c):
    got = [0]
    try:
        if c.recv(4, socket.MSG_PEEK) == b"mark":
            log("mark")
            return
        talk(c, got)
    except OSError:
        pass        # the client hung up mid-exchange (a reset): what it sent is counted
    log("conn %d" % got[0])


def talk(c, got):
    mode = ""
    done = False
    if how == "silent":
        stall(c, got)
    elif how == "partial":
        h = recv_exact(c, HDR.size, got)
        if h is not None:
            c.sendall(HDR.pack(MAGIC, 1 | REPLY, 0, 0, 3, 0)[:7])
            stall(c, got)
    while how not in ("silent", "partial"):
        h = recv_exact(c, HDR.size, got)
        if h is None:
            break
        magic, op, _, handle, arg, ln = HDR.unpack(h)
        data = recv_exact(c, ln, got) if ln else b""
        if data is None:
            break
        if op == 1:
            reply(c, op, handle, 3, b"trev 0.1.0 pid %d\n" % pid)
        elif op == 2:
            mode = data.decode(errors="replace")
            done = False
            if mode == "silent_open":
                stall(c, got)
                break
            reply(c, op, handle, 4096 if mode == "open_handle" else 1)
        elif op == 3:
            lie = "arg_gt_len" if mode == "tracing_on" else mode
            text = b"fake text from %d\n" % pid
            if lie == "arg_gt_len":
                reply(c, op, handle, 2147483647, b"x" * 12)
            elif lie == "len_gt_asked":
                reply(c, op, handle, arg + 100, b"y" * (arg + 100))
            elif lie == "wrong_op":
                reply(c, op, handle, 5, b"zzzzz", rop=2 | REPLY)
            elif lie == "wrong_handle":
                reply(c, op, 7, 5, b"zzzzz")
            elif lie == "bad_magic":
                reply(c, op, handle, 5, b"zzzzz", magic=0xDEADBEEF)
            elif lie == "reserved":
                reply(c, op, handle, 5, b"zzzzz", reserved=1)
            elif done:
                reply(c, op, handle, 0)
            else:
                done = True
                reply(c, op, handle, len(text), text)
        elif op == 4:
            reply(c, op, handle, 100 if mode == "write_lie" else ln)
        elif op == 8:
            name = data.decode(errors="replace")
            entries = struct.pack("<II", 0, 0o644) + b"../x\0" if name == "bad_readdir" else b""
            reply(c, op, handle, 0, entries)
        elif op == 7:
            reply(c, op, handle, 0, struct.pack("<II", 1, 0o755))
        else:
            reply(c, op, handle, 0)


while True:
    conn, _ = srv.accept()
    serve(conn)
    conn.close()
