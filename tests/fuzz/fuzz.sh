#!/bin/sh
# Build every libFuzzer target with clang (libFuzzer + ASan + UBSan) and run
# each for a bounded time over its seed corpus. For CI and by hand:
#
#   tests/fuzz/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 60; all targets)
#
# Targets: ring (ring reader + decoder + executor, fuzz_ring.c), submit (the
# socket-submit path as the Wayland glue drives it, fuzz_submit.c), config
# (config file / control-socket `set` parser, fuzz_config.c), x11stream (the
# X server's reader of a client's byte-stream ring, fuzz_x11stream.c), x11fds
# (fd messages, REVERTs and bytes of that ring in any interleaving against a
# model, fuzz_x11fds.c and x11fds_model.h). Crashing inputs
# are kept in ./fuzz-artifacts/TARGET/; turn each into a regression test
# (a unit test or a seed in tests/fuzz/corpus*/ that `meson test --suite fuzz`
# replays). Exit status: non-zero if any target found a crash, leak or
# timeout.
set -eu

seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-ring submit config x11stream x11fds}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/smt-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc=${CLANG:-clang}

flags="-std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror
       -I$root"  # one include root, as the build (docs/architecture.md, "Style")
# The protocol's server half, compiled into every ring reader's target.
ring_server="$root/protocol/smt-ring-server.c"
san="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
pixman="$(pkg-config --cflags --libs pixman-1)"
xkb="$(pkg-config --cflags --libs xkbcommon)"
# a socket ring's area (compositor/ring/submit_area.c) and libsmt's writer
submit_area_src="$root/compositor/ring/submit_area.c $root/clients/libsmt/ring-writer.c"

status=0
for t in $targets; do
	mkdir -p "$work/$t/corpus" "$work/$t/seeds"
	case $t in
	ring)
		$cc $flags $san "$here/fuzz_ring.c" "$root"/compositor/exec/*.c \
			$submit_area_src "$ring_server" -o "$work/$t/fuzz" $pixman -lm
		$cc $flags "$here/gen_seeds.c" -o "$work/gen_seeds" $pixman
		"$work/gen_seeds" "$work/$t/seeds"
		cp "$here"/corpus/* "$work/$t/seeds/" 2>/dev/null || true
		max_len=65536 ;;
	submit)
		$cc $flags $san "$here/fuzz_submit.c" "$root"/compositor/exec/*.c \
			$submit_area_src "$ring_server" -o "$work/$t/fuzz" $pixman -lm
		cp "$here"/corpus-submit/* "$work/$t/seeds/" 2>/dev/null || true
		max_len=65536 ;;
	config)
		$cc $flags $san "$here/fuzz_config.c" \
			"$root"/compositor/config/*.c -o "$work/$t/fuzz" $xkb
		cp "$here"/corpus-config/* "$work/$t/seeds/" 2>/dev/null || true
		max_len=8192 ;;
	x11stream)
		$cc $flags $san "$here/fuzz_x11stream.c" \
			"$root"/xwayland-glue/stream/*.c "$ring_server" -o "$work/$t/fuzz"
		cp "$here"/corpus-x11stream/* "$work/$t/seeds/" 2>/dev/null || true
		max_len=4096 ;;
	x11fds)
		$cc $flags $san "$here/fuzz_x11fds.c" \
			"$root"/xwayland-glue/stream/*.c "$ring_server" -o "$work/$t/fuzz"
		cp "$here"/corpus-x11fds/* "$work/$t/seeds/" 2>/dev/null || true
		max_len=4096 ;;
	*)
		echo "fuzz.sh: unknown target '$t' (ring, submit, config, x11stream, x11fds)" >&2
		exit 2 ;;
	esac
	mkdir -p "fuzz-artifacts/$t"
	echo "=== fuzz $t for $seconds s ==="
	rc=0
	"$work/$t/fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len=$max_len -print_final_stats=1 -artifact_prefix="fuzz-artifacts/$t/" \
		"$work/$t/corpus" "$work/$t/seeds" > "$work/$t/log" 2>&1 || rc=$?
	grep -E "^(stat::|#[0-9]+.*DONE|==[0-9]+==ERROR|SUMMARY)" "$work/$t/log" || true
	if [ $rc -ne 0 ]; then
		tail -40 "$work/$t/log"
		echo "fuzz $t: FAILED (exit $rc), inputs in fuzz-artifacts/$t/"
		status=1
	else
		echo "fuzz $t: ok"
		rmdir "fuzz-artifacts/$t" 2>/dev/null || true
	fi
done
rmdir fuzz-artifacts 2>/dev/null || true
exit $status
