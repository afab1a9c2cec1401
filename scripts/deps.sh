#!/bin/sh
# Installs the Debian 12 packages smtwc needs, and only the missing ones, so
# running it again costs a dpkg query. Usage: scripts/deps.sh session|test|bench
# With SMT_DEPS_CHECK_ONLY=1 it installs nothing: it names what is missing and
# fails (the test suite's benchmark runs use this, so that CI notices when the
# test set lacks something a benchmark needs instead of installing it).
set -eu

build="build-essential meson ninja-build pkg-config libwlroots-dev libwayland-dev
  wayland-protocols libpixman-1-dev libxkbcommon-dev libfreetype-dev libfontconfig-dev
  fonts-dejavu-core xcursor-themes libx11-dev libx11-xcb-dev libxcb1-dev libxcb-shm0-dev libxcb-present-dev libxcb-xinput-dev libxcb-res0-dev
  libpango1.0-dev libcairo2-dev"
# The session's demo clients, and the tools it tells you to look with.
session="foot weston grim wayvnc wayland-utils xwayland x11-apps xterm"
# What the benchmarks (tests/bench/*, docs/benchmarks.md) run: the clients the
# render and soak benchmarks start, Xwayland and x11perf for the X anchor (and
# xfonts-base: its -ftext needs the 6x13 font), Xvfb
# and xdpyinfo for the X11 shim benchmark, numpy and matplotlib for their
# tables and plots (for /usr/bin/python3: a pyenv or venv python3 first on
# PATH does not see them, so the benchmarks' Python runs under Debian's).
bench="weston wayland-utils xwayland x11-apps xfonts-base xterm xvfb x11-utils xdotool wtype
  python3 python3-numpy python3-matplotlib"
# Real clients and drivers the integration tests run, and the fuzzing
# toolchain; the suite smoke-runs every benchmark, so all of the bench set.
# The tests see fonts-dejavu-core only (tests/fonts/fonts.conf); the other
# faces are what fonts_hostile_system makes the system prefer, and
# fonts-urw-base35 fills an X core font directory the session's Xwayland must
# leave out (test_fonts), so that both checks can fail; it builds a system
# dconf database (GTK's font names) with dconf-cli. OpenJDK: javac and AWT
# on X for the X ring's Java VFORK case; gcc-multilib: a real 32-bit
# program under the session's per-class preload path (x11_launcher).
# clang-format: the style test checks every C file against .clang-format.
# xinput: its "test" listens to XInput 1 device events (x11_boost_xwayland).
# python3-gi and GTK 3's bindings: GTK 3 windows with and without a header
# bar, made in a few lines (kde_decoration).
# python3-fusepy, libfuse2, fuse3: a FUSE file whose reads never answer,
# offered as a wl_shm pool (shm_pool_fuse).
# x11-xserver-utils: xhost lets a third uid in (x11_ring_trust's users case;
# a fresh machine of session 38 did not have it).
# nedit: a Motif program whose clipboard is STRING alone (x11_clipboard_string).
# locales: fonts_hostile_user generates a real tr_TR.UTF-8 with localedef
# from its sources (a fresh machine may have only C.UTF-8).
test="$session $bench xauth valgrind swaybg wlr-randr clang libclang-rt-14-dev xclip wl-clipboard
  gtk-3-examples gtk-4-examples qtbase5-examples qtwayland5 swaylock swayidle wlsunset tk
  firefox-esr fontconfig fonts-noto-mono fonts-liberation2 fonts-urw-base35
  dconf-gsettings-backend dconf-cli libglib2.0-bin openjdk-17-jdk-headless openjdk-17-jre
  gcc-multilib clang-format xinput python3-gi gir1.2-gtk-3.0 python3-fusepy libfuse2 fuse3
  x11-xserver-utils nedit locales"

case "${1:-}" in
session) wanted="$build $session" ;;
test) wanted="$build $test" ;;
bench) wanted="$build $bench" ;;
*) echo "usage: $0 session|test|bench" >&2; exit 2 ;;
esac

missing=""
for pkg in $wanted; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	"install ok installed") ;;
	*) missing="$missing $pkg" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ -n "${SMT_DEPS_CHECK_ONLY:-}" ]; then
	echo "smtwc: missing Debian packages:$missing (scripts/deps.sh ${1} installs them)" >&2
	exit 1
fi

echo "smtwc: installing Debian packages:$missing" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "smtwc: need root or sudo to install:$missing" >&2; exit 1; }
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
