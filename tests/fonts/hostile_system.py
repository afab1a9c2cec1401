#!/usr/bin/env python3
"""hostile_system.py TEST.py...: runs the given tests (integration tests,
each a script) again on a machine whose system-wide font configuration
prefers other faces than the suite's, and fails if any of them fails.

The preference is a fontconfig file in /etc/fonts/conf.d, where a
distribution or a font package puts one, made in a private mount namespace
(a bind mount over /etc/fonts/conf.d in a new mount namespace, with a user
namespace unless run as root; the real /etc is not touched and nothing
outside this process tree sees it). It
prefers Noto Sans Mono (fonts-noto-mono) for monospace and the Liberation
faces (fonts-liberation2) for sans-serif and serif, and renders with full
hinting, subpixel colour and no antialiasing. /etc/xdg is replaced the same
way by a copy with font settings of foot, weston-terminal and GTK 3 and 4
(bigger, other faces), where an administrator would put them, and /etc/dconf
by a copy with a system database that sets GTK's font names. Before the tests run, fc-match
must show that the preference is in effect for a process that uses the
system's configuration and that the suite's configuration
(tests/fonts/fonts.conf) still gives DejaVu: so the check cannot pass because
the hostile setup did nothing. The tests run as the calling user, with the
environment meson gives this check (the integration tests' own).

docs/reliability.md, "Fonts in tests"."""
import os
import shutil
import subprocess
import sys
import tempfile

from private_mounts import MountError, bind, enter_private_mounts
from run_tests import run_tests

CONF_D = "/etc/fonts/conf.d"
XDG = "/etc/xdg"
DCONF = "/etc/dconf"
# GTK's font names, from a system dconf database (an administrator's lockdown
# or default): the profile names it, `dconf compile` builds it.
HOSTILE_DCONF_PROFILE = "user-db:user\nsystem-db:smt-hostile\n"
HOSTILE_DCONF_KEYS = ("[org/gnome/desktop/interface]\nfont-name='Liberation Sans 16'\n"
                      "monospace-font-name='Noto Sans Mono 16'\n")
# Font settings of the programs the tests run, where an administrator puts
# them (XDG_CONFIG_DIRS): bigger text in other faces.
HOSTILE_XDG = {
    "foot/foot.ini": "font=Noto Sans Mono:size=16\n",
    "weston/weston.ini": "[terminal]\nfont=Noto Sans Mono\nfont-size=20\n",
    "gtk-3.0/settings.ini": "[Settings]\ngtk-font-name=Liberation Sans 16\n",
    "gtk-4.0/settings.ini": "[Settings]\ngtk-font-name=Liberation Sans 16\n",
}
# Ahead of every conf.d file of Debian's: its <prefer> comes first, its
# assignments are what later files' "append" defaults cannot override.
HOSTILE_NAME = "01-prefer-other-faces.conf"
HOSTILE = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <alias><family>monospace</family><prefer><family>Noto Sans Mono</family></prefer></alias>
  <alias><family>sans-serif</family><prefer><family>Liberation Sans</family></prefer></alias>
  <alias><family>serif</family><prefer><family>Liberation Serif</family></prefer></alias>
  <alias><family>DejaVu Sans Mono</family><prefer><family>Noto Sans Mono</family></prefer></alias>
  <alias><family>DejaVu Sans</family><prefer><family>Liberation Sans</family></prefer></alias>
  <match target="pattern">
    <edit name="hintstyle" mode="assign"><const>hintfull</const></edit>
    <edit name="rgba" mode="assign"><const>rgb</const></edit>
    <edit name="antialias" mode="assign"><bool>false</bool></edit>
  </match>
</fontconfig>
"""
# What a process on that system gets, and what the suite's processes must get.
SYSTEM_WANTED = {"monospace": "Noto Sans Mono", "sans-serif": "Liberation Sans",
                 "serif": "Liberation Serif"}
SUITE_WANTED = {"monospace": "DejaVu Sans Mono", "sans-serif": "DejaVu Sans",
                "serif": "DejaVu Serif"}
SUITE_CONF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fonts.conf")


def fail(msg):
    print(f"FAIL: fonts_hostile_system: {msg}", flush=True)
    sys.exit(1)


def enter_hostile_system(conf_d, xdg, dconf):
    """A mount namespace of our own (private_mounts.py) where conf_d, xdg and
    dconf are /etc/fonts/conf.d, /etc/xdg and /etc/dconf."""
    try:
        enter_private_mounts()
        bind(conf_d, CONF_D)
        bind(xdg, XDG)
        bind(dconf, DCONF)
    except MountError as e:
        fail(str(e))


def make_hostile_dconf(tmp):
    """A copy of /etc/dconf with a system database setting GTK's fonts."""
    if not os.path.isdir(DCONF):
        fail(f"{DCONF} is missing (dconf-gsettings-backend, scripts/deps.sh test)")
    dconf = os.path.join(tmp, "dconf")
    shutil.copytree(DCONF, dconf, symlinks=True)
    os.makedirs(os.path.join(dconf, "profile"), exist_ok=True)
    os.makedirs(os.path.join(dconf, "db", "smt-hostile.d"), exist_ok=True)
    with open(os.path.join(dconf, "profile", "user"), "w") as f:
        f.write(HOSTILE_DCONF_PROFILE)
    with open(os.path.join(dconf, "db", "smt-hostile.d", "00-fonts"), "w") as f:
        f.write(HOSTILE_DCONF_KEYS)
    r = subprocess.run(["dconf", "compile", os.path.join(dconf, "db", "smt-hostile"),
                        os.path.join(dconf, "db", "smt-hostile.d")],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail(f"dconf compile: {r.stderr.strip()} (dconf-cli, scripts/deps.sh test)")
    return dconf


def gtk_font_name(backend):
    env = dict(os.environ)
    env.pop("GSETTINGS_BACKEND", None)
    if backend:
        env["GSETTINGS_BACKEND"] = backend
    with tempfile.TemporaryDirectory(prefix="smt-hostile-home-") as home:
        env["XDG_CONFIG_HOME"] = home  # no user database: the system's shows
        r = subprocess.run(["gsettings", "get", "org.gnome.desktop.interface", "font-name"],
                           env=env, capture_output=True, text=True, timeout=60)
    return r.stdout.strip() if r.returncode == 0 else f"(gsettings: {r.stderr.strip()})"


def fc_match(family, conf):
    env = dict(os.environ)
    for k in ("FONTCONFIG_FILE", "FONTCONFIG_PATH", "FONTCONFIG_SYSROOT"):
        env.pop(k, None)
    if conf:
        env["FONTCONFIG_FILE"] = conf
    r = subprocess.run(["fc-match", "-f", "%{family[0]}|%{antialias[0]}", family], env=env,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail(f"fc-match {family}: {r.stderr.strip()}")
    return r.stdout.split("|")


def check_setup():
    for family, want in SYSTEM_WANTED.items():
        got, aa = fc_match(family, None)
        if got != want or aa != "False":
            fail(f"the hostile system setup is not in effect: {family} is {got!r} "
                 f"(antialias {aa}), not {want!r} unantialiased "
                 f"(fonts-noto-mono and fonts-liberation2 are in scripts/deps.sh test)")
    for family, want in SUITE_WANTED.items():
        got, aa = fc_match(family, SUITE_CONF)
        if got != want or aa != "True":
            fail(f"with the suite's {SUITE_CONF}, {family} is {got!r} (antialias {aa}) "
                 f"on the hostile system, not {want!r}")
    got = gtk_font_name(None)
    if got != "'Liberation Sans 16'":
        fail(f"the hostile dconf database is not in effect: GTK's font-name is {got}")
    got = gtk_font_name("memory")
    if got == "'Liberation Sans 16'":
        fail("GSETTINGS_BACKEND=memory still reads the hostile dconf database")
    print(f"hostile system: {', '.join(f'{k} -> {v}' for k, v in SYSTEM_WANTED.items())}, "
          f"no antialiasing, GTK font-name 'Liberation Sans 16'; the suite's config: "
          f"{', '.join(f'{k} -> {v}' for k, v in SUITE_WANTED.items())}", flush=True)


def main():
    tests = sys.argv[1:]
    if not tests:
        fail("usage: hostile_system.py TEST.py...")
    with tempfile.TemporaryDirectory(prefix="smt-hostile-fonts-") as tmp:
        conf_d = os.path.join(tmp, "conf.d")
        os.mkdir(conf_d)
        for entry in os.listdir(CONF_D):
            os.symlink(os.path.realpath(os.path.join(CONF_D, entry)), os.path.join(conf_d, entry))
        with open(os.path.join(conf_d, HOSTILE_NAME), "w") as f:
            f.write(HOSTILE)
        # The namespace is this process's; the tests are its children.
        xdg = os.path.join(tmp, "xdg")
        shutil.copytree(XDG, xdg, symlinks=True)
        for path, text in HOSTILE_XDG.items():
            os.makedirs(os.path.dirname(os.path.join(xdg, path)), exist_ok=True)
            with open(os.path.join(xdg, path), "w") as f:
                f.write(text)
        dconf = make_hostile_dconf(tmp)
        enter_hostile_system(conf_d, xdg, dconf)
        check_setup()
        failed = run_tests(tests, "on the hostile system")
    if failed:
        fail(f"{', '.join(failed)} failed when the system prefers other fonts: their result "
             f"depends on the machine's fonts again (each test's own output is above)")
    print(f"PASS: {len(tests)} tests give the same results on a system that prefers other fonts")


if __name__ == "__main__":
    main()
