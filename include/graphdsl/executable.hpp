// graphdsl/executable.hpp — a compiled plan: owns the cudaGraph_t, the cudaGraphExec_t and every
// resource the executable can still use (host closures, events).
//
//   gd::Executable exec = plan.instantiate();   // or plan.instantiate(InstantiateOptions{}.upload_on(s))
//   exec.launch(stream);                         // asynchronous, any stream
//   exec.synchronize(stream);                    // waits, then re-throws a host-callback exception
//
// Host-callback exceptions: a host node's callable runs on a CUDA driver thread, where an escaping
// exception would call std::terminate. graphdsl catches it there and keeps the first one; it is
// re-thrown (the original exception object, type preserved) by the next call to launch(),
// upload(), synchronize() or rethrow_host_error() on this executable, and then cleared.
//
// Thread-safety: an Executable is not synchronized; use one from one thread at a time (CUDA
// serializes launches of one executable on the device anyway). Destruction never throws and never
// waits for launches in flight (CUDA keeps what they need alive until they finish).
#pragma once

#include <cstdint>
#include <memory>

#include <cuda_runtime_api.h>

#include "graphdsl/node.hpp"

namespace graphdsl {

class Graph;

namespace detail {
struct ExecImpl;
}

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

  unsigned long long flags() const noexcept { return flags_; }
  cudaStream_t upload_stream() const noexcept { return upload_stream_; }

 private:
  InstantiateOptions& set(unsigned long long bit, bool on) {
    flags_ = on ? (flags_ | bit) : (flags_ & ~bit);
    return *this;
  }
  unsigned long long flags_ = 0;
  cudaStream_t upload_stream_ = nullptr;
};

/// A compiled plan. Move-only; a moved-from Executable throws UsageError on use.
class Executable {
 public:
  Executable() noexcept;
  explicit Executable(std::unique_ptr<detail::ExecImpl> impl) noexcept;
  Executable(Executable&&) noexcept;
  Executable& operator=(Executable&&) noexcept;
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;
  ~Executable();

  /// Launches the executable on `stream` (cudaGraphLaunch). Asynchronous.
  /// @throws the pending host-callback exception, if any (the launch is then not issued);
  ///         CudaError if cudaGraphLaunch fails.
  void launch(cudaStream_t stream = nullptr);
  /// Uploads the executable to the device on `stream` (cudaGraphUpload), so that the first launch
  /// does not pay for it. @throws like launch().
  void upload(cudaStream_t stream = nullptr);
  /// cudaStreamSynchronize(stream), then rethrow_host_error().
  void synchronize(cudaStream_t stream = nullptr);
  /// Re-throws (and clears) the first exception a host callback of this executable threw.
  void rethrow_host_error();
  /// True when a host callback threw and the exception has not been re-thrown yet.
  bool has_host_error() const;

  /// The plan this executable was compiled from (a copy owned by the executable).
  const Graph& plan() const;
  /// The cudaGraphInstantiateFlags it was compiled with.
  unsigned long long flags() const;

  cudaGraphExec_t native_handle() const;
  /// The materialized cudaGraph_t (kept alive: per-node setters need its node handles).
  cudaGraph_t native_graph() const;
  /// The cudaGraphNode_t that top-level plan node `node` became.
  /// @throws UsageError if `node` is not a node of this executable's plan (checked by index and kind).
  cudaGraphNode_t native_node(const Node& node) const;

  explicit operator bool() const noexcept { return static_cast<bool>(impl_); }

 private:
  detail::ExecImpl& impl() const;
  std::unique_ptr<detail::ExecImpl> impl_;
};

}  // namespace graphdsl
