"""Where the programs a test runs come from: this build's own (build_program)
and the distribution's (find_program, which names the Debian package of a
missing one)."""

import os
import shutil

from .checks import fail

# A small Qt5 widgets program from Debian (qtbase5-examples); run it with
# QT_QPA_PLATFORM=wayland (qtwayland5).
QT_GALLERY = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/gallery/gallery"

# Where each external program comes from (for the failure message).
PACKAGES = {
    "foot": "foot",
    "grim": "grim",
    "wtype": "wtype",
    "wayland-info": "wayland-utils",
    "weston-simple-shm": "weston",
    "weston-presentation-shm": "weston",
    "wlr-randr": "wlr-randr",
    # X clients (Session(x11=True) tests)
    "xterm": "xterm",
    "xeyes": "x11-apps",
    "xclock": "x11-apps",
    "x11perf": "x11-apps",
    "xmessage": "x11-utils",
    "xwininfo": "x11-utils",
    "xprop": "x11-utils",
    "xdotool": "xdotool",
    "xlsfonts": "x11-utils",
    "fc-match": "fontconfig",
    "xclip": "xclip",
    "nedit": "nedit",
    "wl-copy": "wl-clipboard",
    "wl-paste": "wl-clipboard",
    # Toolkits as people run them (test_toolkits and friends)
    "weston-terminal": "weston",
    "gtk3-demo": "gtk-3-examples",
    "gtk3-widget-factory": "gtk-3-examples",
    "gtk4-demo": "gtk-4-examples",
    "gtk4-widget-factory": "gtk-4-examples",
    QT_GALLERY: "qtbase5-examples (and qtwayland5)",
    "swaylock": "swaylock",
    "swayidle": "swayidle",
    "wlsunset": "wlsunset",
}


def build_program(var, rel):
    """A program of this build: $VAR (meson sets it), else REL under the
    build directory that holds $SMTWC (for scripts run by hand)."""
    p = os.environ.get(var)
    if p:
        return p
    smtwc = os.environ.get("SMTWC", "")
    build = os.path.dirname(os.path.dirname(os.path.abspath(smtwc))) if smtwc else ""
    return os.path.join(build, rel)



def find_program(name):
    path = shutil.which(name) if os.sep not in name else (
        name if os.access(name, os.X_OK) else None)
    if path is None:
        pkg = PACKAGES.get(name)
        hint = f" (Debian package '{pkg}'; the install scripts should provide it)" if pkg else ""
        fail(f"required program '{name}' not found in PATH{hint}")
    return path
