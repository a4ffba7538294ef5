#!/usr/bin/env bash
# Runs, from an existing build folder, everything that needs a GPU: the GPU suites, the unit
# suite, the samples and the benchmark. Binaries are run directly (no CTest), so a build folder made
# on another machine works. One log per program goes to $OUT (if set) or <build>/gpu-logs; the
# last lines of each are printed. Exit status: 0 when every program passed.
#   usage: scripts/gpu-suite.sh [build-folder] [--memcheck]
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
  tail -n 25 "$logs/$name.log"
  echo "=== $name: exit $rc"
  [ $rc -eq 0 ] || status=1
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
run gpu_tests "$build/tests/graphdsl_gpu_tests" --durations yes
[ -x "$build/tests/graphdsl_cublas_tests" ] && run cublas_tests "$build/tests/graphdsl_cublas_tests"
run unit_tests "$build/tests/graphdsl_unit_tests"
for sample in quickstart pipeline graph_update_experiments conditional_while switch_dispatch cublas_capture bench; do
  [ -x "$build/samples/$sample" ] && run "$sample" "$build/samples/$sample"
done
if [ "${2:-}" = "--memcheck" ]; then
  # compute-sanitizer cannot see leaked graphs (graphdsl's counters can), but it sees device memory
  # errors and leaked allocations. Deliberate API errors of the fault tests are not counted.
  run memcheck compute-sanitizer --tool memcheck --leak-check full --report-api-errors no \
    "$build/tests/graphdsl_gpu_tests"
fi
exit $status
