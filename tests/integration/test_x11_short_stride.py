#!/usr/bin/env python3
"""No X client can get a wl_shm buffer with short rows onto the screen.

Xwayland makes a wl_shm buffer for every pixmap of depth 15 or more, and
for depth 15 and 16 names it XRGB8888 with 16-bit rows: a stride shorter
than its row of pixels (the compositor refuses such buffers to every
other client, ring/core_request_limits.c). The culling renderer leaves
such a buffer out (output/paint_direct.h, buffer_rows_fit); `render
scene`, wlroots' own renderer, would read past its rows. It cannot be
given one: rootless Xwayland has visuals of depth 24 and 32 only (no
window has a 15/16-bit pixmap), and Present, the one request that
attaches another pixmap to a window's surface, refuses a pixmap whose
depth is not the window's (BadMatch). This test pins both, and that a
depth-24 pixmap is presented (so the refusal is the depth's), with no
node left out of any frame meanwhile (render.nodes_unreadable)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402


def test(h):
    tool = os.environ.get("SMT_X11_PRESENT_DEPTH") or os.path.join(
        os.path.dirname(h.vpointer), "smt-x11-present-depth")
    with Session(h, x11=True) as s:
        for mode in ("culled", "scene"):
            check(s.control(f"render {mode}").get("ok"), f"render {mode} refused")
            out = s.run([tool, "16", "15", "24"], timeout=60).stdout.splitlines()
            log(f"{mode}: {out}")
            depths = out[0].split()[1:]
            check(out[0].startswith("visual-depths") and "16" not in depths
                  and "15" not in depths, f"a 15/16-bit visual: {out[0]!r}")
            check(out[1:] == ["16 refused 8", "15 refused 8", "24 presented"],
                  f"Present of 16, 15 and 24-bit pixmaps answered {out[1:]}")
        check(s.control("render culled").get("ok"), "render culled refused")
        s.screenshot()  # a frame rendered with culling since
        left_out = s.control("stats")["render"]["nodes_unreadable"]
        check(left_out == 0, f"{left_out} nodes with short rows left out of frames")
        s.check_alive()


if __name__ == "__main__":
    harness.main(test)
