// samples/bench/bench_pdl.hpp — the programmatic-dependent-launch figure (bench_pdl.cu).
#pragma once

#include "bench_workload.hpp"

namespace bench {

/// pdl: a chain of 1,000 dependent kernels, full vs programmatic edges, graphdsl vs raw graph API.
void pdl_bench(Bench& bench);

}  // namespace bench
