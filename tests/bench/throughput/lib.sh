# Shared by tests/bench/*/run: start a private headless smtwc, stop it by pid.
# Sets SMTWC_PID, WAYLAND_DISPLAY, XDG_RUNTIME_DIR, X_DISPLAY (the session's
# lazily started Xwayland), BENCH_TMP (that compositor's runtime directory,
# removed with it). SERVER_CPUS (a taskset CPU list, e.g. 1), when set, pins
# the compositor and everything it starts (its Xwayland) to those CPUs.
# SMTWC_CONFIG, when set, is the compositor's configuration file (default
# none: -c /dev/null, every setting at its default).
# A benchmark that starts a fresh compositor per round (so that its rounds
# also sample what changes between compositors: where the scheduler puts
# it, its Xwayland, its memory; docs/benchmarks.md, "Rounds") keeps its raw
# files in BENCH_RES (bench_results), which outlives the compositors and is
# removed on exit.
# Installs what the benchmarks need first (scripts/deps.sh bench).
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
PERF=$BUILD/clients/smt-perf
"$ROOT/scripts/deps.sh" bench
# Tables and plots: the python3 first on PATH, unless it cannot import numpy
# and matplotlib (a pyenv or venv python3 does not see the Debian packages
# deps.sh installs): then Debian's, and says so.
PLOTPY=python3
if ! python3 -c 'import numpy, matplotlib' 2>/dev/null; then
	echo "$(basename "$(dirname "$0")"): $(command -v python3) cannot import numpy and" \
		"matplotlib; tables and plots run under /usr/bin/python3" >&2
	PLOTPY=/usr/bin/python3
fi

start_smtwc() {
	BENCH_TMP=$(mktemp -d /tmp/smt-bench.XXXXXX)
	export XDG_RUNTIME_DIR=$BENCH_TMP
	chmod 700 "$BENCH_TMP"
	unset WAYLAND_DISPLAY DISPLAY
	ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
	local pin=()
	[ -n "${SERVER_CPUS:-}" ] && pin=(taskset -c "$SERVER_CPUS")
	WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=1 \
		"${pin[@]}" "$BUILD/compositor/smtwc" --backend headless -c "${SMTWC_CONFIG:-/dev/null}" \
		-s "echo \$DISPLAY > $BENCH_TMP/display" \
		>"$BENCH_TMP/smtwc.log" 2>&1 &
	SMTWC_PID=$!
	for _ in $(seq 100); do
		if grep -q '^WAYLAND_DISPLAY=' "$BENCH_TMP/smtwc.log" 2>/dev/null && \
		   [ -s "$BENCH_TMP/display" ]; then
			break
		fi
		sleep 0.1
	done
	WAYLAND_DISPLAY=$(grep -m1 '^WAYLAND_DISPLAY=' "$BENCH_TMP/smtwc.log" | cut -d= -f2)
	export WAYLAND_DISPLAY
	X_DISPLAY=$(cat "$BENCH_TMP/display" 2>/dev/null)
	if [ -z "$WAYLAND_DISPLAY" ]; then
		echo "smtwc did not start:" >&2
		cat "$BENCH_TMP/smtwc.log" >&2
		stop_smtwc
		exit 1
	fi
	trap bench_exit EXIT
}

bench_results() {
	BENCH_RES=$(mktemp -d /tmp/smt-bench-res.XXXXXX)
	trap bench_exit EXIT
}

bench_exit() {
	stop_smtwc
	[ -n "${BENCH_RES:-}" ] && rm -rf "$BENCH_RES"
	BENCH_RES=
}

stop_smtwc() {
	if [ -n "${SMTWC_PID:-}" ] && kill -0 "$SMTWC_PID" 2>/dev/null; then
		kill "$SMTWC_PID" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$SMTWC_PID" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$SMTWC_PID" 2>/dev/null || true
	fi
	SMTWC_PID=
	[ -n "${BENCH_TMP:-}" ] && rm -rf "$BENCH_TMP"
	BENCH_TMP=
}
