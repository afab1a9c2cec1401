#!/bin/sh
# tests/valgrind/run.sh [BUILDDIR]: the valgrind scenario by hand.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
export SMTWC="$build/compositor/smtwc" SMT_VPOINTER="$build/tests/tools/smt-vpointer"
export SMT_HOSTILE="$build/tests/tools/smt-hostile" SMT_DEMO="$build/clients/smt-demo"
exec python3 "$here/valgrind_scenario.py"
