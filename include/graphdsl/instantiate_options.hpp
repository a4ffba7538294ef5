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

  /// Checked copies: the executable refuses to point a memcpy node whose end was device memory
  /// when it was compiled at pageable host memory (a setter, a pointer parameter or a per-node
  /// update). CUDA accepts that change and the next launch faults with cudaErrorIllegalAddress,
  /// which ends the context (docs/reliability.md). Off by default because it costs one
  /// cudaPointerGetAttributes per changed copy end (and one per memcpy node end when compiling);
  /// the environment variable GRAPHDSL_CHECK_COPIES=1 turns it on for every executable (read once,
  /// at the first compile of the process).
  InstantiateOptions& check_copies(bool on = true) {
    check_copies_ = on;
    return *this;
  }
  /// Whether check_copies() was asked for (the environment variable is read when compiling).
  bool copies_checked() const noexcept { return check_copies_; }

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
  bool check_copies_ = false;
};

}  // namespace graphdsl
