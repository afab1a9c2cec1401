# Sourced by scripts/session.sh: sets and exports XDG_RUNTIME_DIR when the
# caller has none (a root login without logind, a container): a directory
# only this user can reach, as the XDG base directory specification asks
# and smtwc requires (common/runtime_dir.h).
#
# The usual name, ${TMPDIR:-/tmp}/smtwc-runtime-UID, is one anybody can
# make first: a directory another user owns (root may chmod it, but not
# take it) or a symlink to one would let that user replace the sockets of
# the session. The name is used only when it is this user's own directory
# with mode 700 (made here, or by an earlier session); otherwise a fresh
# one from mktemp.
runtime_dir_is_private() {
	[ -d "$1" ] && [ ! -L "$1" ] && [ -O "$1" ] && [ "$(stat -c %a "$1")" = 700 ]
}

if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
	XDG_RUNTIME_DIR=${TMPDIR:-/tmp}/smtwc-runtime-$(id -u)
	mkdir -m 700 "$XDG_RUNTIME_DIR" 2>/dev/null || true
	if ! runtime_dir_is_private "$XDG_RUNTIME_DIR"; then
		echo "session: $XDG_RUNTIME_DIR is not this user's private directory; using a new one" >&2
		XDG_RUNTIME_DIR=$(mktemp -d "${TMPDIR:-/tmp}/smtwc-runtime-$(id -u).XXXXXX")
	fi
	export XDG_RUNTIME_DIR
fi
