# Sourced by demo.sh and test.sh: run from the repository root, with the
# dependencies installed and cargo on PATH.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/deps.sh
if ! command -v cargo >/dev/null 2>&1; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
