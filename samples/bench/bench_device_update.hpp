// samples/bench/bench_device_update.hpp — the device-updatable node figure (bench_device_update.cu).
#pragma once

#include "bench_workload.hpp"

namespace bench {

/// dupdate: "change one kernel node's argument, then launch", per iteration: from the device (an
/// updater kernel in the graph), from the host (set_kernel_args + launch) and raw CUDA
/// (cuGraphExecKernelNodeSetParams + cudaGraphLaunch), interleaved.
void device_update_bench(Bench& bench);

}  // namespace bench
