// graphdsl/device_node.hpp — the typed device handle of a device-updatable kernel node (CUDA 12.4+).
//
//   __global__ void scale(const float* in, float* out, int n);
//   __global__ void repoint(gd::DeviceKernelNodeOf<decltype(scale)> next, const float* other) {
//     next.set_arg<0>(other);             // the kernel's own parameter type, checked at compile time
//   }
//
//   auto w = g.add_kernel(scale, gd::cover(n).with_device_updatable(), a, out, n);
//   auto u = g.add_kernel(repoint, gd::Launch{1, 1}, gd::DeviceKernelNodeOf<decltype(scale)>{}, b).after(w);
//   gd::Executable exec = g.instantiate();
//   exec.set_kernel_args(u, exec.device_node(w), b);   // the handle exists once the plan is compiled
//   exec.launch(s);   // w reads a, then u re-points it: the next launch reads b
//
// The setters (set_arg, set_grid, set_enabled) are device code: they call the device runtime
// (cudaGraphKernelNodeSetParam, cudaGraphKernelNodeSetGridDim, cudaGraphKernelNodeSetEnabled), so
// the .cu file that calls them is compiled with relocatable device code (-rdc=true, CMake:
// CUDA_SEPARABLE_COMPILATION ON) and linked with cudadevrt (CUDA::cudadevrt). Called from host
// code they do nothing and return cudaErrorNotSupported. An update made by a kernel of the graph
// takes effect at the node's next launch when the updating kernel runs after the node (an edge
// node -> updater); docs/hopper.md has the rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "graphdsl/detail/config.hpp"
#include "graphdsl/detail/kernel_args.hpp"
#include "graphdsl/node.hpp"

/// Internal: `__host__ __device__` under nvcc (the handle's members run in device code), nothing for
/// a host compiler.
#if defined(__CUDACC__)
#define GRAPHDSL_DETAIL_HD __host__ __device__
#else
#define GRAPHDSL_DETAIL_HD
#endif

namespace graphdsl {

namespace detail {
#if GRAPHDSL_HAS_DEVICE_NODES
/// The driver's device handle of a device-updatable node.
using DeviceNodeHandle = cudaGraphDeviceNode_t;
#else
/// The driver's device handle of a device-updatable node (this toolkit has none: CUDA 12.4+).
using DeviceNodeHandle = void*;
#endif

/// The I-th type (from 0) of T, R... (std::tuple_element without <tuple>, which would cost every
/// translation unit that includes graphdsl; docs/performance.md, "Include cost").
template <std::size_t I, class T, class... R>
struct NthType {
  using type = typename NthType<I - 1, R...>::type;
};
template <class T, class... R>
struct NthType<0, T, R...> {
  using type = T;
};

/// Parameter I (from 0) of the list P...: its type and where it sits in the kernel's parameter
/// buffer on the device (ArgLayoutOf<P...>::abi_offsets).
template <std::size_t I, class... P>
struct DeviceParam {
  using type = typename NthType<I, P...>::type;
  static constexpr std::uint32_t offset = ArgLayoutOf<P...>::abi_offsets[I];
};

/// A value of type V may be written into a parameter of type T from the device: exactly T, or, for
/// a pointer parameter, nullptr or a pointer that converts to T (float* for const float*). No
/// arithmetic conversion: an int for a float or a long long for an int is refused.
template <class V, class T>
inline constexpr bool device_arg_fits_v = std::is_same_v<V, T> ||
                                          (std::is_pointer_v<T> &&
                                           (std::is_same_v<V, std::nullptr_t> ||
                                            (std::is_pointer_v<V> && std::is_convertible_v<V, T>)));

/// The check of DeviceKernelNode::set_arg. As with KernelArgument, the position and both types are
/// this template's arguments, which the compiler prints in the line naming the failing instantiation.
template <std::size_t Position, class Value, class Parameter>
struct DeviceArgument {
  static constexpr bool ok = device_arg_fits_v<Value, Parameter>;
  static_assert(ok,
                "graphdsl DeviceKernelNode::set_arg<I>: the value's type is not parameter I's type; the position "
                "(counting from 1), the value's type and the parameter's type are the template arguments of "
                "graphdsl::detail::DeviceArgument<N, Value, Parameter> in the instantiation named with this error "
                "(a device-side update writes the parameter's bytes as they are: convert the value to the "
                "parameter's type first)");
};
}  // namespace detail

/// The device handle of a device-updatable kernel node of a `__global__ void k(P...)`
/// (Launch::with_device_updatable()), from Executable::device_node(). A trivially copyable value:
/// pass it to a kernel as an argument (add_kernel, set_kernel_args) and call its setters there.
/// Each setter changes the node for its launches that start after the call; each returns what the
/// device runtime returns (cudaSuccess, cudaErrorInvalidValue). A default-constructed handle names
/// no node (operator bool is false): its setters must not be called.
template <class... P>
class DeviceKernelNode {
 public:
  /// A handle that names no node (a placeholder until Executable::device_node() gives the real one).
  DeviceKernelNode() = default;
  /// Internal: made by Executable::device_node().
  GRAPHDSL_DETAIL_HD explicit DeviceKernelNode(detail::DeviceNodeHandle handle) noexcept : node_(handle) {}

  /// The driver's handle (cudaGraphDeviceNode_t).
  GRAPHDSL_DETAIL_HD detail::DeviceNodeHandle native() const noexcept { return node_; }
  /// True for a handle from Executable::device_node().
  GRAPHDSL_DETAIL_HD explicit operator bool() const noexcept { return node_ != nullptr; }

  /// Where parameter I sits in the kernel's parameter buffer on the device (bytes; CUDA's layout:
  /// each parameter at its alignment).
  template <std::size_t I>
  static constexpr std::uint32_t param_offset() noexcept {
    static_assert(I < sizeof...(P), "graphdsl DeviceKernelNode::param_offset<I>: I is not a parameter position");
    return detail::DeviceParam<I, P...>::offset;
  }

  /// Writes `value` into the node's parameter I (counting from 0), which must be of V's type
  /// exactly (a pointer may also be given for a pointer to const, or nullptr); checked at compile
  /// time. Device code; cudaErrorNotSupported on the host.
  template <std::size_t I, class V>
  GRAPHDSL_DETAIL_HD cudaError_t set_arg(const V& value) const {
    static_assert(I < sizeof...(P), "graphdsl DeviceKernelNode::set_arg<I>: I is not a parameter position (from 0)");
    if constexpr (I < sizeof...(P)) {
      using Param = detail::DeviceParam<I, P...>;
      using T = typename Param::type;
      if constexpr (detail::DeviceArgument<I + 1, V, T>::ok) {
        const T v = value;
#if defined(__CUDA_ARCH__) && GRAPHDSL_HAS_DEVICE_NODES
        return cudaGraphKernelNodeSetParam(node_, Param::offset, &v, sizeof(T));
#else
        (void)v;
        return cudaErrorNotSupported;
#endif
      }
    }
    return cudaErrorInvalidValue;
  }

  /// Sets the node's grid (its block, shared memory and arguments stay). Device code;
  /// cudaErrorNotSupported on the host.
  GRAPHDSL_DETAIL_HD cudaError_t set_grid(dim3 grid) const {
#if defined(__CUDA_ARCH__) && GRAPHDSL_HAS_DEVICE_NODES
    return cudaGraphKernelNodeSetGridDim(node_, grid);
#else
    (void)grid;
    return cudaErrorNotSupported;
#endif
  }

  /// Enables or disables the node (a disabled node does nothing when the graph runs). Device code;
  /// cudaErrorNotSupported on the host.
  GRAPHDSL_DETAIL_HD cudaError_t set_enabled(bool on) const {
#if defined(__CUDA_ARCH__) && GRAPHDSL_HAS_DEVICE_NODES
    return cudaGraphKernelNodeSetEnabled(node_, on);
#else
    (void)on;
    return cudaErrorNotSupported;
#endif
  }

 private:
  detail::DeviceNodeHandle node_ = nullptr;
};

namespace detail {
/// The DeviceKernelNode of a KernelNode type (DeviceKernelNodeOf).
template <class N>
struct DeviceNodeOfHandle {
  static_assert(always_false_v<N>, "graphdsl DeviceKernelNodeOf<F>: F must be a kernel's type (decltype(kernel))");
};
/// KernelNode<P...> -> DeviceKernelNode<P...>.
template <class... P>
struct DeviceNodeOfHandle<KernelNode<P...>> {
  using type = DeviceKernelNode<P...>;
};
}  // namespace detail

/// The device handle type for a kernel of type F (`decltype(scale)` or a pointer to it), as
/// KernelNodeOf names the host handle.
template <class F>
using DeviceKernelNodeOf = typename detail::DeviceNodeOfHandle<KernelNodeOf<F>>::type;

static_assert(std::is_trivially_copyable_v<DeviceKernelNode<int>>, "a device handle is passed as a kernel argument");

}  // namespace graphdsl
