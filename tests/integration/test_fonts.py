#!/usr/bin/env python3
"""The fonts a session's processes use are the suite's (tests/fonts/fonts.conf
and xfonts-base), not whatever the machine has installed or prefers
(issue 25): the compositor's title bars and foot have loaded DejaVu faces of
fonts-dejavu-core and no other font file; fontconfig answers the generic
names with them in every client; GTK's font names are the schemas' defaults; the session's Xwayland offers only
xfonts-base's misc fonts and its built-ins, so an Xaw program's default
font pattern cannot land on a Type1 or 75dpi font another package added.
tests/fonts/hostile_system.py runs this test again under a system font
preference the suite does not control; here it is the suite as it runs."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Session, check, log  # noqa: E402
from harness.fonts import SUITE_FACES, X_MISC  # noqa: E402

DEJAVU = "/usr/share/fonts/truetype/dejavu/"
FONT_FILE = re.compile(r"\.(ttf|ttc|otf|otc|pfb|pfa|pcf|pcf\.gz|woff2?)$", re.IGNORECASE)
GENERIC = {"monospace": "DejaVu Sans Mono", "mono": "DejaVu Sans Mono",
           "sans-serif": "DejaVu Sans", "sans": "DejaVu Sans", "serif": "DejaVu Serif",
           "system-ui": "DejaVu Sans", "Cantarell": "DejaVu Sans", "Noto Sans Mono": "DejaVu Sans",
           "Liberation Mono": "DejaVu Sans", "Helvetica": "DejaVu Sans"}
GTK_FONTS = {"font-name": "'Cantarell 11'", "monospace-font-name": "'Monospace 11'"}
# What Xt gives a program that names no font (XtDefaultFont).
XT_DEFAULT_FONT = "-*-*-*-R-*-*-*-120-*-*-*-*-ISO8859-*"


def xlfd_family(name):
    """The foundry and family of an XLFD name ("-misc-fixed-..."), or the
    name itself for an alias ("fixed")."""
    parts = name.lower().split("-")
    return tuple(parts[1:3]) if name.startswith("-") and len(parts) > 3 else name.lower()


def misc_families():
    """What xfonts-base's misc directory offers (fonts.dir, fonts.alias) and
    the server's built-ins: families and aliases, lower case. The server also
    lists scaled instances of those families, under other sizes."""
    names = {"cursor", "fixed"}
    with open(os.path.join(X_MISC, "fonts.dir")) as f:
        names.update(xlfd_family(line.split(None, 1)[1].strip()) for line in f if " " in line.strip())
    with open(os.path.join(X_MISC, "fonts.alias")) as f:
        names.update(line.split()[0].lower() for line in f
                     if line.strip() and not line.startswith("!"))
    return names


def mapped_fonts(pid):
    """The font files process pid has mapped (FreeType maps the faces it opens)."""
    with open(f"/proc/{pid}/maps") as f:
        return {line.split(None, 5)[5].strip() for line in f
                if len(line.split(None, 5)) == 6 and FONT_FILE.search(line.strip())}


def check_loaded(what, pid):
    fonts = mapped_fonts(pid)
    log(f"{what} (pid {pid}) has mapped {sorted(fonts)}")
    check(fonts, f"{what} has mapped no font file: nothing to tell which fonts it uses")
    check(fonts <= SUITE_FACES, f"{what} uses fonts that are not the suite's: "
          f"{sorted(fonts - SUITE_FACES)}")


def test(h):
    with Session(h, x11=True) as s:
        # Title bars: the compositor loads its title font before any client.
        check_loaded("smtwc (title bars)", s.compositor.pid)
        for family, face in GENERIC.items():
            got = s.run(["fc-match", "-f", "%{family[0]}|%{file}", family]).stdout
            check(got == f"{face}|{DEJAVU}{face.replace(' ', '')}.ttf",
                  f"fontconfig in the session gives {got!r} for {family!r}, not {face}")
        # GTK's font names: gsettings-desktop-schemas' defaults (Debian 12),
        # which fontconfig above turns into DejaVu Sans and Sans Mono 11.
        for key, want in GTK_FONTS.items():
            got = s.run(["gsettings", "get", "org.gnome.desktop.interface", key]).stdout.strip()
            check(got == want, f"GTK's {key} in the session is {got}, not {want}")
        foot = s.spawn(["foot", "sh", "-c", "echo text in foot; read l"])
        s.wait_for_border(FOCUSED, timeout=15, what="foot's window")
        s.wait_until(lambda: mapped_fonts(foot.pid), timeout=15, what="foot to load its font")
        check_loaded("foot", foot.pid)

        # Core X fonts: Xwayland starts on the first X client.
        xterm = s.spawn(["xterm", "-name", "fonts", "-geometry", "40x5", "-e", "sh", "-c",
                         "read l"], name="xterm")
        s.wait_x_window("--classname", "fonts")
        check(xterm.alive(), "xterm exited")
        misc = misc_families()
        listed = s.run(["xlsfonts", "-fn", XT_DEFAULT_FONT]).stdout.splitlines()
        log(f"{XT_DEFAULT_FONT}: {len(listed)} fonts, e.g. {listed[:3]}")
        check(listed, f"the session's Xwayland has no font for {XT_DEFAULT_FONT}")
        every = s.run(["xlsfonts"]).stdout.splitlines()
        foreign = [f for f in every if xlfd_family(f) not in misc]
        check(not foreign, f"the session's Xwayland offers fonts that are not xfonts-base's "
              f"misc ones or its built-ins: {foreign[:5]} (of {len(foreign)})")
        fixed = s.run(["xlsfonts", "-fn", "fixed"]).stdout.splitlines()
        check(fixed, f"xterm's font \"fixed\" is {fixed} in the session's Xwayland")


harness.main(test)
