#!/usr/bin/env python3
"""The harness's reference-image machinery against plain per-pixel Python:
PNG read back exactly, including rows filtered as other tools write them
(the references use filter 0 only, so nothing else reaches those paths);
compare_images counts exactly the pixels off by more than the tolerance on
some channel, outside the excluded rects; the diff image marks exactly
those. No compositor: a unit test of harness/png.py and reference.py."""
import os
import random
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Image, TestFailure, check, compare_images, log  # noqa: E402
from harness.png import from_png, to_png  # noqa: E402
from harness.reference import IGNORED, diff_image  # noqa: E402


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def png_filtered(img, alpha):
    """img as PNG with row filters 0..4 in turn (and an alpha channel if
    asked), written the slow, obvious way."""
    bpp = 4 if alpha else 3
    stride = img.width * bpp
    raw, prev = [], bytes(stride)
    for y in range(img.height):
        row = bytearray()
        for x in range(img.width):
            row += bytes(img.pixel(x, y)) + (bytes([x & 0xff]) if alpha else b"")
        kind = y % 5
        out = bytearray(stride)
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            pred = (0, a, b, (a + b) >> 1, paeth(a, b, c))[kind]
            out[i] = (row[i] - pred) & 0xff
        raw.append(bytes([kind]) + bytes(out))
        prev = bytes(row)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))

    ihdr = struct.pack(">IIBBBBB", img.width, img.height, 8, 6 if alpha else 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"".join(raw))) + chunk(b"IEND", b""))


def expect_failure(fn, what):
    try:
        fn()
    except TestFailure as e:
        log(f"{what}: refused ({e})")
        return
    check(False, f"{what} was accepted")


def main():
    rng = random.Random(15)
    w, h = 41, 23
    # The first pixel black: at tolerance 254 a pixel 255 off must still count.
    img = Image(w, h, bytes(3) + bytes(rng.randrange(256) for _ in range(w * h * 3 - 3)))

    check(from_png(to_png(img)).data == img.data, "to_png/from_png changed the pixels")
    for alpha in (False, True):
        got = from_png(png_filtered(img, alpha))
        check(got.data == img.data, f"a PNG with filters 0-4 (alpha {alpha}) read back wrong")
    blob = bytearray(to_png(img))
    blob[45] ^= 1  # inside IDAT's data: its CRC no longer matches
    expect_failure(lambda: from_png(bytes(blob)), "a PNG with a corrupt chunk")
    expect_failure(lambda: from_png(b"P6\n1 1\n255\n\0\0\0"), "a PPM passed as PNG")

    exclude = [(5, 3, 7, 4), (30, 15, 20, 20)]
    for tol in (0, 1, 2, 9, 254, 255):
        off = bytearray(min(255, max(0, v + rng.choice((-255, -10, -3, -2, -1, 0, 0,
                                                        1, 2, 3, 10, 255))))
                        for v in img.data)
        off[0] = 255
        other = Image(w, h, bytes(off))
        count, mask = compare_images(img, other, tol, exclude)
        want = bytearray(w * h)
        for y in range(h):
            for x in range(w):
                if any(ex[0] <= x < ex[0] + ex[2] and ex[1] <= y < ex[1] + ex[3]
                       for ex in exclude):
                    continue
                a, b = img.pixel(x, y), other.pixel(x, y)
                want[y * w + x] = any(abs(a[c] - b[c]) > tol for c in range(3))
        check(mask == bytes(want), f"tolerance {tol}: compare_images marks other pixels "
                                   "than a per-pixel loop")
        check(count == sum(want), f"tolerance {tol}: count {count}, marked {sum(want)}")
        diff = diff_image(img, mask)
        for i in range(w * h):
            px = tuple(diff.data[3 * i:3 * i + 3])
            dim = tuple(v // 4 for v in img.data[3 * i:3 * i + 3])
            check(px == (IGNORED if want[i] else dim),
                  f"tolerance {tol}: diff pixel {i} is {px}")
        log(f"tolerance {tol}: {count} of {w * h} pixels differ, as a per-pixel loop says")
    expect_failure(lambda: compare_images(img, Image(1, 1, b"\0\0\0"), 0),
                   "a compare of pictures of different sizes")


if __name__ == "__main__":
    try:
        main()
    except TestFailure as e:
        print(f"FAIL: harness_images: {e}", file=sys.stderr)
        sys.exit(1)
    print("PASS: harness_images")
