"""Screenshots as data: Rect (a wlr_box) and Image, an RGB picture with bulk
(bytes/int) analysis, so a full 1280x720 pass takes milliseconds."""

from .checks import check, fail
from .defaults import BACKGROUND

# ---------------------------------------------------------------------------
# Rectangles and images


class Rect(tuple):
    """(x, y, w, h), like struct wlr_box. x2/y2 are exclusive."""

    __slots__ = ()

    def __new__(cls, x, y, w, h):
        return tuple.__new__(cls, (int(x), int(y), int(w), int(h)))

    x = property(lambda self: self[0])
    y = property(lambda self: self[1])
    w = property(lambda self: self[2])
    h = property(lambda self: self[3])
    x2 = property(lambda self: self[0] + self[2])
    y2 = property(lambda self: self[1] + self[3])

    def contains(self, px, py):
        return self.x <= px < self.x2 and self.y <= py < self.y2

    def center(self):
        return (self.x + self.w // 2, self.y + self.h // 2)

    def inset(self, d):
        return Rect(self.x + d, self.y + d, max(0, self.w - 2 * d), max(0, self.h - 2 * d))

    def intersect(self, other):
        x1, y1 = max(self.x, other.x), max(self.y, other.y)
        x2, y2 = min(self.x2, other.x2), min(self.y2, other.y2)
        return Rect(x1, y1, max(0, x2 - x1), max(0, y2 - y1))

    def __repr__(self):
        return f"Rect(x={self.x}, y={self.y}, w={self.w}, h={self.h})"


def _match_table(value, tol):
    return bytes(1 if abs(i - value) <= tol else 0 for i in range(256))


_NONZERO = bytes([0] + [1] * 255)


def _popcount(n):
    try:
        return n.bit_count()
    except AttributeError:  # Python < 3.10
        return bin(n).count("1")


class Image:
    """An RGB screenshot. Analysis uses bytes/int bulk operations, so a full
    1280x720 pass takes milliseconds, not seconds."""

    def __init__(self, width, height, data):
        check(len(data) == width * height * 3, "image data size mismatch")
        self.width = width
        self.height = height
        self.data = bytes(data)

    @classmethod
    def from_ppm(cls, blob):
        # P6 <ws> width <ws> height <ws> maxval <single ws> data; '#' comments.
        tokens = []
        pos = 0
        n = len(blob)
        while len(tokens) < 4:
            while pos < n and blob[pos:pos + 1].isspace():
                pos += 1
            if pos < n and blob[pos:pos + 1] == b"#":
                while pos < n and blob[pos:pos + 1] not in (b"\n", b"\r"):
                    pos += 1
                continue
            start = pos
            while pos < n and not blob[pos:pos + 1].isspace() and blob[pos:pos + 1] != b"#":
                pos += 1
            if start == pos:
                fail(f"truncated PPM header ({n} bytes)")
            tokens.append(blob[start:pos])
        pos += 1  # the single whitespace after maxval
        if tokens[0] != b"P6":
            fail(f"not a binary PPM (magic {tokens[0]!r})")
        try:
            w, h, maxval = int(tokens[1]), int(tokens[2]), int(tokens[3])
        except ValueError:
            fail(f"bad PPM header {tokens!r}")
        if not (0 < w <= 32768 and 0 < h <= 32768):
            fail(f"absurd PPM size {w}x{h}")
        if maxval != 255:
            fail(f"unsupported PPM maxval {maxval}")
        data = blob[pos:pos + w * h * 3]
        if len(data) != w * h * 3:
            fail(f"truncated PPM data: {len(data)} of {w * h * 3} bytes")
        return cls(w, h, data)

    def to_ppm(self):
        return b"P6\n%d %d\n255\n" % (self.width, self.height) + self.data

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.to_ppm())
        return path

    @property
    def rect(self):
        return Rect(0, 0, self.width, self.height)

    def pixel(self, x, y):
        check(0 <= x < self.width and 0 <= y < self.height,
              f"pixel ({x},{y}) outside {self.width}x{self.height}")
        i = (y * self.width + x) * 3
        return tuple(self.data[i:i + 3])

    def _region(self, rect):
        """Raw bytes of rect (clipped to the image), and the clipped rect."""
        r = self.rect if rect is None else Rect(*rect).intersect(self.rect)
        if r == self.rect:
            return self.data, r
        stride = self.width * 3
        rows = [self.data[y * stride + r.x * 3:y * stride + r.x2 * 3] for y in range(r.y, r.y2)]
        return b"".join(rows), r

    def crop(self, rect):
        data, r = self._region(rect)
        return Image(r.w, r.h, data)

    def mask(self, color, tol=0, rect=None, invert=False, exclude=()):
        """One byte per pixel of rect: 1 where the pixel is within tol of
        color on every channel (or, with invert, where it is not). Pixels in
        the exclude rects are 0. Returns (mask bytes, clipped rect)."""
        data, r = self._region(rect)
        n = r.w * r.h
        if n == 0:
            return b"", r
        m = -1
        for c in range(3):
            ch = data[c::3].translate(_match_table(color[c], tol))
            m &= int.from_bytes(ch, "little")
        if invert:
            m ^= int.from_bytes(b"\x01" * n, "little")
        out = bytearray(m.to_bytes(n, "little"))
        for ex in exclude:
            e = Rect(*ex).intersect(r)
            if e.w and e.h:
                zero = bytes(e.w)
                for y in range(e.y, e.y2):
                    off = (y - r.y) * r.w + (e.x - r.x)
                    out[off:off + e.w] = zero
        return bytes(out), r

    def count(self, color, tol=0, rect=None, exclude=()):
        """Number of pixels within tol of color in rect."""
        m, _ = self.mask(color, tol, rect, exclude=exclude)
        return m.count(1)

    def count_not(self, color, tol=0, rect=None, exclude=()):
        m, _ = self.mask(color, tol, rect, invert=True, exclude=exclude)
        return m.count(1)

    @staticmethod
    def _mask_bbox(m, r):
        if not m:
            return None
        one = b"\x01"
        y0 = y1 = None
        x0, x1 = r.w, -1
        for yy in range(r.h):
            row = m[yy * r.w:(yy + 1) * r.w]
            a = row.find(one)
            if a < 0:
                continue
            b = row.rfind(one)
            if y0 is None:
                y0 = yy
            y1 = yy
            x0 = min(x0, a)
            x1 = max(x1, b)
        if y0 is None:
            return None
        return Rect(r.x + x0, r.y + y0, x1 - x0 + 1, y1 - y0 + 1)

    def bbox(self, color, tol=0, rect=None, exclude=()):
        """Bounding box of the pixels matching color, or None."""
        m, r = self.mask(color, tol, rect, exclude=exclude)
        return self._mask_bbox(m, r)

    def bbox_not(self, color=BACKGROUND, tol=0, rect=None, exclude=()):
        """Bounding box of the pixels NOT matching color (default: of
        everything that is not the desktop background), or None."""
        m, r = self.mask(color, tol, rect, invert=True, exclude=exclude)
        return self._mask_bbox(m, r)

    def _diff_mask(self, other, rect):
        check((self.width, self.height) == (other.width, other.height),
              "diff of images of different sizes")
        a, r = self._region(rect)
        b, _ = other._region(rect)
        n = r.w * r.h
        if n == 0:
            return 0, r
        x = (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")
        x = x.translate(_NONZERO)
        m = 0
        for c in range(3):
            m |= int.from_bytes(x[c::3], "little")
        return m, r

    def diff_count(self, other, rect=None):
        """Number of pixels of rect that differ (any channel) from other."""
        m, _ = self._diff_mask(other, rect)
        return _popcount(m)

    def diff_bbox(self, other, rect=None):
        """Bounding box of the pixels of rect that differ from other, or None."""
        m, r = self._diff_mask(other, rect)
        return self._mask_bbox(m.to_bytes(r.w * r.h, "little"), r) if m else None

    def frame_count(self, rect, color, width=2, tol=0):
        """(matching, total) pixels in the width-pixel frame just inside rect:
        how much of a border of that colour is visible."""
        r = Rect(*rect)
        parts = [
            Rect(r.x, r.y, r.w, width),
            Rect(r.x, r.y2 - width, r.w, width),
            Rect(r.x, r.y + width, width, r.h - 2 * width),
            Rect(r.x2 - width, r.y + width, width, r.h - 2 * width),
        ]
        match = total = 0
        for p in parts:
            p = p.intersect(self.rect)
            total += p.w * p.h
            match += self.count(color, tol, p)
        return match, total

    def colors(self, rect=None, top=8):
        """Most common colours in rect (diagnostics)."""
        data, _ = self._region(rect)
        hist = {}
        step = max(1, len(data) // 3 // 20000) * 3  # sample at most ~20k pixels
        for i in range(0, len(data) - 2, step):
            k = data[i:i + 3]
            hist[k] = hist.get(k, 0) + 1
        best = sorted(hist.items(), key=lambda kv: -kv[1])[:top]
        return [(tuple(k), v) for k, v in best]
