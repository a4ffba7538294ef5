// tests/gpu/device_launch_kernels.hpp — kernels of the device-launch tests (device_launch_test.cpp),
// defined in tests/gpu/rdc/device_launch_kernels.cu, which is compiled with relocatable device code
// (device-side cudaGraphLaunch needs it; how a .cpp names a kernel: kernels.hpp).
#pragma once

#include <graphdsl/device_graph.hpp>

#include "kernels.hpp"

namespace gpu_test {

/// How dl_launch launches its graph.
enum class DlMode : int { fire_and_forget, tail, sibling };

/// *slot = value (one thread)
GPU_KERNEL void dl_write(int* slot, int value);
/// Spins about `spin_ns` ns, then *slot = value (one thread)
GPU_KERNEL void dl_spin_write(int* slot, int value, unsigned long long spin_ns);
/// *out = *in + add (one thread)
GPU_KERNEL void dl_copy_add(int* out, const int* in, int add);
/// Thread 0 launches `graph` as `mode` says and writes the cudaError_t it got to *status.
GPU_KERNEL void dl_launch(graphdsl::DeviceGraph graph, DlMode mode, int* status);
/// Thread 0: ++*counter, *self = DeviceGraph::current()'s handle, and while *counter < times,
/// tail-launches the graph it runs in again (*status: the cudaError_t of the last launch).
GPU_KERNEL void dl_relaunch_self(int* counter, int times, unsigned long long* self, int* status);
/// Thread 0 tail-launches `when_zero` if *choice == 0, else `otherwise` (*status: the cudaError_t).
GPU_KERNEL void dl_schedule(graphdsl::DeviceGraph when_zero, graphdsl::DeviceGraph otherwise, const int* choice,
                            int* status);

}  // namespace gpu_test
