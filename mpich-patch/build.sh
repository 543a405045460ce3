#!/usr/bin/env bash
# Builds MPICH 4.0.2 (the release Debian ships, from `apt-get source mpich`)
# with vaced's engine in its CH3 device (patches/*.patch), Fortran on, into
# a prefix (default target/mpich-vaced). See mpich-patch/README.md.
#
# usage: mpich-patch/build.sh [--prefix DIR] [--jobs N]
#
# Incremental: the source is copied and patched again only when a patch
# changed; configure runs once per copy; the engine (crate vaced-engine) is
# rebuilt and MPICH's library relinked whenever it changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/env.sh

prefix="$root/target/mpich-vaced"
jobs="$(nproc)"
while [ $# -gt 0 ]; do
    case "$1" in
    --prefix) prefix="$(realpath -m "$2")"; shift 2 ;;
    --prefix=*) prefix="$(realpath -m "${1#--prefix=}")"; shift ;;
    --jobs | -j) jobs="$2"; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "mpich-patch/build.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
work="$root/target/mpich-build"
mkdir -p "$work"
log() { echo "mpich-patch: $*" >&2; }
began=$(date +%s)

# 1. The engine: one relocatable object in which only the vaced_eng_*
# functions stay global (the archive also holds vaced's own MPI functions
# and Rust's runtime, which must never meet MPICH's symbols).
log "building the engine (cargo build --release -p vaced-engine)"
cargo build --release -q -p vaced-engine
# (an object, not an archive: GNU ar's symbol table goes through the
# linker plugins installed, which may not read an object of this size)
lib="$root/target/release/libvaced_engine.a"
engine="$work/vaced_engine.o"
if [ ! -e "$engine" ] || [ "$lib" -nt "$engine" ]; then
    ld -r --whole-archive "$lib" -o "$work/vaced_engine_all.o"
    objcopy --wildcard --keep-global-symbol='vaced_eng_*' \
        "$work/vaced_engine_all.o" "$engine"
    rm -f "$work/vaced_engine_all.o"
    engine_changed=1
else
    engine_changed=0
fi

# 2. The source: the test-suite harness's copy (target/conformance/src,
# fetched with apt-get source, a deb-src entry added when apt has none).
orig="$root/target/conformance/src/mpich-4.0.2"
if [ ! -f "$orig/configure" ]; then
    log "fetching the MPICH source (conformance/run --list: apt-get source mpich)"
    conformance/run --list --dirs basic >/dev/null
fi
[ -f "$orig/configure" ] || { log "no MPICH source in $orig"; exit 1; }

# 3. A patched copy. When the patches change, the files they touch are
# patched again from the original and only those whose content changed are
# replaced (make then rebuilds what depends on them, not everything).
src="$work/mpich-4.0.2"
if [ ! -f "$src/configure" ]; then
    log "copying the source ($src)"
    rm -rf "$src"
    cp -a "$orig" "$src"
fi
stamp="$(cat mpich-patch/patches/*.patch | sha256sum | cut -c1-16)"
if [ "$(cat "$src/.vaced-patches" 2>/dev/null)" != "$stamp" ]; then
    log "patching the source"
    fresh="$work/patched"
    rm -rf "$fresh"
    mkdir -p "$fresh"
    files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' mpich-patch/patches/*.patch | sort -u)
    for f in $files; do
        if [ -f "$orig/$f" ]; then
            mkdir -p "$fresh/$(dirname "$f")"
            cp -p "$orig/$f" "$fresh/$f"
        fi
    done
    for p in mpich-patch/patches/*.patch; do
        patch -s -p1 -d "$fresh" <"$p"
    done
    for f in $files; do
        if ! cmp -s "$fresh/$f" "$src/$f"; then
            mkdir -p "$src/$(dirname "$f")"
            cp "$fresh/$f" "$src/$f"
        fi
    done
    # files an earlier patch touched and these do not: the original again
    for f in $(cat "$src/.vaced-files" 2>/dev/null); do
        if ! grep -qx "$f" <<<"$files"; then
            if [ -f "$orig/$f" ]; then cp "$orig/$f" "$src/$f"; else rm -f "$src/$f"; fi
        fi
    done
    rm -rf "$fresh"
    echo "$files" >"$src/.vaced-files"
    echo "$stamp" >"$src/.vaced-patches"
fi

# 4. Configure (once per copy), build, install.
if [ ! -f "$src/Makefile" ] || [ "$(cat "$src/.vaced-prefix" 2>/dev/null)" != "$prefix" ]; then
    log "configuring (ch3:nemesis, Fortran) for $prefix"
    (cd "$src" && ./configure -q --prefix="$prefix" \
        --with-device=ch3:nemesis --with-pm=hydra --enable-fortran=all \
        --disable-doc --enable-fast=O2 --without-yaksa --with-hwloc-prefix=/usr \
        FFLAGS=-fallow-argument-mismatch FCFLAGS=-fallow-argument-mismatch \
        MPICHLIB_CPPFLAGS="-I$root/include" >"$work/configure.log" 2>&1) || {
        tail -20 "$work/configure.log" >&2
        log "configure failed: $work/configure.log"
        exit 1
    }
    echo "$prefix" >"$src/.vaced-prefix"
fi
if [ "$engine_changed" = 1 ]; then
    # make does not know the engine: relink MPICH's library
    rm -f "$src"/lib/libmpi.la "$src"/lib/.libs/libmpi.so*
fi
# The engine joins MPICH's library: the top Makefile's external libraries
# of libmpi (a make command-line variable would reach every sub-make).
if ! grep -q "^external_libs = .*vaced_engine.o" "$src/Makefile"; then
    sed -i "s|^external_libs = .*|& $engine -lgcc_s -ldl -lm -lpthread|" "$src/Makefile"
fi
log "building ($jobs jobs; log: $work/make.log)"
(cd "$src" && make -j"$jobs" >"$work/make.log" 2>&1 &&
    make install >"$work/install.log" 2>&1) || {
    grep -E 'error|Error' "$work/make.log" | head -20 >&2
    log "build failed: $work/make.log"
    exit 1
}
log "installed in $prefix ($(($(date +%s) - began)) s)"
