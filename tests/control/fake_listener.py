#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A hostile `trace-cmd listen` for tests/scripts/cli_record_net.sh: it listens on a free
# loopback port, prints "port N" on stdout, takes one connection and answers as MODE says,
# then waits for the client to hang up (or for a signal).
#
#   fake_listener.py MODE
#
#   greeting   greets with "tracecnd" instead of "tracecmd"
#   v1         answers the version request with a NUL (a listener of protocol 1 only)
#   silent     greets, then never answers
#   no-ok      agrees on version 3, then says "NO" instead of "OK"
#   big        answers TINIT with a header claiming 1 MB
#   cpus       gives ports for one CPU more than asked for
#   port       gives a port list with "0" for the first CPU
#   junk       gives a port list with bytes after the last port
#   notsupp    answers TINIT with NOT_SUPP
#   midrun     a well-formed start (ports that accept and read the pages), then, once a
#              page has come on a data port, sends NOT_SUPP on the control connection
import socket
import struct
import sys
import threading


def msg(cmd, part=b"", data=b"", size=None):
    total = 12 + len(part) + len(data)
    return struct.pack(">III", size if size is not None else total, cmd, len(part)) + part + data


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b


def recv_msg(s):
    size, cmd, part = struct.unpack(">III", recv_exact(s, 12))
    return cmd, recv_exact(s, size - 12)


def data_port(got_page):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def serve():
        c, _ = srv.accept()
        while True:
            b = c.recv(65536)
            if not b:
                break
            got_page.set()
    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1]


def main():
    mode = sys.argv[1]
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    print("port", srv.getsockname()[1], flush=True)
    s, _ = srv.accept()
    s.sendall(b"tracecnd" if mode == "greeting" else b"tracecmd")
    if mode == "greeting":
        s.recv(64)
        return
    recv_exact(s, 5)                        # "-1V3\0"
    if mode == "v1":
        s.sendall(b"\0")
        s.recv(64)
        return
    s.sendall(b"V3\0")
    if mode == "silent":
        s.recv(64)                          # the magic; then nothing, until it hangs up
        s.recv(64)
        return
    recv_exact(s, 8)                        # the magic
    if mode == "no-ok":
        s.sendall(b"NO")
        s.recv(64)
        return
    s.sendall(b"OK")
    cmd, body = recv_msg(s)                 # TINIT
    cpus = struct.unpack(">I", body[:4])[0]
    if mode == "big":
        s.sendall(struct.pack(">III", 1 << 20, 2, 4))
    elif mode == "notsupp":
        s.sendall(msg(5))
    elif mode == "cpus":
        s.sendall(msg(2, struct.pack(">I", cpus + 1), b"1501\0" * (cpus + 1)))
    elif mode == "port":
        s.sendall(msg(2, struct.pack(">I", cpus), b"0\0" + b"1501\0" * (cpus - 1)))
    elif mode == "junk":
        s.sendall(msg(2, struct.pack(">I", cpus), b"1501\0" * cpus + b"x"))
    elif mode == "midrun":
        got_page = threading.Event()
        ports = [data_port(got_page) for _ in range(cpus)]
        s.sendall(msg(2, struct.pack(">I", cpus), b"".join(b"%d\0" % p for p in ports)))
        got_page.wait()
        s.sendall(msg(5))
    s.settimeout(120)
    try:
        while s.recv(65536):
            pass
    except (OSError, EOFError):
        pass


if __name__ == "__main__":
    main()
