#!/bin/sh
# Builds smtwc and starts a session with demo clients: nested in a window when
# WAYLAND_DISPLAY or DISPLAY is set, on DRM from a VT, headless otherwise
# (then it prints how to take a screenshot or open a live VNC view).
# Extra arguments go to smtwc, e.g. --backend headless or -c my.conf.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/deps.sh session
[ -d build ] || meson setup build
meson compile -C build

. scripts/runtime-dir.sh
# foot refuses to start without a UTF-8 locale.
case "${LC_ALL:-${LC_CTYPE:-${LANG:-}}}" in
*UTF-8*|*utf8*) ;;
*) export LC_ALL=C.UTF-8 ;;
esac

# Demo clients: the ring demo (every draw command through shared memory),
# a terminal, and an X program through the lazily started Xwayland (its
# requests through the X ring: the session preloads the X shim).
exec build/compositor/smtwc "$@" \
	-s "$root/build/clients/smt-demo" \
	-s foot \
	-s xeyes
