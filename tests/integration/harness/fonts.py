"""The fonts every process of a session sees: the suite's, not the
machine's (docs/reliability.md, "Fonts in tests"). meson's default test
setup exports the same; a test run by hand gets them from here too, and a
FONTCONFIG_* of the caller's shell cannot replace them."""

import os
import re

from .checks import fail

# fontconfig's whole configuration: fonts-dejavu-core only, generic names pinned.
FONTS_CONF = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                          "..", "..", "fonts", "fonts.conf"))
# Xwayland's core font path (smt-xwayland passes it as -fp): xfonts-base's
# misc fonts (xterm's "fixed", x11perf's 6x13) and the server's built-ins,
# not the Type1/75dpi/100dpi directories other packages fill.
X_FONT_PATH = "/usr/share/fonts/X11/misc,built-ins"
# Where the suite's fonts come from (scripts/deps.sh installs both), so that
# a machine without them is told what to install.
FACES_PACKAGE = "fonts-dejavu-core"
X_MISC = "/usr/share/fonts/X11/misc"
X_MISC_PACKAGE = "xfonts-base"
X_MISC_FILES = ("fonts.dir", "fonts.alias")


def _suite_faces():
    """The font files fonts.conf accepts (its <acceptfont> globs are whole
    paths): the only faces a session's processes can load."""
    with open(FONTS_CONF) as f:
        accept = re.search(r"<acceptfont>(.*?)</acceptfont>", f.read(), re.S)
    return frozenset(re.findall(r"<glob>([^<*?]+)</glob>", accept.group(1)))


SUITE_FACES = _suite_faces()


def missing_suite_fonts():
    """What of the suite's fonts this machine lacks: (path, package) pairs."""
    missing = [(p, FACES_PACKAGE) for p in sorted(SUITE_FACES) if not os.path.isfile(p)]
    missing += [(os.path.join(X_MISC, f), X_MISC_PACKAGE) for f in X_MISC_FILES
                if not os.path.isfile(os.path.join(X_MISC, f))]
    return missing


def require_suite_fonts():
    """Fail, naming the packages, when the suite's fonts are not installed:
    without them every text-drawing program waits for a font it never gets
    and a test times out on something else (foot's window, smt-demo's frame)."""
    missing = missing_suite_fonts()
    if missing:
        packages = sorted({pkg for _, pkg in missing})
        fail(f"the suite's fonts are not installed: {', '.join(p for p, _ in missing)} "
             f"missing (Debian package {', '.join(packages)}: scripts/deps.sh test installs "
             f"it)")


def pin_fonts(env):
    """Point env at the suite's fonts, in place."""
    for k in ("FONTCONFIG_PATH", "FONTCONFIG_SYSROOT"):
        env.pop(k, None)
    env["FONTCONFIG_FILE"] = FONTS_CONF
    env["SMT_XWAYLAND_FONT_PATH"] = X_FONT_PATH
    return env
