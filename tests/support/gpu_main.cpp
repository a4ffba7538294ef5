// tests/support/gpu_main.cpp — entry point of the GPU suites (one tiny object per suite; the work is
// in gpu_session.cpp). Without a usable CUDA device it prints "skipped: no CUDA device" (or, for the
// multi-GPU suite, "skipped: needs 2 GPUs") and exits with 77, which CTest counts as skipped.
#include "gpu_session.hpp"

// How many devices the suite needs (the multi-GPU suite is built with GRAPHDSL_TEST_GPUS=2).
#ifndef GRAPHDSL_TEST_GPUS
#define GRAPHDSL_TEST_GPUS 1
#endif

int main(int argc, char* argv[]) { return test_support::run_gpu_suite(argc, argv, GRAPHDSL_TEST_GPUS); }
