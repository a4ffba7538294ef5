// samples/bench/bench_param.hpp — the shared-parameter figure (bench_param.cu).
#pragma once

#include "bench_workload.hpp"

namespace bench {

/// params: one Parameter<float> used by k = 1, 100, 1000 nodes of a chain of N = 10000 step nodes,
/// changed by Executable::set(param) vs update(plan) (templates prebuilt) vs the typed per-node
/// setter on the k nodes vs a raw cudaGraphExecKernelNodeSetParams loop over them; four series
/// interleaved in one run, medians with noise, allocations per call, results checked bit for bit.
void params_bench(Bench& bench);

}  // namespace bench
