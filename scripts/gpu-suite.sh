#!/usr/bin/env bash
# Runs, from an existing build folder, everything that needs a GPU: the GPU suite, the unit suite,
# the samples and the benchmark. Binaries are run directly (no CTest), so a build folder made on
# another machine works. Logs go to $OUT (if set) or <build>/gpu-logs.
#   usage: scripts/gpu-suite.sh [build-folder]
set -uo pipefail
build="${1:-build}"
logs="${OUT:-$build/gpu-logs}"
mkdir -p "$logs"
status=0
run() {  # name, command...
  local name="$1"; shift
  echo "=== $name: $*"
  "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  tail -n 40 "$logs/$name.log"
  echo "=== $name: exit $rc"
  [ $rc -eq 0 ] || status=1
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
run gpu_tests "$build/tests/graphdsl_gpu_tests" --durations yes
run unit_tests "$build/tests/graphdsl_unit_tests"
for sample in quickstart pipeline graph_update_experiments conditional_while switch_dispatch bench; do
  [ -x "$build/samples/$sample" ] && run "$sample" "$build/samples/$sample"
done
exit $status
