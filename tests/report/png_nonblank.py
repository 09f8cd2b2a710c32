#!/usr/bin/python3
"""Exit 0 when the PNG named on the command line shows something: decodes
its pixels (standard library only: zlib and the PNG filters) and wants more
than 1% of them to differ from the most common colour (the page's
background). tests/test_cmd_report.c runs it on headless Chromium's
screenshot of a report."""

import struct
import sys
import zlib
from collections import Counter


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                sys.exit(f"{path}: colour type {ctype}, depth {depth}: not what Chromium writes")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    prev, out = bytearray(stride), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.extend(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 7))  # every 7th pixel
        prev = line
    return out


def main():
    px = pixels(sys.argv[1])
    common = Counter(px).most_common(1)[0][1]
    share = 1 - common / len(px)
    print(f"{share:.1%} of sampled pixels differ from the background")
    return 0 if share > 0.01 else 1


if __name__ == "__main__":
    sys.exit(main())
