#!/bin/sh
# The suite on the harshest machine CI could be: every test pinned to one
# CPU with a busy loop beside it, one test at a time, meson's timeouts
# stretched (-t) so that a slow test's whole duration is measured; then each
# test's duration against its own timeout (tests/timeout_margins.py: a test
# that failed, or took more than a third of its timeout, fails the run).
# docs/reliability.md, "The suite on a loaded machine".
#
#   scripts/test-harsh.sh [--build DIR] [--cpu N] [--multiplier M] [TEST... | --suite S...]
#
# Two runs can share the machine on different CPUs (--cpu 0, --cpu 1):
# each writes its own log, DIR/meson-logs/harsh-cpuN-TIME.json, which
# tests/timeout_margins.py reads again with the logs of other runs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
cpu=0
multiplier=4
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--multiplier) multiplier=$2; shift 2 ;;
	*) break ;;
	esac
done
logbase=harsh-cpu$cpu-$(date +%Y%m%d-%H%M%S)
taskset -c "$cpu" sh -c 'while :; do :; done' &
busy=$!
trap 'kill "$busy" 2>/dev/null || true' EXIT INT TERM
rc=0
taskset -c "$cpu" meson test -C "$build" --no-rebuild --print-errorlogs --num-processes 1 \
	-t "$multiplier" --logbase "$logbase" "$@" || rc=1
kill "$busy"
trap - EXIT INT TERM
python3 "$root/tests/timeout_margins.py" "$build" "$build/meson-logs/$logbase.json" || rc=1
exit $rc
