"""PNG for reference images and what a failed comparison writes, in the
standard library (zlib): 8-bit RGB or RGBA, not interlaced. PNG rather than
the PPM grim gives us because a reference lives in git and is looked at in
a browser."""

import struct
import zlib

from .checks import fail
from .images import Image

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))


def to_png(img):
    """The image as PNG bytes. Every row uses filter 0 (none), so reading a
    reference back is one bulk copy per row, not a loop per byte."""
    stride = img.width * 3
    rows = b"".join(b"\0" + img.data[y * stride:(y + 1) * stride] for y in range(img.height))
    return (_SIGNATURE
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", img.width, img.height, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(rows, 9))
            + _chunk(b"IEND", b""))


def write_png(img, path):
    with open(path, "wb") as f:
        f.write(to_png(img))
    return path


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind, row, prev, bpp):
    """Undo one row's filter (PNG spec 9.2). Filter 0 is what to_png writes;
    the others are for a reference some other tool saved."""
    if kind == 0:
        return row
    out = bytearray(row)
    n = len(out)
    for i in range(n):
        left = out[i - bpp] if i >= bpp else 0
        up = prev[i]
        if kind == 1:
            pred = left
        elif kind == 2:
            pred = up
        elif kind == 3:
            pred = (left + up) >> 1
        elif kind == 4:
            pred = _paeth(left, up, prev[i - bpp] if i >= bpp else 0)
        else:
            fail(f"PNG row filter {kind} does not exist")
        out[i] = (out[i] + pred) & 0xff
    return bytes(out)


def from_png(blob, what="PNG"):
    """An Image from PNG bytes (8-bit RGB or RGBA; alpha is dropped: a
    reference is a screenshot, opaque)."""
    if blob[:8] != _SIGNATURE:
        fail(f"{what}: not a PNG file")
    pos, header, idat = 8, None, []
    while pos + 8 <= len(blob):
        length, kind = struct.unpack(">I4s", blob[pos:pos + 8])
        data = blob[pos + 8:pos + 8 + length]
        crc = blob[pos + 8 + length:pos + 12 + length]
        if len(data) != length or len(crc) != 4 or \
                struct.unpack(">I", crc)[0] != zlib.crc32(kind + data) & 0xffffffff:
            fail(f"{what}: chunk {kind!r} truncated or corrupt")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            idat.append(data)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None or not idat:
        fail(f"{what}: no IHDR or no IDAT chunk")
    w, h, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        fail(f"{what}: only 8-bit RGB/RGBA, not interlaced, is read "
             f"(depth {depth}, colour type {colour}, interlace {interlace})")
    if not (0 < w <= 32768 and 0 < h <= 32768):
        fail(f"{what}: absurd size {w}x{h}")
    bpp = 3 if colour == 2 else 4
    stride = w * bpp
    raw = zlib.decompress(b"".join(idat))
    if len(raw) != h * (stride + 1):
        fail(f"{what}: {len(raw)} bytes of pixel data, expected {h * (stride + 1)}")
    rows, prev = [], bytes(stride)
    for y in range(h):
        start = y * (stride + 1)
        prev = _unfilter(raw[start], raw[start + 1:start + 1 + stride], prev, bpp)
        rows.append(prev)
    data = b"".join(rows)
    if bpp == 4:
        rgb = bytearray(w * h * 3)
        for c in range(3):
            rgb[c::3] = data[c::4]
        data = bytes(rgb)
    return Image(w, h, data)


def read_png(path):
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        fail(f"cannot read {path}: {e}")
    return from_png(blob, path)
