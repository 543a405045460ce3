#!/usr/bin/env bash
# Installs what is missing, then checks formatting, lints and runs every test
# (unit tests and the end-to-end tests of tests/, which build C MPI programs
# with our mpicc and run them with our mpirun).
set -euo pipefail
source "$(dirname "$0")/scripts/env.sh"

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
conformance/run --ci
