#!/bin/sh
# The compositor under valgrind memcheck: the harness starts this instead of
# smtwc (SMTWC=this script, SMTWC_REAL=the real binary, VALGRIND_LOG=file).
here=$(cd "$(dirname "$0")" && pwd)
exec valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
	--show-leak-kinds=definite --errors-for-leak-kinds=definite \
	--track-fds=no --num-callers=30 --child-silent-after-fork=yes \
	--suppressions="$here/smtwc.supp" --gen-suppressions=all \
	--log-file="${VALGRIND_LOG:-/tmp/smtwc-valgrind.%p.log}" \
	"$SMTWC_REAL" "$@"
