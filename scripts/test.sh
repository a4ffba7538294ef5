#!/usr/bin/env bash
# Quick start 2: build everything and run all tests. The unit suite runs anywhere; the GPU suite
# runs on a GPU and is reported as skipped ("skipped: no CUDA device") without one.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/deps.sh"
source "$root/scripts/configure.sh"
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
