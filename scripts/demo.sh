#!/usr/bin/env bash
# Quick start 1: build and run the main demo (samples/pipeline). With a GPU it runs the pipeline
# and prints its check and timings; without one it builds, validates and prints the plan.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/deps.sh"
source "$root/scripts/configure.sh"
cmake --build "$build" --target pipeline -j "$(nproc)"
"$build/samples/pipeline"
