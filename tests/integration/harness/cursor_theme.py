"""A cursor theme of the test's own, so that what an output shows says which
cursor image it got and where, whatever cursor themes the machine has:
left_ptr is a 24x24 red square at nominal size 24 and a 48x48 green one at
size 48, hotspot 0,0 (its top-left pixel is the pointer's). Write it into a
folder, point XCURSOR_PATH there and set `cursor-theme = smt-test`
(CURSOR_THEME_CONFIG) before the session starts."""
import os
import struct

RED = (255, 0, 0)
GREEN = (0, 255, 0)
SQUARES = {24: (0xFFFF0000, RED), 48: (0xFF00FF00, GREEN)}  # nominal size: ARGB, RGB
CURSOR_COLOURS = tuple(colour for _, colour in SQUARES.values())

CURSOR_THEME_CONFIG = """
[general]
cursor-theme = smt-test
cursor-size = 24
"""


def xcursor_file(sizes):
    """An Xcursor file holding one square image per nominal size, hotspot
    0,0 (the format of libXcursor's xcursor.c)."""
    image_type = 0xFFFD0002
    header_len, toc_len, chunk_header_len = 16, 12, 36
    out = struct.pack("<4sIII", b"Xcur", header_len, 0x10000, len(sizes))
    pos = header_len + toc_len * len(sizes)
    chunks = b""
    for size, argb in sizes:
        out += struct.pack("<III", image_type, size, pos)
        chunk = struct.pack("<IIIIIIIII", chunk_header_len, image_type, size, 1,
                            size, size, 0, 0, 0)
        chunk += struct.pack("<I", argb) * (size * size)
        chunks += chunk
        pos += len(chunk)
    return out + chunks


def write_theme(root):
    cursors = os.path.join(root, "smt-test", "cursors")
    os.makedirs(cursors)
    with open(os.path.join(cursors, "left_ptr"), "wb") as f:
        f.write(xcursor_file([(size, argb) for size, (argb, _) in SQUARES.items()]))
    with open(os.path.join(root, "smt-test", "index.theme"), "w") as f:
        f.write("[Icon Theme]\nName=smt-test\n")


def session_with_theme(session):
    """Starts a Session made with start=False after writing the theme into
    its temporary folder and pointing XCURSOR_PATH there."""
    themes = os.path.join(session.tmp, "icons")
    write_theme(themes)
    session.env["XCURSOR_PATH"] = themes  # (the environment is made at Session())
    session.start()
