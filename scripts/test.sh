#!/bin/sh
# The whole test suite: a normal build, the fuzzers, an ASan+UBSan build,
# and a ThreadSanitizer build of what runs on several threads.
# Installs what the tests need first. CI runs exactly this (.ci/run).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/deps.sh test

run_suite() {
	dir=$1
	shift
	if [ -d "$dir" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@"
	fi
	meson compile -C "$dir"
	meson test -C "$dir" --print-errorlogs --num-processes 2 || failed=1
}

failed=0
run_suite build
# Every libFuzzer target for a bounded time (clang's -fsanitize=fuzzer).
CLANG=clang tests/fuzz/fuzz.sh "${SMT_FUZZ_SECONDS:-60}" || failed=1
# Sanitizers: any error aborts the process, so a test cannot pass over one
# (the options are the test setup's, tests/meson.build).
run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debug
# ThreadSanitizer (gcc) over the code that runs on several threads: the
# pure executor on several threads (test_exec_threads: accounts charged
# concurrently), the scheduler, the posted PRESENTs and Xwayland's backlog;
# then the compositor itself with workers (every integration test named
# *_workers, and ring_workers_preempt: input watched for, session 33), and X
# tests with the X server half under TSan inside Xwayland (its runtime
# preloaded first there: xwayland-glue/meson.build). wlroots, libwayland,
# pixman and Xwayland are not built for TSan, so what they touch is not
# seen; what our threads share is (a TSan-built compositor found the
# client's wake-up counts written by the main thread and a worker at once).
# gcc's, not clang's: clang's runtime cannot be preloaded into Xwayland.
# About seven minutes on two cores.
tsan_tests="exec_threads present_post sched sched_workers waiter_first wayland_backlog ring_workers_preempt ring_boost_lane"
tsan_x11="x11_wayland_backlog x11_backlog_writer x11_fds_in_flight x11_restart x11_ring_clients"
if grep -qs '"command": "clang' build-tsan/compile_commands.json; then
	rm -rf build-tsan # set up with clang before: meson keeps a build's compiler
fi
if [ -d build-tsan ]; then
	CC=gcc meson setup --reconfigure build-tsan -Db_sanitize=thread -Db_lundef=false >/dev/null
else
	CC=gcc meson setup build-tsan -Db_sanitize=thread -Db_lundef=false >/dev/null
fi
if meson compile -C build-tsan; then
	tsan_workers=$(meson test -C build-tsan --no-rebuild --list 2>/dev/null |
		sed -n 's|^smtwc:integration / \(.*_workers\)$|\1|p')
	meson test -C build-tsan --no-rebuild --print-errorlogs \
		--num-processes 2 $tsan_tests $tsan_workers $tsan_x11 || failed=1
else
	failed=1
fi
# One summary line over the three runs, from meson's own logs.
python3 tests/summarize.py build/meson-logs/testlog.json build-asan/meson-logs/testlog.json \
	build-tsan/meson-logs/testlog.json
exit $failed
