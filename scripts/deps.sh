#!/usr/bin/env bash
# Installs what building and testing vaced needs, only where it is missing:
#   - system packages: gcc and the C library headers (mpicc, the C shims),
#     libclang-dev (bindgen reads include/mpi.h through libclang),
#     gfortran (the Fortran `mpi` module, mpif77 / mpif90, Fortran tests),
#     mpich and libmpich-dev (the system MPI that vaced-calibrate, calibrate/,
#     measures; also bench-npb/run --mpich);
#     make, patch and libhwloc-dev (mpich-patch/build.sh builds MPICH);
#   - a Rust toolchain with rustfmt and clippy (through rustup).
# apt-get update runs only when something has to be installed.
set -euo pipefail

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "deps.sh: need root (or sudo) to run: $*" >&2
        exit 1
    fi
}

missing=()
if command -v dpkg >/dev/null 2>&1; then
    for pkg in gcc libc6-dev libclang-dev gfortran mpich libmpich-dev make patch libhwloc-dev; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
        command -v curl >/dev/null 2>&1 || missing+=(curl ca-certificates)
    fi
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "deps.sh: installing ${missing[*]}" >&2
        as_root apt-get update
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
    fi
else
    command -v gcc >/dev/null 2>&1 ||
        echo "deps.sh: warning: no dpkg here; install gcc, libclang, gfortran and MPICH yourself" >&2
fi

# Rust: use the one on PATH, else ~/.cargo/bin, else install rustup.
if ! command -v cargo >/dev/null 2>&1; then
    if [ ! -x "$HOME/.cargo/bin/cargo" ]; then
        echo "deps.sh: installing the Rust toolchain (rustup)" >&2
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
            sh -s -- -y --profile minimal --component rustfmt,clippy
    fi
fi
if command -v rustup >/dev/null 2>&1 || [ -x "$HOME/.cargo/bin/rustup" ]; then
    rustup_bin=$(command -v rustup || echo "$HOME/.cargo/bin/rustup")
    for comp in rustfmt clippy; do
        "$rustup_bin" component list --installed 2>/dev/null | grep -q "^$comp" ||
            "$rustup_bin" component add "$comp"
    done
fi
