#!/usr/bin/env bash
# Builds vaced and runs the bundled demo (demo/jacobi.c, a 1-D heat diffusion
# with halo exchanges) at 64 ranks on this host, predicting its run time on
# the Tianhe-1A target of the VACED paper. The JSON report goes to
# target/demo-report.json.
set -euo pipefail
source "$(dirname "$0")/scripts/env.sh"

cargo build --release
eval "$(target/release/vaced env)"
mkdir -p target/demo
mpicc -O2 demo/jacobi.c -o target/demo/jacobi -lm
mpirun -n 64 --target tianhe1a --report target/demo-report.json target/demo/jacobi "$@"
echo "report: target/demo-report.json"
