"""The environment every process of a session sees: the suite's, not the
caller's (docs/reliability.md, "Fonts in tests"). A user's own
configuration lives in HOME (~/.Xresources, ~/.config/weston.ini, which
weston's clients read even beside XDG_CONFIG_HOME, ~/.icons, ~/.bashrc),
in the XDG data and cache directories, and in the environment (GTK_THEME,
GDK_SCALE, QT_*, XCURSOR_*, XKB_DEFAULT_*, input methods, TZ, LD_PRELOAD):
each changes what a test's programs show or how its typed keys map. So a
session's processes get an environment built from a list of what the suite
itself passes, and a private, empty HOME."""

import os

# Kept from the caller: how to find programs and libraries, the suite's own
# variables (meson's integration_env: SMTWC, SMTCTL, SMT_*; the valgrind
# runs' SMTWC_REAL and VALGRIND_LOG; SMTWC_TRACE), the sanitizers' options
# and meson's own. Everything else (a toolkit's, a locale's, a user's, the
# outer session's, WLR_RENDERER: the suite is pixman's) is dropped or set
# below.
KEEP = ("PATH", "LD_LIBRARY_PATH", "USER", "LOGNAME", "MALLOC_PERTURB_", "VALGRIND_LOG",
        "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED")
KEEP_PREFIXES = ("SMT", "ASAN_", "UBSAN_", "LSAN_", "TSAN_", "MESON_")
# Programs' user directories (XDG base directory defaults, spelled out so
# that a caller's XDG_DATA_DIRS cannot add GSettings schemas or themes).
DATA_DIRS = "/usr/local/share:/usr/share"


def pin_environment(env_from, home):
    """The caller's environment env_from reduced to what the suite keeps,
    with HOME (an empty directory the caller made) and the XDG user
    directories inside it, C.UTF-8, UTC, /bin/sh. A new dict."""
    env = {k: v for k, v in env_from.items()
           if k in KEEP or k.startswith(KEEP_PREFIXES)}
    env["HOME"] = home
    env["XDG_DATA_HOME"] = os.path.join(home, ".local", "share")
    env["XDG_CACHE_HOME"] = os.path.join(home, ".cache")
    env["XDG_STATE_HOME"] = os.path.join(home, ".local", "state")
    env["XDG_DATA_DIRS"] = DATA_DIRS
    # xterm and foot run $SHELL: a user's shell and its rc files would draw
    # their own prompt.
    env["SHELL"] = "/bin/sh"
    env["LC_ALL"] = "C.UTF-8"
    env["TZ"] = "UTC"
    return env
