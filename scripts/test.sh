#!/bin/sh
# The whole test suite, twice: a normal build and an ASan+UBSan build.
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
# Sanitizers: any error aborts the process, so a test cannot pass over one.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:halt_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debug
# ThreadSanitizer (clang) over the code ring worker threads share: the pure
# executor on several threads (test_exec_threads: accounts charged
# concurrently) and the scheduler. Only these targets: the compositor
# itself does not run under TSan (wlroots and libwayland are not built
# for it). A minute or two on two cores.
tsan_tests="exec_threads present_post sched sched_workers waiter_first wayland_backlog"
if [ -d build-tsan ]; then
	CC=clang meson setup --reconfigure build-tsan -Db_sanitize=thread -Db_lundef=false >/dev/null
else
	CC=clang meson setup build-tsan -Db_sanitize=thread -Db_lundef=false >/dev/null
fi
meson compile -C build-tsan $(for t in $tsan_tests; do printf 'tests/unit/test_%s ' "$t"; done) &&
	TSAN_OPTIONS="halt_on_error=1" meson test -C build-tsan --no-rebuild --print-errorlogs \
		$tsan_tests || failed=1
# One summary line over the three runs, from meson's own logs.
python3 tests/summarize.py build/meson-logs/testlog.json build-asan/meson-logs/testlog.json \
	build-tsan/meson-logs/testlog.json
exit $failed
