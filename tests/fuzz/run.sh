#!/bin/sh
# Build fuzz_ring with clang (libFuzzer + ASan + UBSan) and run it for a
# bounded time. Usage: tests/fuzz/run.sh SECONDS [extra libFuzzer flags]
# Works in a temporary directory; crashes are copied to ./fuzz-artifacts/.
set -eu

seconds=${1:-60}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/smt-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc=${CLANG:-clang}

flags="-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Wall -Wextra -Werror
       -I$root $(pkg-config --cflags pixman-1)"
san="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"

$cc $flags $san "$here/fuzz_ring.c" "$root"/compositor/exec/*.c \
	"$root/protocol/smt-ring-server.c" -o "$work/fuzz_ring" $(pkg-config --libs pixman-1) -lm
$cc $flags "$here/gen_seeds.c" -o "$work/gen_seeds"

mkdir -p "$work/corpus" "$work/seeds"
"$work/gen_seeds" "$work/seeds"
cp "$here"/corpus/* "$work/seeds/" 2>/dev/null || true

mkdir -p fuzz-artifacts
status=0
"$work/fuzz_ring" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-max_len=65536 -print_final_stats=1 -artifact_prefix=fuzz-artifacts/ \
	"$@" "$work/corpus" "$work/seeds" || status=$?
rmdir fuzz-artifacts 2>/dev/null || true
exit $status
