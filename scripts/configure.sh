#!/usr/bin/env bash
# Configures build/ (or $GRAPHDSL_BUILD_DIR) once; later calls only rebuild. Sourced by demo.sh and test.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHDSL_BUILD_DIR:-$root/build}"
command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
if [ ! -f "$build/CMakeCache.txt" ]; then
  gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE="${GRAPHDSL_BUILD_TYPE:-Release}"
fi
