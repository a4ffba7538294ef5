// tests/gpu/rdc/device_node_kernels.cu — see device_node_kernels.hpp (relocatable device code: the
// updaters call the device runtime through graphdsl::DeviceKernelNode).
#include "device_node_kernels.hpp"

namespace gpu_test {

__global__ void read_scaled(const float* in, float* out, float factor, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = in[i] * factor;
}

__global__ void tagged_write(char tag, int* out, int value) { *out = tag * 1000 + value; }

__global__ void repoint_input(ReadScaledNode node, const float* next, int* status) {
  *status = static_cast<int>(node.set_arg<0>(next));
}

__global__ void set_factor(ReadScaledNode node, float factor, int* status) {
  *status = static_cast<int>(node.set_arg<2>(factor));
}

__global__ void set_blocks(ReadScaledNode node, unsigned blocks, int* status) {
  *status = static_cast<int>(node.set_grid(dim3(blocks, 1, 1)));
}

__global__ void set_node_enabled(ReadScaledNode node, int on, int* status) {
  *status = static_cast<int>(node.set_enabled(on != 0));
}

__global__ void set_tagged_value(TaggedWriteNode node, int value, int* status) {
  *status = static_cast<int>(node.set_arg<2>(value));
}

}  // namespace gpu_test
