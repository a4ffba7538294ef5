// graphdsl/device_graph.hpp — an executable launchable from device code, as a kernel argument.
//
//   gd::Executable work = plan.instantiate(gd::InstantiateOptions{}.device_launch());
//   work.upload(stream);                                   // device launch needs an uploaded executable
//   sched.add_kernel(scheduler, gd::Launch{1, 1}, work.device_graph(), d_state);
//
//   __global__ void scheduler(gd::DeviceGraph work, int* state) {   // compiled with -rdc=true
//     if (*state > 0) work.launch_tail();                           // runs after this graph finishes
//   }
//
// A DeviceGraph is the raw cudaGraphExec_t of an Executable, trivially copyable so that it can be
// a kernel argument (Graph::add_kernel) or stored in device memory. It owns nothing: it dies with
// its Executable (destroying, moving from or re-compiling the Executable leaves every copy
// dangling, and launching one is undefined behaviour, as with the raw handle).
//
// The __device__ members call the device runtime (device-side cudaGraphLaunch): a translation unit
// that calls them must be compiled with relocatable device code (nvcc -rdc=true; CMake:
// set_target_properties(t PROPERTIES CUDA_SEPARABLE_COMPILATION ON)) and the program linked with
// cudadevrt (CMake adds it for such targets); a call compiled without -rdc=true stops at a
// static_assert that says so. Host code and kernels that only pass a DeviceGraph on need neither.
// CUDA's rules for device launch (docs/hopper.md, "Device-side graph launch"):
// only a kernel running inside a graph may launch one; the launched executable was compiled with
// InstantiateOptions::device_launch() and uploaded; one instance of an executable runs at a time.
#pragma once

#include <cuda_runtime_api.h>

#if defined(__CUDACC__)
#define GRAPHDSL_HOST_DEVICE __host__ __device__
#else
#define GRAPHDSL_HOST_DEVICE
#endif

namespace graphdsl {

/// A device-launchable, uploaded executable as device code sees it: its cudaGraphExec_t, launched
/// from a kernel with launch_fire_and_forget(), launch_tail() or launch_sibling(). Made on the
/// host by Executable::device_graph() (which checks the executable can be launched from the
/// device) and on the device by DeviceGraph::current(). Trivially copyable; owns nothing (it is
/// valid while its Executable lives and is not re-compiled).
class DeviceGraph {
 public:
  /// A null handle (operator bool is false); launching it fails with cudaErrorInvalidValue.
  DeviceGraph() = default;
  /// Wraps a raw handle. Executable::device_graph() is the checked way to get one on the host.
  GRAPHDSL_HOST_DEVICE explicit DeviceGraph(cudaGraphExec_t exec) noexcept : exec_(exec) {}

  /// The cudaGraphExec_t (owned by its Executable; do not destroy it).
  GRAPHDSL_HOST_DEVICE cudaGraphExec_t native_handle() const noexcept { return exec_; }
  /// True unless this is a null handle.
  GRAPHDSL_HOST_DEVICE explicit operator bool() const noexcept { return exec_ != nullptr; }
  /// True when both name the same executable.
  GRAPHDSL_HOST_DEVICE friend bool operator==(DeviceGraph a, DeviceGraph b) noexcept { return a.exec_ == b.exec_; }
  /// True when they name different executables.
  GRAPHDSL_HOST_DEVICE friend bool operator!=(DeviceGraph a, DeviceGraph b) noexcept { return a.exec_ != b.exec_; }

#if defined(__CUDACC__)
  // The launches are templates only so that a call compiled without relocatable device code stops
  // at a static_assert saying so, not at a module that fails to load at run time.

  /// Launches the executable now, independent of the launching graph
  /// (cudaGraphLaunch(exec, cudaStreamGraphFireAndForget)): it runs concurrently with the rest of
  /// the launching graph, and the launching graph is complete only once it is (a child of it).
  /// Every thread that calls it launches once: call it from one thread. CUDA allows a graph at
  /// most 120 fire-and-forget launches over one execution. Needs relocatable device code.
  template <class Rdc = void>
  __device__ cudaError_t launch_fire_and_forget() const {
    return launch_into<Rdc>(cudaStreamGraphFireAndForget);
  }
  /// Launches the executable once the launching graph has completed, its fire-and-forget
  /// launches included (cudaGraphLaunch(exec, cudaStreamGraphTailLaunch)); tail launches of one
  /// graph run one after another in the order they were made. An executable may tail-launch
  /// itself (DeviceGraph::current()): the way to loop on the device. Needs relocatable device code.
  template <class Rdc = void>
  __device__ cudaError_t launch_tail() const {
    return launch_into<Rdc>(cudaStreamGraphTailLaunch);
  }
  /// Launches the executable as a sibling of the launching graph
  /// (cudaGraphLaunch(exec, cudaStreamGraphFireAndForgetAsSibling)): a fire-and-forget launch made
  /// into the launching graph's parent environment (for a graph launched from the host: its
  /// stream), so the launching graph's completion and tail launches do not wait for it, while
  /// work that waits for the parent does. Needs relocatable device code.
  template <class Rdc = void>
  __device__ cudaError_t launch_sibling() const {
    return launch_into<Rdc>(cudaStreamGraphFireAndForgetAsSibling);
  }
  /// The executable the calling kernel runs in (cudaGetCurrentGraphExec()); a null handle when the
  /// kernel does not run in a graph. current().launch_tail() runs the same graph again after this
  /// run: a loop on the device (the executable must be device-launchable itself).
  __device__ static DeviceGraph current() { return DeviceGraph(cudaGetCurrentGraphExec()); }
#endif

 private:
#if defined(__CUDACC__)
  template <class Rdc>
  __device__ cudaError_t launch_into(cudaStream_t mode) const {
    static_assert(relocatable_device_code<Rdc>,
                  "graphdsl::DeviceGraph: launching a graph from device code needs relocatable device code: "
                  "compile this file with nvcc -rdc=true (CMake: CUDA_SEPARABLE_COMPILATION ON) and link "
                  "cudadevrt");
    return cudaGraphLaunch(exec_, mode);
  }
#if defined(__CUDACC_RDC__) || defined(__CUDACC_EWP__)
  template <class>
  static constexpr bool relocatable_device_code = true;
#else
  template <class>
  static constexpr bool relocatable_device_code = false;
#endif
#endif
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace graphdsl
