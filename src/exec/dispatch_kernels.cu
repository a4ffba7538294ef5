// src/exec/dispatch_kernels.cu — device code of gd::dispatch (graphdsl/dispatch.hpp): the select
// kernel that maps a size in device memory to the SWITCH case of its bucket.
#include <cuda_runtime.h>

#include "graphdsl/dispatch.hpp"

namespace graphdsl::detail {

namespace {
/// One thread: the bucket holding *size (the first whose upper bound is not below it), or `count`
/// (no body runs) when the size is below the range or above the last bound; then out_of_range, when
/// given, receives that size.
__global__ void dispatch_select(cudaGraphConditionalHandle handle, const int* size, DispatchBounds b,
                                int* out_of_range) {
  const int v = *size;
  int c = b.count;
  if (v >= b.lower) {
    for (int i = 0; i < b.count; ++i) {
      if (v <= b.upper[i]) {
        c = i;
        break;
      }
    }
  }
  if (c == b.count && out_of_range != nullptr) *out_of_range = v;
  cudaGraphSetConditional(handle, static_cast<unsigned int>(c));
}
}  // namespace

DispatchKernel dispatch_kernel() noexcept { return &dispatch_select; }

}  // namespace graphdsl::detail
