// samples/bench/bench_generic.hpp — the generic exec setter against the per-type ones
// (bench_generic.cu), raw CUDA only.
#pragma once

#include "bench_workload.hpp"

namespace bench {

/// generic: one node of a chain of N (1,000 and 10,000) set through the per-type runtime call, the
/// generic cudaGraphExecNodeSetParams, the per-type driver call and the generic
/// cuGraphExecNodeSetParams, for kernel, memset, memcpy and host nodes, interleaved.
void generic_setters_bench(Bench& bench);

}  // namespace bench
