#!/usr/bin/env bash
# Runs, from an existing build folder, everything that needs a GPU: the GPU suites, the unit
# suite, the samples and the benchmark. Binaries are run directly (no CTest), so a build folder made
# on another machine works. One log per program goes to $OUT (if set) or <build>/gpu-logs; the
# last lines of each are printed. Exit status: 0 when every program passed.
#   usage: scripts/gpu-suite.sh [build-folder] [--memcheck] [--soak]
#   --soak      also runs the leak soak (tests/graphdsl_soak, 10,000 cycles; docs/reliability.md)
#   --memcheck  also runs the GPU suite under compute-sanitizer memcheck (with --soak: 1,000 soak
#               cycles too)
set -uo pipefail
build="${1:-build}"
memcheck=0
soak=0
for option in "${@:2}"; do
  case "$option" in
    --memcheck) memcheck=1 ;;
    --soak) soak=1 ;;
    *) echo "gpu-suite.sh: unknown option '$option' (expected --memcheck or --soak)" >&2; exit 2 ;;
  esac
done
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
if [ $soak -eq 1 ]; then
  run soak "$build/tests/graphdsl_soak" 10000
fi
if [ $memcheck -eq 1 ]; then
  # compute-sanitizer cannot see leaked graphs (graphdsl's counters can), but it sees device memory
  # errors and leaked allocations. Deliberate API errors of the fault tests are not counted.
  run memcheck compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 99 \
    "$build/tests/graphdsl_gpu_tests"
  if [ $soak -eq 1 ]; then
    # Drift figures are printed but not judged here: the sanitizer's own allocations move them.
    run memcheck_soak compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 99 \
      "$build/tests/graphdsl_soak" 1000 --drift-informational
  fi
fi
exit $status
