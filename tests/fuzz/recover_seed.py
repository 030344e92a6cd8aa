#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turn a flight recorder's region file and REGION.meta into an input of
fuzz_recover (tests/fuzz/fuzz_recover.c): the metadata, the region's size in
pages, and the region's data as extents, runs of 64 zero bytes left out (a hole
reads as zeros).

    recover_seed.py REGION OUTPUT [OFFSET=BYTE ...]

OFFSET=BYTE pairs change bytes of the region's data first (decimal or 0x...). The
seed tests/fuzz/seeds/fuzz_recover/tail-seq is the region of
`TREV_EVENTS=trev_test:tt_ints TREV_BUFFER_KB=8 TREV_FLIGHT=R TREV_FLIGHT_KEEP=1
rec_app 600 2` (both threads' buffers wrapped), with byte 6 of descriptor 0's
tail_seq set to 0x23 (DESC=$(od -An -t u8 -j 16 -N 8 R); OFFSET=DESC+86=0x23):
its oldest page is then in no slot, and trev recover spun on it for minutes.
"""
import os
import struct
import sys


def extents(fd, size):
    off = 0
    while off < size:
        try:
            data = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            return
        hole = os.lseek(fd, data, os.SEEK_HOLE)
        yield data, os.pread(fd, hole - data, data)
        off = hole


def main():
    region, output = sys.argv[1], sys.argv[2]
    pokes = {int(o, 0): int(b, 0) for o, b in (a.split('=') for a in sys.argv[3:])}
    with open(region + '.meta', 'rb') as f:
        meta = f.read()
    fd = os.open(region, os.O_RDONLY)
    size = os.fstat(fd).st_size
    blocks = {}
    for start, data in extents(fd, size):
        buf = bytearray(data)
        for o, b in pokes.items():
            if start <= o < start + len(buf):
                buf[o - start] = b
        for i in range(0, len(buf), 64):
            chunk = bytes(buf[i:i + 64])
            if chunk.strip(b'\0'):
                blocks[start + i] = chunk
    out = bytearray(struct.pack('<I', len(meta)) + meta + struct.pack('<I', size // 4096))
    run_at, run = None, b''
    for at in sorted(blocks) + [None]:
        if at is not None and run_at is not None and run_at + len(run) == at:
            run += blocks[at]
            continue
        if run_at is not None:
            out += struct.pack('<II', run_at, len(run)) + run
        if at is not None:
            run_at, run = at, blocks[at]
    with open(output, 'wb') as f:
        f.write(out)


if __name__ == '__main__':
    main()
