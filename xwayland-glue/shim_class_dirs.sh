#!/bin/sh
# Build tree layout for the per-class preload path (elf32/meson.build):
#   OUTDIR/lib/MULTIARCH/libsmt-x11shim.so      -> the shim
#   OUTDIR/lib/i386-linux-gnu/libsmt-x11shim.so -> the ELF32 twin
#   OUTDIR/lib32/libsmt-x11shim.so              -> the same twin ($LIB of
#     Debian's biarch i386 ld.so, libc6-i386: what gcc -m32 programs use)
# Usage: shim_class_dirs.sh OUTDIR MULTIARCH SHIM ELF32 STAMP
set -eu
out=$1 ma=$2 shim=$3 elf32=$4 stamp=$5
mkdir -p "$out/lib/$ma" "$out/lib/i386-linux-gnu" "$out/lib32"
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
shim=$(abs "$shim")
elf32=$(abs "$elf32")
ln -sf "$shim" "$out/lib/$ma/libsmt-x11shim.so"
ln -sf "$elf32" "$out/lib/i386-linux-gnu/libsmt-x11shim.so"
ln -sf "$elf32" "$out/lib32/libsmt-x11shim.so"
: > "$stamp"
