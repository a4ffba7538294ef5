// tests/gpu/device_node_kernels.hpp — kernels of the device-updatable node tests
// (tests/gpu/rdc/device_node_kernels.cu, compiled with -rdc=true: the updaters call the device
// runtime; how a .cpp names a kernel: kernels.hpp).
#pragma once

#include <graphdsl/device_node.hpp>

#include "kernels.hpp"

namespace gpu_test {

/// out[i] = in[i] * factor for i < n, one thread per element and no grid-stride loop, so the grid
/// decides how much is done.
GPU_KERNEL void read_scaled(const float* in, float* out, float factor, int n);
/// The device handle of a read_scaled node.
using ReadScaledNode = graphdsl::DeviceKernelNode<const float*, float*, float, int>;

/// *out = tag * 1000 + value: a parameter behind a smaller one (char, then a pointer at byte 8, then
/// the int at byte 16 of the parameter buffer; graphdsl's packed block has it at byte 9).
GPU_KERNEL void tagged_write(char tag, int* out, int value);
/// The device handle of a tagged_write node.
using TaggedWriteNode = graphdsl::DeviceKernelNode<char, int*, int>;

// ---- updaters: one thread; each writes the cudaError_t of its device-side call to *status --------

/// node's parameter 0 (its input) = next
GPU_KERNEL void repoint_input(ReadScaledNode node, const float* next, int* status);
/// node's parameter 2 (its factor) = factor
GPU_KERNEL void set_factor(ReadScaledNode node, float factor, int* status);
/// node's grid = (blocks, 1, 1)
GPU_KERNEL void set_blocks(ReadScaledNode node, unsigned blocks, int* status);
/// enables (on != 0) or disables the node
GPU_KERNEL void set_node_enabled(ReadScaledNode node, int on, int* status);
/// node's parameter 2 (value) = value
GPU_KERNEL void set_tagged_value(TaggedWriteNode node, int value, int* status);

}  // namespace gpu_test
