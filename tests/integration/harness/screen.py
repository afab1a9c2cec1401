"""Session methods that look at the screen: grim screenshots, waiting for a
picture, window frames, and comparing a picture with a reference image."""

import subprocess
import time

from .checks import TestFailure, fail, scaled
from .defaults import BACKGROUND, FOCUSED
from .images import Image, Rect
from .processes import Process, _preexec_client
from .programs import find_program
from . import reference


class ScreenMixin:
    # -- screenshots ------------------------------------------------------------

    def cursor_exclusion(self):
        """Rects screenshot analysis should ignore: around the pointer (the
        headless backend has no hardware cursor, so the cursor is in the
        screenshot)."""
        if self.pointer is None:
            return []
        x, y = self.pointer
        return [Rect(x - 32, y - 32, 80, 80)]

    def screenshot(self, output=None):
        argv = ["grim", "-t", "ppm"]
        if output:
            argv += ["-o", output]
        argv.append("-")
        last = None
        for attempt in range(3):
            popen = subprocess.Popen(
                [find_program("grim")] + argv[1:], env=self.client_env(),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.tmp, start_new_session=True, preexec_fn=_preexec_client)
            p = Process("grim", argv, popen, None)
            self.clients.append(p)
            try:
                out, err = popen.communicate(timeout=scaled(10))
            except subprocess.TimeoutExpired:
                p.terminate(1.0)
                popen.communicate()
                self.clients.remove(p)
                fail("grim did not finish within 10 s (screencopy not answered?)")
            self.clients.remove(p)
            if popen.returncode == 0:
                img = Image.from_ppm(out)
                self.last_image = img
                return img
            last = err.decode("utf-8", "replace")
            time.sleep(0.1)
        fail(f"grim failed (exit {popen.returncode}): {last}")

    def save(self, img, label):
        return self.h.save_image(img, f"{self.label}-{label}")


    def wait_screenshot(self, pred, timeout=10.0, what="screen condition", interval=0.1,
                        output=None):
        """Take screenshots (of one output if given) until pred(img) returns
        a true value; returns (img, value). On timeout the last screenshot
        is saved and its path is in the failure message."""
        deadline = time.monotonic() + scaled(timeout)
        img = None
        while True:
            self.check_alive()
            img = self.screenshot(output)
            v = pred(img)
            if v:
                return img, v
            if time.monotonic() > deadline:
                path = self.save(img, "timeout")
                fail(f"timed out after {scaled(timeout):.1f} s waiting for {what}; "
                     f"last screenshot: {path} (most common colours: {img.colors(top=6)})")
            time.sleep(interval)

    def wait_still(self, what, timeout=15.0, interval=0.1):
        """A screenshot once two in a row are identical."""
        prev = [None]

        def still(img):
            same = prev[0] is not None and img.diff_count(prev[0]) == 0
            prev[0] = img
            return img if same else None

        return self.wait_screenshot(still, timeout=timeout, what=f"a still screen ({what})",
                                    interval=interval)[0]

    def frames_of_both_renderers(self, label):
        """(culled, scene, again, before, after): the settled frame of the
        culling renderer (output/render.c), the scene renderer's full
        repaint of the same scene (`render scene`), the culling renderer's
        own full repaint after it (`render culled`), and the compositor's
        render stats from just before and just after that last repaint."""
        culled = self.wait_still(f"{label}, culled")
        self._render_with("scene")
        scene = self.wait_still(f"{label}, scene renderer")
        before = self.control("stats")["render"]
        self._render_with("culled")
        again = self.wait_still(f"{label}, culled after a full repaint")
        return culled, scene, again, before, self.control("stats")["render"]

    def _render_with(self, renderer):
        answer = self.control(f"render {renderer}")
        if not answer.get("ok"):
            fail(f"render {renderer} refused: {answer}")

    def renderer_differences(self, label, culled, others, exclude=()):
        """None if every (name, image) of others equals the culled frame
        outside the exclude rects; else what differs, where, and the two
        frames saved."""
        for name, img in others:
            count, mask = reference.compare_images(img, culled, 0, exclude)
            if count:
                paths = (self.save(culled, f"{label}-culled"), self.save(img, f"{label}-other"))
                return (f"{label}: {count} pixels differ between the culled frame and the "
                        f"{name}, within {Image._mask_bbox(mask, img.rect)}"
                        f"{f' (left out: {list(exclude)})' if exclude else ''} "
                        f"(saved {paths[0]}, {paths[1]})")
        return None

    def window_border(self, img, color=FOCUSED, min_w=50, min_h=50):
        """Bounding box of the pixels of a border colour if it looks like a
        window frame (big enough, frame mostly of that colour)."""
        r = img.bbox(color, exclude=self.cursor_exclusion())
        if r is None or r.w < min_w or r.h < min_h:
            return None
        match, total = img.frame_count(r, color)
        if match < 0.9 * total:
            return None
        return r

    def wait_for_border(self, color=FOCUSED, timeout=10.0, what=None, stable=True):
        """Wait for a window frame of this colour, stable over two
        consecutive screenshots. Returns (image, Rect)."""
        prev = [None]

        def pred(img):
            r = self.window_border(img, color)
            ok = r is not None and (not stable or r == prev[0])
            prev[0] = r
            return r if ok else None

        return self.wait_screenshot(pred, timeout, what or f"a window border of colour {color}")

    def only_background(self, img):
        """True if the screen shows nothing but the desktop background
        (ignoring the cursor)."""
        return img.count_not(BACKGROUND, exclude=self.cursor_exclusion()) == 0

    def _cursor_exclusion_in(self, r):
        """cursor_exclusion() in the coordinates of a crop at r."""
        return [Rect(e.x - r.x, e.y - r.y, e.w, e.h) for e in self.cursor_exclusion()]

    def check_reference(self, img, rect, name, tol=2, allowed=0):
        """Compare the rect of img with tests/integration/reference/NAME.png
        (harness/reference.py), ignoring the area around the cursor. The
        default tolerance is pixman's rounding: blending and scaling may
        differ by one or two per channel between its CPU-specific paths, and
        by nothing else on the same software."""
        r = Rect(*rect)
        reference.check_reference(self.h, img.crop(r), name, tol, allowed,
                                  self._cursor_exclusion_in(r))

    def wait_reference(self, locate, name, tol=2, allowed=0, timeout=10.0):
        """For a picture that settles (a client redrawing after a resize):
        take screenshots until the area locate(img) returns (a Rect, or None
        while there is none) matches the reference NAME, then return (img,
        rect). On timeout, fail as check_reference does on the last picture
        that had the area. When writing references, the picture written is
        the first one seen twice in a row."""
        last = [None]

        def settled(img):
            r = locate(img)
            if r is None:
                return None
            r = Rect(*r)
            crop = img.crop(r)
            prev, last[0] = last[0], (img, r, crop)
            if reference.updating():
                return r if prev is not None and prev[2].data == crop.data else None
            return r if reference.matches(crop, name, tol, allowed,
                                          self._cursor_exclusion_in(r)) else None

        try:
            img, r = self.wait_screenshot(settled, timeout, f"the picture of reference {name}")
        except TestFailure:
            self.check_alive()  # a dead compositor is the failure, not the picture
            if last[0] is None:
                raise
            img, r, _ = last[0]
        self.check_reference(img, r, name, tol, allowed)
        return img, r
