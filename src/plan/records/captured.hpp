// plan/records/captured.hpp — the record of a captured node.
//
// Plain data with no CUDA call: the one place any layer reads these records (plan/records/stores.def
// lists the plan's stores of them).
#pragma once

#include <memory>

#include <cuda_runtime_api.h>

#include "graphdsl/detail/plan_types.hpp"

namespace graphdsl::detail {

struct CaptureData {
  std::shared_ptr<StreamClosure> fn;
  cudaStreamCaptureMode mode;
};

}  // namespace graphdsl::detail
