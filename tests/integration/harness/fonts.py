"""The fonts every process of a session sees: the suite's, not the
machine's (docs/reliability.md, "Fonts in tests"). meson's default test
setup exports the same; a test run by hand gets them from here too, and a
FONTCONFIG_* of the caller's shell cannot replace them."""

import os

# fontconfig's whole configuration: fonts-dejavu-core only, generic names pinned.
FONTS_CONF = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                          "..", "..", "fonts", "fonts.conf"))
# Xwayland's core font path (smt-xwayland passes it as -fp): xfonts-base's
# misc fonts (xterm's "fixed", x11perf's 6x13) and the server's built-ins,
# not the Type1/75dpi/100dpi directories other packages fill.
X_FONT_PATH = "/usr/share/fonts/X11/misc,built-ins"


def pin_fonts(env):
    """Point env at the suite's fonts, in place."""
    for k in ("FONTCONFIG_PATH", "FONTCONFIG_SYSROOT"):
        env.pop(k, None)
    env["FONTCONFIG_FILE"] = FONTS_CONF
    env["SMT_XWAYLAND_FONT_PATH"] = X_FONT_PATH
    return env
