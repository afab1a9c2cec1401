#!/bin/sh
# Installs the Debian 12 packages smtwc needs, and only the missing ones, so
# running it again costs a dpkg query. Usage: scripts/deps.sh session|test
set -eu

build="build-essential meson ninja-build pkg-config libwlroots-dev libwayland-dev
  wayland-protocols libpixman-1-dev libxkbcommon-dev libfreetype-dev libfontconfig-dev
  fonts-dejavu-core xcursor-themes libx11-dev libx11-xcb-dev libxcb1-dev libxcb-shm0-dev"
# The session's demo clients, and the tools it tells you to look with.
session="foot weston grim wayvnc wayland-utils xwayland x11-apps xterm"
# Real clients and drivers the integration tests run, and the fuzzing toolchain.
test="$session xvfb xauth valgrind wtype swaybg wlr-randr python3 clang libclang-rt-14-dev x11-utils xdotool xclip wl-clipboard
  gtk-3-examples gtk-4-examples qtbase5-examples qtwayland5 swaylock swayidle wlsunset"

case "${1:-}" in
session) wanted="$build $session" ;;
test) wanted="$build $test" ;;
*) echo "usage: $0 session|test" >&2; exit 2 ;;
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
