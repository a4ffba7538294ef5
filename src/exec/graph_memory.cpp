// src/exec/graph_memory.cpp — graph memory of a device: the report of an executable's allocations
// and of the device's graph-memory attributes (Executable::memory_report), giving unused graph memory
// back (trim_graph_memory) and resetting the high-water marks (reset_graph_memory_high_marks).
#include <cstdint>
#include <utility>

#include "graphdsl/executable.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl {

namespace {

/// `device`, or the current device for -1.
int device_or_current(int device) {
  if (device < 0) GRAPHDSL_CHECK(cudaGetDevice, &device);
  return device;
}

}  // namespace

GraphMemoryReport Executable::memory_report() const {
  const detail::ExecImpl& x = impl();
  const detail::GraphImpl& g = detail::recorded_plan(x);
  GraphMemoryReport r;
  r.plan_bytes = detail::allocated_bytes(g);
  r.device = device_or_current(-1);
  for (auto [attr, out] :
       {std::pair<cudaGraphMemAttributeType, std::uint64_t*>{cudaGraphMemAttrUsedMemCurrent, &r.used_current},
        {cudaGraphMemAttrUsedMemHigh, &r.used_high},
        {cudaGraphMemAttrReservedMemCurrent, &r.reserved_current},
        {cudaGraphMemAttrReservedMemHigh, &r.reserved_high}}) {
    GRAPHDSL_CHECK(cudaDeviceGetGraphMemAttribute, r.device, attr, static_cast<void*>(out));
  }
  return r;
}

void trim_graph_memory(int device) { GRAPHDSL_CHECK(cudaDeviceGraphMemTrim, device_or_current(device)); }

void reset_graph_memory_high_marks(int device) {
  device = device_or_current(device);
  // 0 is the only value CUDA takes for a high-water mark (it then reads the current amount); any
  // other is cudaErrorInvalidValue (raw-CUDA probe, driver 580: docs/probes/graph_memory_and_kernel_swap.cu).
  std::uint64_t zero = 0;
  for (const cudaGraphMemAttributeType attr : {cudaGraphMemAttrUsedMemHigh, cudaGraphMemAttrReservedMemHigh}) {
    GRAPHDSL_CHECK(cudaDeviceSetGraphMemAttribute, device, attr, static_cast<void*>(&zero));
  }
}

}  // namespace graphdsl
