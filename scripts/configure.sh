#!/usr/bin/env bash
# Configures build/ (or $GRAPHDSL_BUILD_DIR) once; later calls only rebuild. Sourced by demo.sh and test.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHDSL_BUILD_DIR:-$root/build}"
command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
if [ ! -f "$build/CMakeCache.txt" ]; then
  gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  extra=()
  # CI (CI=true) builds one GPU architecture (it runs no GPU code; the default is 80;90).
  if [ "${CI:-}" = true ] && [ -z "${CUDAARCHS:-}" ]; then
    extra+=(-DCMAKE_CUDA_ARCHITECTURES="${GRAPHDSL_CI_CUDA_ARCH:-90}")
  fi
  # CI also builds without optimisation or debug information (-O0, asserts on): it times nothing,
  # and a test TU compiles ~3x faster than at -O3 on CI's two cores. GRAPHDSL_BUILD_TYPE wins.
  build_type="${GRAPHDSL_BUILD_TYPE:-Release}"
  if [ "${CI:-}" = true ] && [ -z "${GRAPHDSL_BUILD_TYPE:-}" ]; then
    build_type=Debug
    extra+=(-DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_CUDA_FLAGS_DEBUG=-O0)
  fi
  # CI is a unity build: each target's C++ files compiled in batches of 8 (tests/CMakeLists.txt
  # says what that asks of the test files), at a third to a half of the CPU time of one TU per file.
  # The header checks stay one TU per header; nvcc's .cu files are not batched.
  # The unit and GPU suites are batched by 16 (GRAPHDSL_TEST_UNITY_BATCH_SIZE, tests/CMakeLists.txt),
  # and the benchmark sample's eight .cu files are one nvcc translation unit (GRAPHDSL_BENCH_ONE_TU,
  # samples/CMakeLists.txt); without CI each is its own object.
  if [ "${CI:-}" = true ]; then
    extra+=(-DCMAKE_UNITY_BUILD=ON -DGRAPHDSL_BENCH_ONE_TU=ON)
  fi
  # CI's build is also its ASan + UBSan build (GRAPHDSL_SANITIZE, CMakeLists.txt): the library and
  # the fuzz harness with both, the unit suite with ASan, so that CTest's unit and fuzz_replay tests
  # (the latter over 1,000 random inputs here) are CI's sanitizer stage and nothing is compiled twice.
  # The GPU suites and the samples are not instrumented (they only link the runtimes). .ci/run sets
  # ASAN_OPTIONS. GRAPHDSL_CI_SANITIZE=0 leaves it out (scripts/ci-sanitize.sh then builds its own).
  if [ "${CI:-}" = true ] && [ "${GRAPHDSL_CI_SANITIZE:-1}" != 0 ]; then
    extra+=(-DGRAPHDSL_SANITIZE=ON -DGRAPHDSL_FUZZ_REPLAY_INPUTS=1000)
  fi
  # ccache, when installed, also serves the packaging tests' two rebuilds of the library
  # (tests/packaging passes the launchers on: the second finds the first's objects). CI runs it in
  # depend mode (CCACHE_DEPEND, .ci/run): a miss costs no extra preprocessor run, and CI's cache
  # starts cold. GRAPHDSL_CCACHE=0 turns it off.
  if [ "${GRAPHDSL_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
    extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE="$build_type" "${extra[@]}"
fi
