#!/usr/bin/env bash
# CI, after the main suite (.ci/run calls it): the checks that need builds of their own. No GPU.
#   1. ThreadSanitizer: the unit cases that start threads (graphdsl_thread_tests: tests/unit/
#      threads_test.cpp, no CUDA call) built with g++ -fsanitize=thread, library included; any TSan
#      report fails. GRAPHDSL_TSAN_TARGET=graphdsl_unit_tests runs the whole unit suite instead.
#   2. Fuzz smoke: the plan-builder fuzz harness (tests/fuzz) built with clang++, ASan and UBSan;
#      it replays the seed corpus plus seeded random inputs, then libFuzzer runs for FUZZ_SECONDS.
#   3. Newest CUDA 13.x (compile only): a toolkit assembled from PyPI's wheels (nvidia-cuda-nvcc,
#      -nvvm, -crt, -runtime, -cccl) compiles the library and the quickstart sample, so that API
#      drift in a new toolkit shows the day it ships. Skipped, with a message, when pip or the
#      registry cannot be reached. CUDA_WHEEL_SPEC picks the version (default ">=13,<14").
# Build folders: build-tsan, build-fuzz and build-wheel under the repository root
# ($GRAPHDSL_TSAN_BUILD_DIR, $GRAPHDSL_FUZZ_BUILD_DIR, $GRAPHDSL_WHEEL_BUILD_DIR). Installs clang and libFuzzer's runtime when they are missing.
# docs/reliability.md ("Fuzzing", "ThreadSanitizer") explains both and how to run longer.
#
#   scripts/ci-extra.sh [tsan|fuzz|wheels]...      (default: all three)
#   FUZZ_SECONDS=600 scripts/ci-extra.sh fuzz
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tsan_build="${GRAPHDSL_TSAN_BUILD_DIR:-$root/build-tsan}"
fuzz_build="${GRAPHDSL_FUZZ_BUILD_DIR:-$root/build-fuzz}"
wheel_build="${GRAPHDSL_WHEEL_BUILD_DIR:-$root/build-wheel}"
fuzz_seconds="${FUZZ_SECONDS:-60}"
random_inputs="${FUZZ_RANDOM_INPUTS:-2000}"
command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(tsan fuzz wheels)

started=$SECONDS
step() { echo "ci-extra: $* ($((SECONDS - started)) s so far)"; }
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)

apt_install() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "ci-extra: installing $*"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends "$@" ||
    { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "$@"; }
}

# The compiler `$1` builds a trivial program with the flags that follow (and runs it when it has a
# main(): a ThreadSanitizer runtime that cannot map its memory fails only when run).
sanitizer_works() {
  local compiler=$1 dir rc=0
  shift
  dir="$(mktemp -d)"
  if [[ " $* " == *fuzzer* ]]; then
    echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$dir/t.cpp"
    "$compiler" "$@" "$dir/t.cpp" -o "$dir/t" >/dev/null 2>&1 || rc=$?
  else
    echo 'int main() { return 0; }' >"$dir/t.cpp"
    { "$compiler" "$@" "$dir/t.cpp" -o "$dir/t" && "$dir/t"; } >/dev/null 2>&1 || rc=$?
  fi
  rm -rf "$dir"
  return $rc
}

run_tsan() {
  step "ThreadSanitizer: configuring and building $tsan_build"
  if ! sanitizer_works "${CXX:-c++}" -fsanitize=thread; then
    apt_install libtsan2
  fi
  # -D_GLIBCXX_ASSERTIONS also stops libstdc++ from declaring std::string's members extern
  # templates, so that string operations are compiled (and instrumented) here instead of running
  # uninstrumented inside libstdc++.so, where TSan would not see a race on a node name.
  # -O0 -g1: line tables for its reports, no full debug info. -O0, not TSan's recommended -O1 (which
  # is for speed: the thread cases run in seconds either way): every memory access stays a load or
  # store that TSan instruments, and the library compiles in ~60% of -O1's time.
  # A unity build (the library's sources in batches of 8): a third of the CPU time of one TU per file.
  local target="${GRAPHDSL_TSAN_TARGET:-graphdsl_thread_tests}"
  # Catch's session is not instrumented (tests/CMakeLists.txt): the main build's archive of it
  # (scripts/test.sh's build, when there is one) serves here too, instead of a second compile.
  local catch_lib="${GRAPHDSL_BUILD_DIR:-$root/build}/tests/libgraphdsl_test_catch.a" catch=()
  [ -f "$catch_lib" ] && catch=("-DGRAPHDSL_TEST_CATCH_LIBRARY=$catch_lib")
  cmake -S "$root" -B "$tsan_build" "${gen[@]}" "${catch[@]}" -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" "-DCMAKE_CUDA_FLAGS_DEBUG=-O0" \
    -DGRAPHDSL_BUILD_SAMPLES=OFF -DGRAPHDSL_INSTALL=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_UNITY_BUILD=ON \
    "-DCMAKE_CXX_FLAGS=-fsanitize=thread -D_GLIBCXX_ASSERTIONS" \
    "-DCMAKE_CUDA_FLAGS=-Xcompiler=-fsanitize=thread" \
    "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread" >/dev/null
  cmake --build "$tsan_build" --target "$target" -j "${GRAPHDSL_JOBS:-2}"
  step "ThreadSanitizer: running $target"
  local log="$tsan_build/tsan-unit.log" rc=0
  TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0 second_deadlock_stack=1 exitcode=66}" \
    "$tsan_build/tests/$target" >"$log" 2>&1 || rc=$?
  tail -n 3 "$log"
  local warnings
  warnings=$(grep -c "^WARNING: ThreadSanitizer" "$log" || true)
  echo "ci-extra: ThreadSanitizer warnings: $warnings (log: $log)"
  if [ "$rc" -ne 0 ] || [ "$warnings" -ne 0 ]; then
    grep -A 30 "^WARNING: ThreadSanitizer" "$log" | head -n 120 || true
    echo "ci-extra: $target under ThreadSanitizer failed (exit status $rc)" >&2
    exit 1
  fi
}

run_fuzz() {
  step "fuzzing: configuring and building $fuzz_build"
  local cxx="${GRAPHDSL_FUZZ_CXX:-clang++}"
  if ! command -v "$cxx" >/dev/null 2>&1; then
    apt_install clang
  fi
  if ! sanitizer_works "$cxx" -fsanitize=fuzzer,address,undefined; then
    local major
    major=$("$cxx" -dumpversion | cut -d. -f1)
    apt_install "libclang-rt-$major-dev"
  fi
  cmake -S "$root" -B "$fuzz_build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
    -DGRAPHDSL_FUZZ=ON -DGRAPHDSL_INSTALL=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
  cmake --build "$fuzz_build" --target graphdsl_fuzz_plan graphdsl_fuzz_replay
  step "fuzzing: replaying the seed corpus and $random_inputs random inputs (ASan, UBSan)"
  "$fuzz_build/tests/fuzz/graphdsl_fuzz_replay" "$root/tests/fuzz/corpus" --random "$random_inputs" --seed 1
  step "fuzzing: libFuzzer for $fuzz_seconds s"
  local corpus="$fuzz_build/fuzz-corpus" artifacts="$fuzz_build/fuzz-artifacts" log="$fuzz_build/fuzz.log" rc=0
  rm -rf "$corpus" "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  cp "$root"/tests/fuzz/corpus/* "$corpus/"
  "$fuzz_build/tests/fuzz/graphdsl_fuzz_plan" "$corpus" -max_total_time="$fuzz_seconds" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" >"$log" 2>&1 || rc=$?
  grep -E "^#[0-9]+ +DONE|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)" "$log" || true
  if [ "$rc" -ne 0 ] || [ -n "$(ls -A "$artifacts")" ]; then
    grep -B 2 -A 40 -E "CHECK FAILED|ERROR: (AddressSanitizer|libFuzzer)|runtime error" "$log" | head -n 80 || true
    echo "ci-extra: the fuzzer failed (exit status $rc); inputs kept in $artifacts; replay one with" >&2
    echo "  $fuzz_build/tests/fuzz/graphdsl_fuzz_replay <file>   (GRAPHDSL_FUZZ_TRACE=1 lists its operations)" >&2
    exit 1
  fi
}

# Unpacks the newest CUDA 13.x wheels into $wheel_build/toolkit (nvidia/cu13: bin/nvcc, nvvm/,
# include/, lib/) and prints nvcc's path; returns 1 (after saying why) when they cannot be had.
fetch_wheel_toolkit() {
  local python spec="${CUDA_WHEEL_SPEC:->=13,<14}" pkg wheels="$wheel_build/wheels" tk="$wheel_build/toolkit"
  python=$(command -v python3 || true)
  if [ -z "$python" ] || ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "ci-extra: newest CUDA: skipped (no python3 with pip)" >&2
    return 1
  fi
  local specs=()
  for pkg in nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt nvidia-cuda-runtime nvidia-cuda-cccl; do
    specs+=("$pkg$spec")
  done
  rm -rf "$wheels" "$tk"
  mkdir -p "$wheels" "$tk"
  if ! timeout "${WHEEL_DOWNLOAD_SECONDS:-600}" "$python" -m pip download --quiet --no-deps --only-binary=:all: \
       -d "$wheels" "${specs[@]}" >"$wheel_build/pip.log" 2>&1; then
    tail -n 5 "$wheel_build/pip.log" >&2
    echo "ci-extra: newest CUDA: skipped (pip could not download the CUDA wheels; log: $wheel_build/pip.log)" >&2
    return 1
  fi
  local whl
  for whl in "$wheels"/*.whl; do
    "$python" -m zipfile -e "$whl" "$tk" || return 1
  done
  local nvcc="$tk/nvidia/cu13/bin/nvcc"
  chmod +x "$tk"/nvidia/cu13/bin/* "$tk"/nvidia/cu13/nvvm/bin/* 2>/dev/null || true
  [ -x "$nvcc" ] || { echo "ci-extra: newest CUDA: the wheels hold no nvidia/cu13/bin/nvcc" >&2; return 1; }
  ls "$wheels" | sed 's/^/ci-extra:   /' >&2
  echo "$nvcc"
}

run_wheels() {
  step "newest CUDA: downloading the CUDA 13.x wheels into $wheel_build"
  mkdir -p "$wheel_build"
  local nvcc
  nvcc=$(fetch_wheel_toolkit) || return 0
  "$nvcc" --version | tail -n 2
  step "newest CUDA: configuring and compiling graphdsl and the quickstart sample (no run)"
  # The wheels carry no cuBLAS: only what the library and the samples need.
  cmake -S "$root" -B "$wheel_build/build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCUDAToolkit_ROOT="$(dirname "$(dirname "$nvcc")")" \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DGRAPHDSL_BUILD_TESTS=OFF -DGRAPHDSL_INSTALL=OFF >/dev/null
  cmake --build "$wheel_build/build" --target graphdsl quickstart
}

for part in "${parts[@]}"; do
  case "$part" in
    tsan) run_tsan ;;
    fuzz) run_fuzz ;;
    wheels) run_wheels ;;
    *) echo "usage: scripts/ci-extra.sh [tsan|fuzz|wheels]..." >&2; exit 2 ;;
  esac
done
step "done"
