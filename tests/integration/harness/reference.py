"""Reference images, as weston's tests use them: where a test knows every
pixel a picture should have, it compares the picture with a PNG kept in
tests/integration/reference/ instead of probing a few colours. A pixel
differs when one of its channels is off by more than a tolerance; the check
fails when more pixels differ than it allows. On failure the actual picture
and a diff image (differing pixels magenta, the rest dimmed) are written to
the log directory next to the test's log.

SMT_TEST_UPDATE_REFERENCES=1 makes every check write its reference from
what the test sees instead of comparing (areas the check ignores, such as
the cursor's, are painted magenta). Look at the new PNGs before committing
them: a reference is only as right as the picture it was taken from."""

import os

from .checks import fail, log
from .images import Image, Rect
from .png import read_png, write_png

REFERENCE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "reference")
IGNORED = (255, 0, 255)


def reference_path(name):
    return os.path.join(REFERENCE_DIR, f"{name}.png")


def _lanes16(channel):
    """One channel's bytes as an int with one 16-bit lane per pixel."""
    wide = bytearray(2 * len(channel))
    wide[0::2] = channel
    return int.from_bytes(wide, "little")


def _within(tol):
    """Tables for the low byte of a - b + 256: with high byte 1 the
    difference is low (a >= b), with high byte 0 it is 256 - low."""
    up = bytes(1 if v <= tol else 0 for v in range(256))
    down = bytes(1 if 256 - v <= tol else 0 for v in range(256))
    return up, down


def _compared(exclude, size):
    """One byte per pixel of an image of this size: 1 where it is compared."""
    w, h = size
    out = bytearray(b"\x01" * (w * h))
    for ex in exclude:
        e = Rect(*ex).intersect(Rect(0, 0, w, h))
        for y in range(e.y, e.y2):
            out[y * w + e.x:y * w + e.x2] = bytes(e.w)
    return bytes(out)


def compare_images(actual, expected, tol, exclude=()):
    """(count, mask): how many pixels differ by more than tol on some
    channel, and one byte per pixel, 1 where one does. Pixels in the exclude
    rects (image coordinates) are not compared. Bulk int arithmetic in
    16-bit lanes, so a whole output compares in well under a second."""
    if (actual.width, actual.height) != (expected.width, expected.height):
        fail(f"compare of a {actual.width}x{actual.height} picture with a "
             f"{expected.width}x{expected.height} one")
    n = actual.width * actual.height
    ones = int.from_bytes(b"\x01" * n, "little")
    borrow = int.from_bytes(b"\x00\x01" * n, "little")
    up, down = _within(tol)
    ok = ones
    for c in range(3):
        d = ((_lanes16(actual.data[c::3]) + borrow) - _lanes16(expected.data[c::3])
             ).to_bytes(2 * n, "little")
        low, high = d[0::2], int.from_bytes(d[1::2], "little")
        ok &= (high & int.from_bytes(low.translate(up), "little")) \
            | ((high ^ ones) & int.from_bytes(low.translate(down), "little"))
    bad = (ok ^ ones) & int.from_bytes(_compared(exclude, (actual.width, actual.height)),
                                       "little")
    mask = bad.to_bytes(n, "little")
    return mask.count(1), mask


def diff_image(actual, mask):
    """actual at a quarter of its brightness, with the pixels mask marks
    drawn in IGNORED's magenta: where a comparison failed, at a glance."""
    dim = bytes(v // 4 for v in range(256))
    n = actual.width * actual.height
    full = int.from_bytes(mask.translate(bytes([0] + [255] * 255)), "little")
    out = bytearray(3 * n)
    for c in range(3):
        ch = int.from_bytes(actual.data[c::3].translate(dim), "little")
        if IGNORED[c]:
            ch |= full
        else:
            ch &= ~full
        out[c::3] = ch.to_bytes(n, "little")
    return Image(actual.width, actual.height, out)


def _first_differences(actual, expected, mask, limit=4):
    out, pos = [], mask.find(1)
    while pos >= 0 and len(out) < limit:
        x, y = pos % actual.width, pos // actual.width
        out.append(f"({x},{y}) {actual.pixel(x, y)} vs {expected.pixel(x, y)}")
        pos = mask.find(1, pos + 1)
    return ", ".join(out)


def updating():
    """True when the checks write the references (SMT_TEST_UPDATE_REFERENCES)."""
    return os.environ.get("SMT_TEST_UPDATE_REFERENCES", "") not in ("", "0")


def matches(actual, name, tol, allowed, exclude=()):
    """Whether actual passes check_reference, without failing: for waiting
    until a picture has settled."""
    path = reference_path(name)
    if not os.path.exists(path):
        return False
    expected = read_png(path)
    if (expected.width, expected.height) != (actual.width, actual.height):
        return False
    return compare_images(actual, expected, tol, exclude)[0] <= allowed


def check_reference(h, actual, name, tol, allowed, exclude=()):
    """Fail unless actual matches reference/NAME.png: at most `allowed`
    pixels off by more than `tol` on a channel, outside the exclude rects.
    h (the Harness) says where to write the pictures of a failure."""
    path = reference_path(name)
    if updating():
        img = _paint(actual, exclude, IGNORED)
        os.makedirs(REFERENCE_DIR, exist_ok=True)
        write_png(img, path)
        log(f"reference {name}: written to {path} (SMT_TEST_UPDATE_REFERENCES)")
        return
    if not os.path.exists(path):
        saved = write_png(actual, h.save_path(f"{name}-actual", "png"))
        fail(f"no reference image {path}; the picture is in {saved}. Run the test with "
             f"SMT_TEST_UPDATE_REFERENCES=1 to write it (and look at it before committing)")
    expected = read_png(path)
    if (expected.width, expected.height) != (actual.width, actual.height):
        saved = write_png(actual, h.save_path(f"{name}-actual", "png"))
        fail(f"reference {name}: the picture is {actual.width}x{actual.height}, the reference "
             f"{path} is {expected.width}x{expected.height}; the picture is in {saved}")
    count, mask = compare_images(actual, expected, tol, exclude)
    total = actual.width * actual.height
    if count > allowed:
        saved = write_png(actual, h.save_path(f"{name}-actual", "png"))
        diff = write_png(diff_image(actual, mask), h.save_path(f"{name}-diff", "png"))
        fail(f"reference {name}: {count} of {total} pixels differ by more than {tol} on a "
             f"channel ({allowed} allowed), first: "
             f"{_first_differences(actual, expected, mask)}.\n"
             f"  reference: {path}\n  actual:    {saved}\n  diff:      {diff} (magenta)")
    log(f"reference {name}: {total - count} of {total} pixels match within {tol} "
        f"({count} differ, {allowed} allowed)")


def _paint(img, rects, color):
    data = bytearray(img.data)
    px = bytes(color)
    for r in rects:
        r = Rect(*r).intersect(img.rect)
        for y in range(r.y, r.y2):
            off = (y * img.width + r.x) * 3
            data[off:off + 3 * r.w] = px * r.w
    return Image(img.width, img.height, bytes(data))
