#!/usr/bin/env python3
"""Firefox ESR as people run it: natively on Wayland and under X.

For each, with a fresh profile and a local page:
- the window maps with the page's title, maximized as Firefox asks on a
  1280x720 output, and fills the output;
- the page is drawn inside the window (its colour covers most of what the
  compositor says is the window's geometry);
- text typed with wtype reaches the page's text field (its input handler
  puts it into the title, which the compositor reports);
- restored from maximized the window fits the output; natively Firefox
  decorates itself (no title bar of ours), under X it asks for decorations
  and gets our title bar with its title, in the focused colours.
Firefox can take long to start on a busy machine: every wait is on a state
(the window, its title, the screen), with a generous bound.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import OUTPUT_H, OUTPUT_W, Rect, Session, check, log  # noqa: E402

PAGE_COLOUR = (0x40, 0xc0, 0x40)
FOCUSED_TITLE = (0x28, 0x55, 0x77)  # the default focused-title
START = 120  # seconds Firefox may take to show its first window

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>smtwc page</title></head>
<body style="background: #40c040; margin: 0">
<input id="t" autofocus oninput="document.title = 'typed ' + this.value">
</body></html>
"""

# No first-run pages, update checks or network: the window shows our page.
PREFS = """
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.auto", false);
user_pref("browser.tabs.warnOnClose", false);
user_pref("browser.sessionstore.resume_from_crash", false);
user_pref("network.captive-portal-service.enabled", false);
"""


def rect(w):
    return Rect(w["x"], w["y"], w["width"], w["height"])


def firefox_window(s, title):
    return next((w for w in s.windows() if (w["title"] or "").startswith(title)), None)


def run_firefox(s, label, env):
    profile = os.path.join(s.tmp, f"profile-{label}")
    os.makedirs(profile)
    with open(os.path.join(profile, "user.js"), "w") as f:
        f.write(PREFS)
    page = os.path.join(s.tmp, f"page-{label}.html")
    with open(page, "w") as f:
        f.write(PAGE)
    e = {"HOME": s.tmp, "MOZ_CRASHREPORTER_DISABLE": "1"}
    e.update(env)
    p = s.spawn(["firefox-esr", "--no-remote", "--profile", profile, "file://" + page],
                env=e, name=f"firefox-{label}")

    w = s.wait_until(lambda: firefox_window(s, "smtwc page"), timeout=START,
                     what=f"Firefox ({label}) to map a window titled 'smtwc page'")
    log(f"{label}: {w}")
    w = s.wait_until(lambda: (lambda v: v if v and v["maximized"] and not v["configure_pending"]
                              and rect(v) == Rect(0, 0, OUTPUT_W, OUTPUT_H) else None)(
                                  firefox_window(s, "smtwc page")),
                     timeout=30, what=f"Firefox ({label}) maximized over the whole output")

    def page_drawn(img):
        g = rect(firefox_window(s, "smtwc page") or w)
        return img.count(PAGE_COLOUR, rect=g) >= 0.5 * g.w * g.h
    s.wait_screenshot(page_drawn, timeout=60, what=f"Firefox ({label}) to draw the page")

    # Keyboard input reaches the page.
    s.type_text("hello")
    w = s.wait_until(lambda: firefox_window(s, "typed hello"), timeout=30,
                     what=f"the text typed into Firefox ({label}) to reach the page's title")
    check(w["focused"], f"Firefox ({label}) took typed text but is not focused: {w}")

    # Restored: inside the output, decorated the way it asked. (X windows
    # have no configure serials: the state settles when Firefox has drawn
    # at the size it was given.)
    s.key("logo+m")

    def boxes(v):
        t = v["title_bar"]
        return rect(v), Rect(t["x"], t["y"], t["width"], t["height"])

    def restored_inside():
        v = firefox_window(s, "typed hello")
        if v is None or v["maximized"] or v["configure_pending"]:
            return None
        g, bar = boxes(v)
        top = bar.y if bar.h else g.y
        inside = g.x >= 0 and top >= 0 and g.x2 <= OUTPUT_W and g.y2 <= OUTPUT_H
        return v if inside else None
    try:
        w = s.wait_until(restored_inside, timeout=30,
                         what=f"Firefox ({label}) restored from maximized, inside the output")
    finally:
        log(f"{label} restored: {firefox_window(s, 'typed hello')}")
    g, bar = boxes(w)
    return p, w, g, bar


def test(h):
    with Session(h, x11=True) as s:
        # The sanitizer build preloads ASan's runtime (with the instrumented
        # X shim) into what the session starts; Firefox, with its own
        # allocator, never shows a window under it. There it runs without
        # the preload (X through the plain socket); the normal build runs
        # it as the session starts it.
        if "libasan" in s.env.get("LD_PRELOAD", ""):
            log("Firefox runs without the session's preload (ASan runtime) in this build")
            s.env["LD_PRELOAD"] = ""
        p, w, g, bar = run_firefox(s, "wayland", {"MOZ_ENABLE_WAYLAND": "1",
                                                  "GDK_BACKEND": "wayland"})
        check(not w["server_side_decoration"] and bar.h == 0,
              f"native Firefox draws its own decorations, yet: {w}")
        p.terminate(timeout=10)
        s.wait_until(lambda: firefox_window(s, "typed hello") is None, timeout=30,
                     what="the native Firefox window to go")

        p, w, g, bar = run_firefox(s, "x11", {"MOZ_ENABLE_WAYLAND": "0", "GDK_BACKEND": "x11"})
        check(w["server_side_decoration"] and bar == Rect(g.x, g.y - bar.h, g.w, bar.h)
              and bar.h > 0, f"Firefox under X asks for decorations, yet: {w}")

        def title_bar_drawn(img):
            text = img.bbox((255, 255, 255), tol=105, rect=bar)
            return img.count(FOCUSED_TITLE, rect=bar) >= bar.w * bar.h // 2 and \
                text is not None and text.w >= 40
        s.wait_screenshot(title_bar_drawn, timeout=30,
                          what=f"our title bar {bar} with Firefox's title above it under X")
        p.terminate(timeout=10)


harness.main(test)
