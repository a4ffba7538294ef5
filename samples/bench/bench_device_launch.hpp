// samples/bench/bench_device_launch.hpp — the device-launch figure (bench_device_launch.cu).
#pragma once

#include "bench_workload.hpp"

namespace bench {

/// dlaunch: a one-kernel work graph launched N times from the host (cudaGraphLaunch in a loop) vs
/// from the device (a scheduler graph that tail-launches it, then itself), graphdsl vs raw graph API.
void device_launch_bench(Bench& bench);

}  // namespace bench
