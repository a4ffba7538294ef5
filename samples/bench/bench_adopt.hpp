// samples/bench/bench_adopt.hpp — the adopt section (bench_adopt.cu): the re-capture loop of a decode
// step, raw CUDA's and graphdsl's ways, side by side.
#pragma once

#include "bench_workload.hpp"

namespace bench {

/// adopt: a decode step captured from a stream (samples/common/decode_step.cuh; 7 and 32 layers: 221
/// and 1,002 nodes, a plain matrix-vector kernel for the GEMMs), 100 steps, the ways interleaved:
/// re-capture + cudaGraphExecUpdate (llama.cpp's way) against re-capture + adopt + update(), the
/// adopted plan's set_kernel_arg on the moving nodes, and cudaGraphExecKernelNodeSetParams on them;
/// adopt alone per node; a shape alternating every step, re-instantiated (raw) against an executable
/// per shape (graphdsl, ExecutableCache by fingerprint). Every step's result checked on the CPU.
void adopt_bench(Bench& bench);

}  // namespace bench
