#!/usr/bin/env bash
# CI: AddressSanitizer + UndefinedBehaviorSanitizer over the GPU-free tests. No GPU.
#   The unit suite (graphdsl_unit_tests, which makes no CUDA call) and the plan-builder fuzz replay
#   (graphdsl_fuzz_replay: the seed corpus plus seeded random inputs) are built with g++
#   -fsanitize=address, the library and the fuzz harness also with -fsanitize=undefined (all with
#   -fno-sanitize-recover=all; GRAPHDSL_SANITIZE in CMakeLists.txt), and run; any report
#   (use-after-free, overflow, leak, undefined behaviour) fails the run.
# Build folder: build-asan under the repository root ($GRAPHDSL_ASAN_BUILD_DIR). A folder already
# configured with GRAPHDSL_SANITIZE=ON is used as it is: with CI=true, scripts/test.sh's own build
# is one, and .ci/run then needs no second build (its CTest run is the sanitizer stage).
#
#   scripts/ci-sanitize.sh                        (FUZZ_RANDOM_INPUTS=1000 by default)
#   FUZZ_RANDOM_INPUTS=20000 scripts/ci-sanitize.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHDSL_ASAN_BUILD_DIR:-$root/build-asan}"
random_inputs="${FUZZ_RANDOM_INPUTS:-1000}"
jobs="${GRAPHDSL_JOBS:-2}"
command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
started=$SECONDS
step() { echo "ci-sanitize: $* ($((SECONDS - started)) s so far)"; }
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
launcher=()
command -v ccache >/dev/null 2>&1 &&
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)

# ASan on the unit suite, ASan and UBSan on the library's sources and the fuzz harness, which
# drives the builder and the header code through 1,000 random plans: UBSan triples a unit-test
# TU's compile time (g++ -O0: 10 s with ASan alone, 32 s with both). GRAPHDSL_UBSAN_EVERYWHERE=1
# puts UBSan on the unit tests too.
everywhere=()
[ "${GRAPHDSL_UBSAN_EVERYWHERE:-0}" = 1 ] && everywhere=("-DCMAKE_CXX_FLAGS=-fsanitize=undefined -fno-sanitize-recover=all")
if grep -q '^GRAPHDSL_SANITIZE:BOOL=ON$' "$build/CMakeCache.txt" 2>/dev/null; then
  step "building $build (configured with GRAPHDSL_SANITIZE=ON already)"
else
  step "configuring and building $build"
  # -O0 with line tables (-g1): the same checks at a third of -O2 -g's compile time on CI's two
  # cores (a unit-test TU: 32 s against 87 s); the suites themselves run in seconds either way.
  cmake -S "$root" -B "$build" "${gen[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" "-DCMAKE_CUDA_FLAGS_DEBUG=-O0" \
    -DGRAPHDSL_BUILD_SAMPLES=OFF -DGRAPHDSL_INSTALL=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGRAPHDSL_SANITIZE=ON -DCMAKE_UNITY_BUILD=ON "${everywhere[@]}" >/dev/null
fi
cmake --build "$build" --target graphdsl_unit_tests graphdsl_fuzz_replay -j "$jobs"

# protect_shadow_gap=0: the CUDA runtime maps memory where ASan's shadow gap would be.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:protect_shadow_gap=0:abort_on_error=0:halt_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
step "unit suite (ASan, UBSan)"
"$build/tests/graphdsl_unit_tests" >"$build/asan-unit.log" 2>&1 || status=$?
tail -n 3 "$build/asan-unit.log"
if [ "$status" -ne 0 ] || grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$build/asan-unit.log"; then
  grep -B 2 -A 40 -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|FAILED" "$build/asan-unit.log" | head -n 120 || true
  echo "ci-sanitize: the unit suite under ASan/UBSan failed (exit status $status; log: $build/asan-unit.log)" >&2
  exit 1
fi
step "fuzz replay: the seed corpus and $random_inputs random inputs (ASan, UBSan)"
"$build/tests/fuzz/graphdsl_fuzz_replay" "$root/tests/fuzz/corpus" --random "$random_inputs" --seed 1
step "done"
