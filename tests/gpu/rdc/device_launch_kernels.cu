// tests/gpu/rdc/device_launch_kernels.cu — the device-launch test kernels (device_launch_kernels.hpp),
// compiled with -rdc=true into graphdsl_gpu_test_rdc_kernels (tests/CMakeLists.txt).
#include "device_helpers.cuh"
#include "device_launch_kernels.hpp"

namespace gpu_test {

__global__ void dl_write(int* slot, int value) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *slot = value;
}

__global__ void dl_spin_write(int* slot, int value, unsigned long long spin) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  spin_ns(spin);
  *slot = value;
}

__global__ void dl_copy_add(int* out, const int* in, int add) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = *in + add;
}

__global__ void dl_launch(graphdsl::DeviceGraph graph, DlMode mode, int* status) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  cudaError_t rc = cudaErrorInvalidValue;
  switch (mode) {
    case DlMode::fire_and_forget: rc = graph.launch_fire_and_forget(); break;
    case DlMode::tail: rc = graph.launch_tail(); break;
    case DlMode::sibling: rc = graph.launch_sibling(); break;
  }
  *status = static_cast<int>(rc);
}

__global__ void dl_relaunch_self(int* counter, int times, unsigned long long* self, int* status) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  const graphdsl::DeviceGraph me = graphdsl::DeviceGraph::current();
  *self = reinterpret_cast<unsigned long long>(me.native_handle());
  if (++*counter < times) *status = static_cast<int>(me.launch_tail());
}

__global__ void dl_schedule(graphdsl::DeviceGraph when_zero, graphdsl::DeviceGraph otherwise, const int* choice,
                            int* status) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  *status = static_cast<int>((*choice == 0 ? when_zero : otherwise).launch_tail());
}

}  // namespace gpu_test
