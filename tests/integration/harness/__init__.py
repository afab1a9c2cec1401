"""Integration test harness: one real headless smtwc per test.

Python 3 standard library only. A test script does:

    import harness
    from harness import Session, FOCUSED

    def test(h):
        with Session(h, "name") as s:
            s.spawn(["foot"])
            rect = s.wait_for_border(FOCUSED)
            ...

    harness.main(test)

Paths of the binaries under test come from the environment (set by meson):
SMTWC (the compositor) and SMT_VPOINTER (tests/tools/smt-vpointer), or from
--smtwc PATH / --vpointer PATH on the command line. External programs (foot,
grim, wtype, wayland-info, weston-simple-shm) are looked up in PATH; a missing
one makes the test FAIL (the project's install scripts provide them).

X programs: Session(h, x11=True) adds a startup command (-s) that writes the
DISPLAY the compositor exports to what it launches (its lazy Xwayland), and
the LD_PRELOAD it gives them (the X shim: requests through the X ring), into
the private XDG_RUNTIME_DIR; the session reads them at start (s.x_display)
and gives them to every client it starts, as the session would. Xwayland logs
one line per X connection as it closes (SMT_X11RING_LOG): s.x11ring_closed(). Helpers: s.xwayland_pid() (the Xwayland
in the compositor's session), s.x_search / s.wait_x_window (xdotool),
s.x_window_info / s.x_geometry (xwininfo), s.x_override_redirect_windows().

Other environment knobs:
  SMT_TEST_LOGDIR        where failing screenshots/logs are saved (meson-logs)
  SMT_TEST_TIMEOUT_SCALE multiply every timeout (slow machines, sanitizers)
  SMT_TEST_VERBOSE=1     print the compositor's log even when a test passes
The sanitizers' options (ASAN_OPTIONS, TSAN_OPTIONS...), PATH and the suite's
SMT* variables are passed through; nothing else of the caller's environment
is (environment.py: a private empty HOME and XDG data and cache directories,
C.UTF-8, TZ=UTC, SHELL=/bin/sh; no DISPLAY, GTK_THEME, GDK_SCALE, QT_*,
XCURSOR_*, XKB_DEFAULT_*, LD_PRELOAD, WLR_RENDERER of the caller's), and
fonts: every process of a session sees the suite's (fonts.py: FONTCONFIG_FILE
is tests/fonts/fonts.conf, Xwayland's core font path xfonts-base's), whatever
the machine has installed or prefers.

Reference images: s.check_reference(img, rect, "name") compares a picture
whose every pixel is known with tests/integration/reference/name.png,
within a per-channel tolerance and an allowed count of differing pixels
(weston's tests are the model); s.wait_reference(locate, "name") waits for
a picture that settles (a redraw after a resize) to match. On failure the actual picture and a diff
image are written to SMT_TEST_LOGDIR; SMT_TEST_UPDATE_REFERENCES=1 writes
the references from what the tests see instead (look at them, then commit).

The package, one module per job: checks (fail, check, log, timeouts),
defaults (what an empty config shows), environment (the rest of what a
session's processes see), fonts (the fonts a session sees), images (Rect, Image), png and
reference (reference images), programs (finding binaries), processes
(process groups, resources), session (a Session's life) with the mixins
clients, input, screen and x11, raw_socket (below libwayland), runner
(Harness, main). Everything a test uses is importable from `harness`, but
x11_flood (an x11-echo among x11-plaid flooders, with the X benchmark's
drivers, which import the harness): `from harness.x11_flood import ...`; and
selections (clipboard tests' data, compared to the byte, and whether a
selection is offered): `from harness.selections import ...`; and
cursor_theme (a cursor theme of squares that shows where the pointer's
image is and at which scale): `from harness.cursor_theme import ...`.
"""

from .checks import TestFailure, check, fail, log, scaled
from .clients import read_file
from .defaults import BACKGROUND, FOCUSED, OUTPUT_H, OUTPUT_W, UNFOCUSED
from .images import Image, Rect
from .input import MODIFIER_BITS, modifier_mask
from .processes import (Process, ResourceBaseline, _is_zombie, fd_diff, fd_targets,
                        process_resources, thread_nice, thread_nices)
from .png import read_png, write_png
from .programs import PACKAGES, QT_GALLERY, build_program, find_program
from .raw_socket import raw_connect, wait_closed
from .reference import compare_images, reference_path
from .runner import Harness, main, seeded_random
from .session import Session

__all__ = [
    "BACKGROUND", "FOCUSED", "UNFOCUSED", "OUTPUT_W", "OUTPUT_H", "QT_GALLERY", "PACKAGES",
    "MODIFIER_BITS", "TestFailure", "check", "fail", "log", "scaled", "Image", "Rect",
    "modifier_mask", "Process", "_is_zombie", "process_resources",
    "ResourceBaseline", "fd_targets", "fd_diff", "build_program",
    "find_program", "read_png", "write_png", "raw_connect", "wait_closed",
    "compare_images", "reference_path", "Harness", "main", "seeded_random", "Session",
]
