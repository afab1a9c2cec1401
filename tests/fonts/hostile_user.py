#!/usr/bin/env python3
"""hostile_user.py TEST.py...: runs the given tests (integration tests, each
a script) again as a user whose own configuration and environment would
change what they show, and fails if any of them fails.

The user is a throwaway HOME (nothing of the machine is changed: other
people run tests here at the same time) holding what a desktop user may
have: a fontconfig file that prefers other installed faces (Noto Sans Mono,
Liberation Sans) without antialiasing, with full hinting and subpixel order,
and a font directory of its own; foot.ini, weston.ini, ~/.Xresources and
~/.Xdefaults (xterm's face, size, colours and geometry), GTK 2, 3 and 4
settings (a dark theme, another font), a default cursor theme in ~/.icons,
a ~/.bashrc with its own prompt, smtwc's own config. The environment is an
odd one: LANG=tr_TR.UTF-8 (a real locale, generated with localedef into a
LOCPATH of its own: Turkish has a dotless i, and this machine may have only
C.UTF-8) and LC_ALL unset, FONTCONFIG_PATH and FC_LANG, TZ far from UTC, TERM unset,
GDK_SCALE/GDK_DPI_SCALE/QT_SCALE_FACTOR/GTK_THEME, XCURSOR_THEME/SIZE, an
XKB layout (XKB_DEFAULT_*), input-method variables, a shared XDG_RUNTIME_DIR
with an outer session's WAYLAND_DISPLAY (a listening socket: no test may
connect to it) and DISPLAY, umask 077.

Before the tests run, fc-match must show the user's preference in effect
for a process that reads the user's configuration, and the locale must be
one the C library sets, so the check cannot pass because the setup did
nothing. docs/reliability.md, "Fonts in tests"."""
import os
import socket
import subprocess
import sys
import tempfile

from run_tests import run_tests

FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir prefix="xdg">fonts</dir>
  <alias binding="strong"><family>monospace</family><prefer><family>Noto Sans Mono</family></prefer></alias>
  <alias binding="strong"><family>DejaVu Sans Mono</family><prefer><family>Noto Sans Mono</family></prefer></alias>
  <alias binding="strong"><family>sans-serif</family><prefer><family>Liberation Sans</family></prefer></alias>
  <alias binding="strong"><family>DejaVu Sans</family><prefer><family>Liberation Sans</family></prefer></alias>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>false</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintfull</const></edit>
    <edit name="rgba" mode="assign"><const>rgb</const></edit>
  </match>
</fontconfig>
"""
XRESOURCES = """xterm*faceName: Noto Sans Mono
xterm*faceSize: 30
xterm*background: red
xterm*foreground: yellow
XTerm*geometry: 30x8
XTerm*vt100.geometry: 30x8
XTerm*font: 10x20
*background: red
*foreground: yellow
"""
HOME_FILES = {
    ".config/fontconfig/fonts.conf": FONTS_CONF,
    ".fonts.conf": FONTS_CONF,
    ".config/foot/foot.ini": ("font=Noto Sans Mono:size=30\n[colors]\nbackground=ff0000\n"
                              "foreground=ffff00\n"),
    ".config/weston.ini": ("[terminal]\nfont=Noto Sans Mono\nfont-size=30\n"
                           "[shell]\ncursor-theme=redglass\ncursor-size=64\n"),
    ".Xresources": XRESOURCES,
    ".Xdefaults": XRESOURCES,
    "XTerm": XRESOURCES,  # XAPPLRESDIR's default is HOME
    ".config/gtk-3.0/settings.ini": ("[Settings]\ngtk-application-prefer-dark-theme=1\n"
                                     "gtk-font-name=Liberation Sans 30\n"
                                     "gtk-theme-name=HighContrastInverse\n"
                                     "gtk-cursor-theme-name=redglass\ngtk-cursor-theme-size=64\n"),
    ".config/gtk-4.0/settings.ini": ("[Settings]\ngtk-application-prefer-dark-theme=1\n"
                                     "gtk-font-name=Liberation Sans 30\n"),
    ".gtkrc-2.0": 'gtk-font-name="Liberation Sans 30"\n',
    ".icons/default/index.theme": "[Icon Theme]\nInherits=redglass\n",
    ".local/share/icons/default/index.theme": "[Icon Theme]\nInherits=redglass\n",
    ".config/smtwc/config": "[general]\ncursor-size = 64\n",
    ".bashrc": "PS1='HOSTILE-PROMPT %% '\nPROMPT_COMMAND='printf \"\\033]0;hostile\\007\"'\n",
    ".profile": ". ~/.bashrc\n",
}
# A font of the user's own (in XDG_DATA_HOME/fonts, which the user's
# fonts.conf adds): one of the machine's, under the user's directory.
USER_FONT = "/usr/share/fonts/truetype/noto/NotoSansMono-Regular.ttf"
HOSTILE_ENV = {
    "LANG": "tr_TR.UTF-8", "TZ": "Pacific/Chatham",
    "GDK_SCALE": "2", "GDK_DPI_SCALE": "1.5", "QT_SCALE_FACTOR": "2",
    "QT_FONT_DPI": "192", "GTK_THEME": "Adwaita:dark", "XCURSOR_THEME": "redglass",
    "XCURSOR_SIZE": "64", "XKB_DEFAULT_LAYOUT": "de", "XKB_DEFAULT_VARIANT": "dvorak",
    "XKB_DEFAULT_OPTIONS": "ctrl:swapcaps", "XMODIFIERS": "@im=ibus",
    "GTK_IM_MODULE": "ibus", "QT_IM_MODULE": "ibus", "PS1": "HOSTILE-PROMPT $ ",
    "SHELL": "/bin/bash", "DISPLAY": ":0", "XENVIRONMENT": None, "FC_LANG": "tr",
}
# The user's locale, made for this run (localedef, from the locales package's
# sources: scripts/deps.sh test), as LANG names it.
LOCALE, LOCALE_SOURCE, LOCALE_CHARMAP = "tr_TR.UTF-8", "tr_TR", "UTF-8"
UNSET = ("LC_ALL", "LC_CTYPE", "LANGUAGE", "TERM", "XDG_CONFIG_HOME", "GSETTINGS_BACKEND")
SUITE_KEEP = ("FONTCONFIG_FILE", "SMT_XWAYLAND_FONT_PATH")


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def make_home(home):
    for path, text in HOME_FILES.items():
        full = os.path.join(home, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    fonts = os.path.join(home, ".local", "share", "fonts")
    os.makedirs(fonts, exist_ok=True)
    if os.path.exists(USER_FONT):
        os.symlink(USER_FONT, os.path.join(fonts, "UsersOwn.ttf"))


def make_locale(locpath):
    os.makedirs(locpath)
    r = subprocess.run(["localedef", "-i", LOCALE_SOURCE, "-f", LOCALE_CHARMAP,
                        os.path.join(locpath, LOCALE)], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        fail(f"localedef {LOCALE}: {r.stderr.strip() or r.stdout.strip()} "
             f"(the locales package: scripts/deps.sh test)")


def hostile_env(home, runtime, outer, locpath):
    env = dict(os.environ)
    for k in UNSET:
        env.pop(k, None)
    env.update({k: v for k, v in HOSTILE_ENV.items() if v is not None})
    env["HOME"] = home
    env["XENVIRONMENT"] = os.path.join(home, ".Xresources")
    env["XDG_DATA_HOME"] = os.path.join(home, ".local", "share")
    env["XDG_CACHE_HOME"] = os.path.join(home, ".cache")
    env["FONTCONFIG_PATH"] = os.path.join(home, ".config", "fontconfig")
    env["LOCPATH"] = locpath
    env["XDG_RUNTIME_DIR"] = runtime
    env["WAYLAND_DISPLAY"] = outer
    return env


def fc_match(env, family):
    r = subprocess.run(["fc-match", "-f", "%{family[0]}|%{antialias[0]}", family], env=env,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail(f"fc-match {family}: {r.stderr.strip()}")
    return r.stdout.split("|")


def check_setup(env):
    user = {k: v for k, v in env.items() if k not in SUITE_KEEP}
    for family, want in (("monospace", "Noto Sans Mono"), ("sans-serif", "Liberation Sans")):
        got, aa = fc_match(user, family)
        if got != want or aa != "False":
            fail(f"the hostile user's fontconfig is not in effect: {family} is {got!r} "
                 f"(antialias {aa}), not {want!r} unantialiased")
    r = subprocess.run(["locale"], env=user, capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or r.stderr.strip() or f"LC_CTYPE=\"{LOCALE}\"" not in r.stdout:
        fail(f"the hostile user's locale {LOCALE} is not in effect: {r.stderr.strip()} "
             f"{r.stdout.splitlines()[:1]}")
    print("hostile user: monospace -> Noto Sans Mono, sans-serif -> Liberation Sans, no "
          f"antialiasing; HOME={env['HOME']}, LANG={env['LANG']} (generated), "
          f"TZ={env['TZ']}, "
          f"XKB_DEFAULT_LAYOUT={env['XKB_DEFAULT_LAYOUT']}, umask 077", flush=True)


def main():
    tests = sys.argv[1:]
    if not tests:
        fail("usage: hostile_user.py TEST.py...")
    with tempfile.TemporaryDirectory(prefix="smt-hostile-user-") as tmp:
        home = os.path.join(tmp, "home")
        runtime = os.path.join(tmp, "shared-runtime")
        os.makedirs(home)
        os.makedirs(runtime)
        os.chmod(runtime, 0o1777)  # a shared directory, as /tmp is
        make_home(home)
        # The outer session's compositor: a socket that listens and must
        # never be connected to.
        outer_path = os.path.join(runtime, "wayland-outer")
        outer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        outer.bind(outer_path)
        outer.listen(64)
        outer.setblocking(False)
        locpath = os.path.join(tmp, "locale")
        make_locale(locpath)
        env = hostile_env(home, runtime, "wayland-outer", locpath)
        check_setup(env)
        old_umask = os.umask(0o077)
        try:
            failed = run_tests(tests, "as the hostile user", env=env, cwd=home)
        finally:
            os.umask(old_umask)
        talked = 0
        while True:
            try:
                conn, _ = outer.accept()
            except BlockingIOError:
                break
            conn.close()
            talked += 1
        outer.close()
    if talked:
        failed.append(f"{talked} connection(s) to the outer session's WAYLAND_DISPLAY")
    if failed:
        fail(f"{', '.join(failed)}: failed as a user with their own config and environment "
             f"(each test's own output is above)")
    print(f"PASS: {len(tests)} tests give the same results whatever the user's config and "
          f"environment")


if __name__ == "__main__":
    main()
