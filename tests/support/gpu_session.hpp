// tests/support/gpu_session.hpp — the shared entry of the GPU suites (gpu_session.cpp, compiled
// once by the host compiler into a small library that the gpu, gpu_cublas and multi_gpu suites link).
#pragma once

namespace test_support {

/// Without `required_gpus` usable CUDA devices prints "skipped: no CUDA device" (or "skipped: needs
/// N GPUs") and returns 77, which CTest counts as skipped (SKIP_RETURN_CODE); otherwise prints the
/// devices and runs the Catch2 session over the command line.
int run_gpu_suite(int argc, char* argv[], int required_gpus);

}  // namespace test_support
