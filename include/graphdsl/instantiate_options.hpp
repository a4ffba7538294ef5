// graphdsl/instantiate_options.hpp — how a plan is compiled (Graph::instantiate): the
// cudaGraphInstantiateFlags bits and the upload stream. Included by graph.hpp and executable.hpp.
#pragma once

#include <cuda_runtime_api.h>

namespace graphdsl {

/// How a plan is compiled; each setter maps to one cudaGraphInstantiateFlags bit.
class InstantiateOptions {
 public:
  /// cudaGraphInstantiateFlagAutoFreeOnLaunch: free the previous launch's graph allocations on relaunch.
  InstantiateOptions& auto_free_on_launch(bool on = true) { return set(cudaGraphInstantiateFlagAutoFreeOnLaunch, on); }
  /// cudaGraphInstantiateFlagDeviceLaunch: make the executable launchable from device code. Not
  /// combinable with auto_free_on_launch; the plan may hold only kernel, memcpy, memset and child nodes.
  InstantiateOptions& device_launch(bool on = true) { return set(cudaGraphInstantiateFlagDeviceLaunch, on); }
  /// cudaGraphInstantiateFlagUseNodePriority: run kernel nodes at their Launch::priority.
  InstantiateOptions& use_node_priority(bool on = true) { return set(cudaGraphInstantiateFlagUseNodePriority, on); }
  /// cudaGraphInstantiateFlagUpload: upload the executable on `stream` as part of instantiation.
  InstantiateOptions& upload_on(cudaStream_t stream) {
    upload_stream_ = stream;
    return set(cudaGraphInstantiateFlagUpload, true);
  }

  /// The cudaGraphInstantiateFlags bits set so far.
  unsigned long long flags() const noexcept { return flags_; }
  /// The stream given to upload_on() (nullptr when it was not called).
  cudaStream_t upload_stream() const noexcept { return upload_stream_; }

 private:
  InstantiateOptions& set(unsigned long long bit, bool on) {
    flags_ = on ? (flags_ | bit) : (flags_ & ~bit);
    return *this;
  }
  unsigned long long flags_ = 0;
  cudaStream_t upload_stream_ = nullptr;
};

}  // namespace graphdsl
