#!/usr/bin/env python3
"""What the culling renderer shows of a window, whatever the geometry its
surface state asks for (session 36's red team of the render changes).

1. Byte-identical to wlroots' scene renderer (`render scene`), over an
   opaque XRGB window that shows through wherever the window above is
   translucent: ARGB with translucent rows, XRGB with an alpha byte of 0,
   buffer_scale 2, rotated and flipped buffers, a 1x1 viewporter crop
   stretched, a destination size, subsurfaces at negative offsets, a
   window wider than the output, an output at a negative position.
2. Viewporter crops with an offset show the crop (wlroots 0.15's pixman
   renderer scaled by the crop's size but ignored its corner, so the
   scene renderer is no reference here): the buffer outside the crop is
   magenta (smt-shm-geometry marker=1) and none of it may show, at output
   scale 1, 2 and rotated; at scale 1 the crop's corner pixel is exact.
3. A ring window at output scale 2 fills its window with its canvas, in
   both renderers (an empty source box was the node's output size to
   wlroots 0.15: the canvas showed 1:1 in a quarter of its window).
4. A client whose opaque region covers translucent pixels shows its own
   pixels there (as over black), never an older frame: a window under it
   closes, and none of its pixels may stay on screen."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Rect, Session, check, log  # noqa: E402

SAME_AS_SCENE = [
    ("argb", ["format=argb"]),
    ("xrgb-opaque", ["format=xrgb", "opaque=1"]),
    ("scale2", ["size=400x300", "scale=2"]),
    ("transform90", ["transform=1"]),
    ("transform180", ["transform=2"]),
    ("flipped270", ["transform=7", "format=xrgb"]),
    ("dest-scaled", ["dest=450,300"]),
    ("sub-negative", ["sub=-60,-40,150x100"]),
    ("sub-dest", ["sub=100,50,150x100", "subdest=80,60"]),
    ("wider-than-output", ["size=1500x300", "format=xrgb", "opaque=1"]),
]

CROPS = [
    ("crop-whole", ["crop=10,20,100,80"]),
    ("crop-dest", ["crop=10,20,100,80", "dest=200,160"]),
    ("crop-fraction", ["crop=10.5,20.25,100,80"]),
    ("crop-scale2", ["size=400x300", "scale=2", "crop=10,10,100,80"]),
    ("crop-transform180", ["transform=2", "crop=10,20,100,80"]),
]


def pattern_rgb(x, y):
    """smt-shm-geometry's pixel (x, y), premultiplied, as (r, g, b)."""
    r, g, b = (x * 3) & 0xff, (y * 5) & 0xff, (x ^ y) & 0x7f
    if (y // 8) % 4 == 3:
        return r >> 1, g >> 1, b >> 1
    return r, g, b


def tool_path(h):
    return os.environ.get("SMT_SHM_GEOMETRY") or os.path.join(
        os.path.dirname(h.vpointer), "smt-shm-geometry")


def show(s, tool, label, args):
    p = s.spawn([tool] + args, name=label)
    s.wait_until(lambda: "ready" in open(p.log_path).read(), timeout=15,
                 what=f"{label} shown")
    win = s.wait_window(lambda w: w["pid"] == p.pid, what=f"{label}'s window")
    return p, win


def compare_with_scene(s, label, failures):
    culled, scene, again, _, _ = s.frames_of_both_renderers(label)
    differ = s.renderer_differences(label, culled, (("scene renderer", scene),
                                                    ("full culled repaint", again)))
    if differ:
        failures.append(differ)
        log(differ)
    else:
        log(f"{label}: identical")


def magenta_in(img, rect):
    return img.count((0xff, 0x00, 0xff), tol=0x40, rect=rect)


def check_same_as_scene(h, failures):
    tool = tool_path(h)
    with Session(h, "same") as s:
        show(s, tool, "below", ["size=700x500", "format=xrgb"])
        for label, args in SAME_AS_SCENE:
            p, _ = show(s, tool, label, args)
            compare_with_scene(s, label, failures)
            p.terminate()
        s.run(["wlr-randr", "--output", "HEADLESS-1", "--pos", "-200,-100"])
        show(s, tool, "at-negative-output-position", ["sub=-60,-40,150x100"])
        compare_with_scene(s, "output-at-negative-position", failures)


def check_crops(h, failures):
    tool = tool_path(h)
    with Session(h, "crops") as s:
        for label, args in CROPS:
            p, win = show(s, tool, label, args + ["marker=1"])
            for scale, transform in (("1", "normal"), ("2", "normal"), ("1", "180")):
                s.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", scale,
                       "--transform", transform])
                img = s.wait_still(f"{label} at scale {scale}, transform {transform}")
                f = int(scale)
                inner = Rect((win["x"] + 2) * f, (win["y"] + 2) * f,
                             (win["width"] - 4) * f, (win["height"] - 4) * f)
                n = magenta_in(img, inner)
                what = f"{label} at scale {scale}, transform {transform}"
                if n:
                    path = s.save(img, f"{label}-s{scale}-{transform}")
                    failures.append(f"{what}: {n} pixels of the buffer outside the crop "
                                    f"shown (saved {path})")
                    log(failures[-1])
                else:
                    log(f"{what}: only the crop shown")
                if label == "crop-whole" and scale == "1" and transform == "normal":
                    got = img.pixel(win["x"], win["y"])[:3]
                    want = pattern_rgb(10, 20)
                    if tuple(got) != want:
                        failures.append(f"{label}: the window's corner is {got}, the crop's "
                                        f"corner pixel is {want}")
                        log(failures[-1])
            s.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", "1",
                   "--transform", "normal"])
            p.terminate()


def check_canvas_scale2(h, failures):
    demo = os.environ["SMT_DEMO"]
    with Session(h, "canvas-scale2") as s:
        s.spawn([demo, "--static"], name="demo")
        win = s.wait_window(lambda w: w["app_id"] == "smt-demo", what="the demo window")
        s.wait_still("the demo drawn")
        s.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", "2"])
        for mode in ("culled", "scene"):
            check(s.control(f"render {mode}").get("ok"), f"render {mode} refused")
            img = s.wait_still(f"the demo at scale 2, {mode}")
            # Its lower right quadrant: the canvas's "frame 0" text and
            # panels, or with the canvas at 1:1 its one-colour background.
            quad = Rect(2 * win["x"] + win["width"], 2 * win["y"] + win["height"],
                        win["width"], win["height"])
            quad = Rect(quad.x, quad.y, min(quad.w, img.width - quad.x),
                        min(quad.h, img.height - quad.y))
            colours = img.colors(rect=quad, top=1000)
            share = colours[0][1] / sum(n for _, n in colours)
            if share > 0.9:
                path = s.save(img, f"demo-scale2-{mode}")
                failures.append(f"the ring window at scale 2 ({mode}): {share:.0%} of its "
                                f"lower right quadrant is {colours[0][0]}, the canvas does "
                                f"not fill its window (saved {path})")
                log(failures[-1])
            else:
                log(f"the ring window at scale 2 ({mode}): {len(colours)} colours in its "
                    f"lower right quadrant, the commonest {share:.0%}")


def check_lying_opaque_region(h, failures):
    tool = tool_path(h)
    with Session(h, "liar") as s:
        victim, vwin = show(s, tool, "victim", ["size=700x500", "format=xrgb", "sub=0,0,700x500",
                                                 "subformat=xrgb"])
        # ARGB with translucent rows, its opaque region all but a 4-pixel
        # column: not opaque as a whole, so blended where it is not copied.
        liar, lwin = show(s, tool, "liar", ["size=300x200", "format=argb",
                                            "opaque=4,0,296,200"])
        s.wait_still("the liar over the victim")
        victim.terminate()
        img = s.wait_still("the victim gone")
        wrong = 0
        for y in range(0, lwin["height"], 3):
            for x in range(4, lwin["width"], 7):
                if tuple(img.pixel(lwin["x"] + x, lwin["y"] + y)[:3]) != pattern_rgb(x, y):
                    wrong += 1
        if wrong:
            path = s.save(img, "liar")
            failures.append(f"a window that calls translucent pixels opaque: {wrong} sampled "
                            f"pixels of its opaque region are not its own (saved {path})")
            log(failures[-1])
        else:
            log("a window that calls translucent pixels opaque shows its own pixels there")


def test(h):
    failures = []
    only = os.environ.get("RENDER_GEOMETRY_PARTS", "same,crops,canvas,liar").split(",")
    parts = (("same", check_same_as_scene), ("crops", check_crops),
             ("canvas", check_canvas_scale2), ("liar", check_lying_opaque_region))
    for name, part in parts:
        if name in only:
            part(h, failures)
    check(not failures, "; ".join(failures))


if __name__ == "__main__":
    harness.main(test)
