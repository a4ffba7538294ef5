#!/usr/bin/env bash
# Runs, from an existing build folder, everything that needs a GPU: the GPU suites, the unit
# suite, the samples and the benchmark. Binaries are run directly (no CTest), so a build folder made
# on another machine works. One log per program goes to $OUT (if set) or <build>/gpu-logs; the
# last lines of each are printed. Exit status: 0 when every program passed.
#   usage: scripts/gpu-suite.sh [build-folder] [--all] [--memcheck] [--soak] [--soak-short] [--sanitizers]
#   --all         everything in one call: the suites, memcheck over the GPU suite, racecheck/synccheck/
#                 initcheck, and a short soak (1,000 cycles); one log per run under $OUT and a summary
#                 table (run, exit status, verdict) at the end
#   --soak-short  the soak with 1,000 cycles instead of 10,000
#   --soak        also runs the leak soak (tests/graphdsl_soak, 10,000 cycles; docs/reliability.md)
#   --memcheck    also runs the GPU suite under compute-sanitizer memcheck (with --soak: 1,000 soak
#                 cycles too)
#   --sanitizers  also runs compute-sanitizer racecheck, synccheck and initcheck over a smaller run:
#                 the GPU suite's test cases selected by $SANITIZER_TESTS (a Catch2 filter; default
#                 "~[error]~[threads]": the positive cases but the 8-thread stress) and
#                 $SANITIZER_SOAK_CYCLES soak cycles (default 200); initcheck leaves out the test
#                 cases named device_launch* (it did not finish the device-launch test, see
#                 docs/reliability.md). Each run prints its hazard count (racecheck's hazards, the
#                 other tools' errors); one the sanitizer refuses (device not supported, tool
#                 missing) is reported as skipped, which neither passes nor fails the suite. $SANITIZER_TIMEOUT (seconds)
#                 bounds each run; one that overruns fails.
set -uo pipefail
build="${1:-build}"
memcheck=0
soak=0
sanitizers=0
soak_cycles=10000
table=()  # one line per run: name, exit status, verdict
for option in "${@:2}"; do
  case "$option" in
    --memcheck) memcheck=1 ;;
    --soak) soak=1 ;;
    --soak-short) soak=1; soak_cycles=1000 ;;
    --sanitizers) sanitizers=1 ;;
    --all) memcheck=1; sanitizers=1; soak=1; soak_cycles=1000 ;;
    *) echo "gpu-suite.sh: unknown option '$option' (expected --all, --memcheck, --soak, --soak-short or --sanitizers)" >&2; exit 2 ;;
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
  local verdict=passed
  [ $rc -eq 0 ] || { status=1; verdict=FAILED; }
  table+=("$(printf '%-28s exit %-4s %s' "$name" "$rc" "$verdict")")
}
soak_api_errors() {  # soak binary: 200 cycles under memcheck, API errors reported and judged
  local log
  log=$(mktemp)
  compute-sanitizer --tool memcheck --report-api-errors all "$1" 200 --drift-informational >"$log" 2>&1
  local rc=$?
  cat "$log"
  local unexpected
  unexpected=$(grep "Program hit" "$log" | grep -v -E "on CUDA API call to (cudaMalloc|cudaStreamEndCapture|cudaGetLastError)\.$")
  rm -f "$log"
  if [ -n "$unexpected" ]; then
    echo "unexpected API errors:"
    echo "$unexpected" | sort | uniq -c
    return 1
  fi
  return "$rc"
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
run gpu_tests "$build/tests/graphdsl_gpu_tests" "~[profile]~[.]" --durations yes
run gpu_profile_tests "$build/tests/graphdsl_gpu_tests" "[profile]~[profile_unattached]~[no_cupti]"
[ -x "$build/tests/graphdsl_cublas_tests" ] && run cublas_tests "$build/tests/graphdsl_cublas_tests"
run unit_tests "$build/tests/graphdsl_unit_tests"
# Two GPUs (exit 77, "skipped: needs 2 GPUs", with fewer); then the NcclError when NCCL is missing.
if [ -x "$build/tests/graphdsl_multi_gpu_tests" ]; then
  echo "=== multi_gpu_tests: $build/tests/graphdsl_multi_gpu_tests"
  "$build/tests/graphdsl_multi_gpu_tests" --durations yes >"$logs/multi_gpu_tests.log" 2>&1
  rc=$?
  tail -n 25 "$logs/multi_gpu_tests.log"
  if [ $rc -eq 77 ]; then
    echo "=== multi_gpu_tests: skipped"
  else
    echo "=== multi_gpu_tests: exit $rc"
    [ $rc -eq 0 ] || status=1
    if [ -f "$build/libgraphdsl_nccl.a" ]; then  # built with graphdsl::nccl: the suite has the hidden case
      GRAPHDSL_NCCL_LIBRARY=libnccl-missing.so run nccl_missing "$build/tests/graphdsl_multi_gpu_tests" "[.nccl-missing]"
    fi
  fi
fi
# One process of a multi-process NCCL job, alone (one GPU): a world of one rank (joined, adopted),
# and a peer that never joins (NcclError within the timeout). Two processes: the multi-GPU suite.
if [ -x "$build/tests/graphdsl_mp_rank" ]; then
  for mode_world in ok:1 adopt:1 alone:2; do
    rm -f "$logs/nccl_${mode_world%:*}.id"
    run "nccl_${mode_world%:*}" "$build/tests/graphdsl_mp_rank" "${mode_world%:*}" 0 "${mode_world#*:}" 0 "$logs/nccl_${mode_world%:*}.id"
  done
fi
for sample in quickstart pipeline graph_update_experiments conditional_while switch_dispatch cuda_core_examples pdl_chain serving device_launch cublas_capture decode_step multi_gpu multi_process ${GPU_SUITE_BENCH-bench}; do
  [ -x "$build/samples/$sample" ] && run "$sample" "$build/samples/$sample"
done
if [ $soak -eq 1 ]; then
  run soak "$build/tests/graphdsl_soak" "$soak_cycles"
fi
if [ $memcheck -eq 1 ]; then
  # compute-sanitizer cannot see leaked graphs (graphdsl's counters can), but it sees device memory
  # errors and leaked allocations. Deliberate API errors of the fault tests are not counted.
  # Two processes: the cases tagged [captured-alloc] (a captured cudaMallocAsync whose memory the
  # executable frees outside the graph) run on their own. After them memcheck loses track of a later
  # graph's allocations in the same process (a kernel's accesses to a mem_alloc node's buffer are
  # reported out of bounds; alone, and without the tool, the same case passes with exact results)
  # and reports 4,096 B its raw-CUDA replica also gets (docs/reliability.md, section 4).
  run memcheck compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 99 \
    "$build/tests/graphdsl_gpu_tests" "~[captured-alloc]"
  run memcheck_captured_alloc compute-sanitizer --tool memcheck --leak-check full --report-api-errors no \
    "$build/tests/graphdsl_gpu_tests" "[captured-alloc]"
  if [ $soak -eq 1 ]; then
    # Drift figures are printed but not judged here: the sanitizer's own allocations move them.
    run memcheck_soak compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 99 \
      "$build/tests/graphdsl_soak" 1000 --drift-informational
    # The same soak with API errors reported, three times (heap damage shows in some runs only):
    # the capture cycles' invalidated captures must fail only where the captured function broke
    # them (its cudaMalloc, the end of the capture, the error it leaves). A destroy call that CUDA
    # refuses means graphdsl touched a handle CUDA had already destroyed (an invalidated capture
    # takes its graph with it), which corrupts the heap.
    for rep in 1 2 3; do
      run "memcheck_soak_api_$rep" soak_api_errors "$build/tests/graphdsl_soak"
    done
  fi
fi
if [ $sanitizers -eq 1 ]; then
  # racecheck, synccheck and initcheck: 0 hazards required. Deliberate API errors are not counted.
  sanitizer_tests="${SANITIZER_TESTS:-~[error]~[threads]}"
  sanitizer_cycles="${SANITIZER_SOAK_CYCLES:-200}"
  sanitizer_timeout="${SANITIZER_TIMEOUT:-0}"
  summary=()
  sanitize() {  # tool, name, program and arguments...
    local tool="$1" name="$2"; shift 2
    local log="$logs/$name.log" verdict hazards
    echo "=== $name: compute-sanitizer --tool $tool $*"
    if ! command -v compute-sanitizer >/dev/null 2>&1; then
      summary+=("$name: skipped (compute-sanitizer not found)")
      return
    fi
    timeout "$sanitizer_timeout" compute-sanitizer --tool "$tool" --error-exitcode 99 --report-api-errors no "$@" \
      >"$log" 2>&1
    local rc=$?
    tail -n 12 "$log"
    # the sanitizer's own lines start with "========="; a refusal says the device or tool is not supported
    local refusal
    refusal=$(grep -iE '^=+ .*(device not supported|not supported on|unsupported (device|gpu|architecture|platform))' "$log" | head -n 1)
    if [ -n "$refusal" ]; then
      verdict="skipped (${refusal#*= })"
    elif [ $rc -eq 124 ]; then
      verdict="FAILED (still running after ${sanitizer_timeout} s)"; status=1
    else
      # racecheck: "RACECHECK SUMMARY: N hazards displayed (...)"; the others: "ERROR SUMMARY: N errors"
      hazards=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -oE '[0-9]+' | tail -n 1)
      [ -n "$hazards" ] || hazards=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$log" | grep -oE '[0-9]+' | tail -n 1)
      if [ -z "$hazards" ]; then
        verdict="FAILED (exit $rc, no sanitizer summary)"; status=1
      elif [ "$hazards" -eq 0 ] && [ $rc -eq 0 ]; then
        verdict="0 hazards"
      else
        verdict="FAILED ($hazards hazards, exit $rc)"; status=1
      fi
    fi
    echo "=== $name: $verdict"
    summary+=("$name: $verdict")
    table+=("$(printf '%-28s exit %-4s %s' "$name" "${rc:-?}" "$verdict")")
  }
  for tool in racecheck synccheck initcheck; do
    tests="$sanitizer_tests"
    [ "$tool" = initcheck ] && tests="$sanitizer_tests~device_launch*"
    sanitize "$tool" "${tool}_gpu_tests" "$build/tests/graphdsl_gpu_tests" "$tests"
    sanitize "$tool" "${tool}_soak" "$build/tests/graphdsl_soak" "$sanitizer_cycles" --capture-cycles "$sanitizer_cycles" \
      --warmup 20 --drift-informational
  done
  passed=0 failed=0 skipped=0
  for line in "${summary[@]}"; do
    case "$line" in
      *": 0 hazards") passed=$((passed + 1)) ;;
      *": skipped"*) skipped=$((skipped + 1)) ;;
      *) failed=$((failed + 1)) ;;
    esac
  done
  echo "=== sanitizers (GPU tests \"$sanitizer_tests\", $sanitizer_cycles soak cycles): $passed runs with 0 hazards," \
    "$failed failed, $skipped skipped"
  printf '    %s\n' "${summary[@]}"
fi
echo "=== summary (logs in $logs)"
printf '    %s\n' "${table[@]}"
exit $status
