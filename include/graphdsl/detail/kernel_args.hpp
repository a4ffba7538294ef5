// graphdsl/detail/kernel_args.hpp — compile-time checked packing of kernel arguments.
//
// Arguments are converted to the kernel's own parameter types (never deduced from the call site)
// and their bytes copied into storage the plan owns. The layout of a signature is a static table.
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <cuda_runtime_api.h>

#include "graphdsl/buffer.hpp"
#include "graphdsl/condition.hpp"
#include "graphdsl/parameter.hpp"

namespace graphdsl::detail {

/// Where each argument of one kernel signature lives inside a packed argument block.
struct ArgLayout {
  std::uint32_t count;
  std::uint32_t total;                   ///< bytes of the packed block
  const std::uint32_t* offsets;          ///< count entries
  const std::uint32_t* sizes;            ///< count entries
  const std::uint8_t* access = nullptr;  ///< count entries: param_access (for Graph::check_races)
  /// count entries: where each parameter sits in the kernel's parameter buffer on the device (the
  /// CUDA ABI: each parameter at its own alignment), which device-side updates address
  /// (DeviceKernelNode); the packed block above has no padding, so it may differ
  const std::uint32_t* abi_offsets = nullptr;
  /// A layout read from a kernel's parameter info (graphdsl::adopt), not from a signature: its
  /// parameters have sizes but no types, so a typed handle of the same sizes may name them
  bool adopted = false;
};

/// What a kernel parameter of type P lets the kernel touch: not a pointer (0), a pointer to const
/// (1: reads), a pointer to non-const data (2: reads and writes).
template <class P>
constexpr std::uint8_t param_access() {
  if constexpr (!std::is_pointer_v<P> || std::is_function_v<std::remove_pointer_t<P>>) {
    return 0;
  } else {
    return std::is_const_v<std::remove_pointer_t<P>> ? 1 : 2;
  }
}

template <std::size_t N>
constexpr std::array<std::uint32_t, N + 1> prefix_sums(const std::array<std::uint32_t, N + 1>& sizes) {
  std::array<std::uint32_t, N + 1> out{};
  std::uint32_t acc = 0;
  for (std::size_t i = 0; i < N; ++i) {
    out[i] = acc;
    acc += sizes[i];
  }
  out[N] = acc;
  return out;
}

/// Offsets of parameters of `sizes` and `aligns` laid out as the CUDA ABI lays out a kernel's
/// parameter buffer: each at the next multiple of its alignment.
template <std::size_t N>
constexpr std::array<std::uint32_t, N + 1> aligned_offsets(const std::array<std::uint32_t, N + 1>& sizes,
                                                           const std::array<std::uint32_t, N + 1>& aligns) {
  std::array<std::uint32_t, N + 1> out{};
  std::uint32_t acc = 0;
  for (std::size_t i = 0; i < N; ++i) {
    acc = (acc + aligns[i] - 1) / aligns[i] * aligns[i];
    out[i] = acc;
    acc += sizes[i];
  }
  out[N] = acc;
  return out;
}

/// The static layout of the parameter list P...
template <class... P>
struct ArgLayoutOf {
  static constexpr std::size_t count = sizeof...(P);
  static constexpr std::array<std::uint32_t, count + 1> sizes = {static_cast<std::uint32_t>(sizeof(P))..., 0u};
  static constexpr std::array<std::uint32_t, count + 1> offsets = prefix_sums<count>(sizes);
  static constexpr std::array<std::uint8_t, count + 1> access = {param_access<P>()..., 0};
  static constexpr std::array<std::uint32_t, count + 1> aligns = {static_cast<std::uint32_t>(alignof(P))..., 1u};
  static constexpr std::array<std::uint32_t, count + 1> abi_offsets = aligned_offsets<count>(sizes, aligns);
  static constexpr ArgLayout value{static_cast<std::uint32_t>(count),
                                   offsets[count],
                                   offsets.data(),
                                   sizes.data(),
                                   access.data(),
                                   abi_offsets.data()};
};

template <class... T>
struct TypeList {};

/// True for a graphdsl::Condition argument (a placeholder patched at compile time).
template <class A>
inline constexpr bool is_condition_v = std::is_same_v<std::decay_t<A>, Condition>;

template <class A>
struct BufferElement {
  using type = void;
};
template <class T>
struct BufferElement<GraphBuffer<T>> {
  using type = T;
};
/// True for a graphdsl::GraphBuffer argument (a placeholder for a device address).
template <class A>
inline constexpr bool is_buffer_v = !std::is_void_v<typename BufferElement<std::decay_t<A>>::type>;

/// Whether a placeholder argument fits parameter P: a Condition for a cudaGraphConditionalHandle, a
/// GraphBuffer<T> for a T* or const T*.
template <class A, class P>
constexpr bool placeholder_fits() {
  if constexpr (is_condition_v<A>) {
    return std::is_same_v<P, cudaGraphConditionalHandle>;
  } else {
    using T = typename BufferElement<std::decay_t<A>>::type;
    return std::is_same_v<P, T*> || std::is_same_v<P, const T*>;
  }
}

/// An argument converts to its parameter, or is a placeholder that fits it. A Parameter is
/// accepted here and checked when the plan records it (Graph::add_kernel: a UsageError naming the
/// node, the argument and the rule).
template <class A, class P>
struct ArgConvertible
    : std::bool_constant<is_parameter_v<A> || ((is_condition_v<A> || is_buffer_v<A>) ? placeholder_fits<A, P>()
                                                                                     : std::is_convertible_v<A, P>)> {};

/// True when both lists have the same length and each A converts to its P.
template <class Params, class Args, class = void>
struct AllConvertible : std::false_type {};
template <class... P, class... A>
struct AllConvertible<TypeList<P...>, TypeList<A...>, std::enable_if_t<sizeof...(P) == sizeof...(A)>>
    : std::conjunction<ArgConvertible<A, P>...> {};

/// What a placeholder argument stands for.
enum class PlaceholderKind : std::uint8_t { condition, buffer };

/// Where a placeholder argument sits in a packed block, to be replaced when the plan is compiled.
struct PlaceholderArg {
  std::uint32_t offset;  ///< byte offset within the kernel's argument block
  PlaceholderKind kind;
  std::uint64_t uid;        ///< Condition::id() or GraphBuffer::id()
  std::uint64_t bytes = 0;  ///< a GraphBuffer's bytes (GraphBuffer::bytes(): a slice's own)
};

/// The largest argument block (bytes) Executable::set_kernel_args packs on the stack; a larger one
/// takes the general path. With max_setter_args: the parameters the direct patch handles.
inline constexpr std::uint32_t max_setter_block = 1024;
inline constexpr std::uint32_t max_setter_args = 64;

/// Placeholder arguments (N) and Parameter arguments (M) of one add_kernel call (at most one per
/// kernel parameter).
template <std::size_t N, std::size_t M = 0>
struct PlaceholderArgs {
  std::array<PlaceholderArg, N == 0 ? 1 : N> list{};
  std::size_t count = 0;
  std::array<ParamArg, M == 0 ? 1 : M> params{};
  std::size_t param_count = 0;
};

/// Converts each argument to its parameter type and copies the bytes into `block`.
/// Condition arguments are stored as zeros, GraphBuffer arguments as their byte offset, both listed
/// in `conds.list`; Parameter
/// arguments as zeros listed in `conds.params` (the plan writes their value).
template <class... P>
struct ArgPacker {
  template <class Conds, class... A>
  static void pack(unsigned char* block, Conds& conds, A&&... args) {
    pack_each(block, conds, std::index_sequence_for<P...>{}, std::forward<A>(args)...);
  }

 private:
  template <class Conds, std::size_t... I, class... A>
  static void pack_each([[maybe_unused]] unsigned char* block, [[maybe_unused]] Conds& conds, std::index_sequence<I...>,
                        A&&... args) {
    (store<P>(block, ArgLayoutOf<P...>::offsets[I], static_cast<std::uint32_t>(I + 1), conds, std::forward<A>(args)),
     ...);
  }
  template <class T, class Conds, class A>
  static void store(unsigned char* block, std::uint32_t offset, [[maybe_unused]] std::uint32_t position, Conds& conds,
                    A&& arg) {
    if constexpr (is_parameter_v<A>) {
      std::memset(block + offset, 0, sizeof(T));  // the plan writes the parameter's value
      conds.params[conds.param_count++] = arg.template arg<T>(offset, position);
    } else if constexpr (is_condition_v<A>) {
      std::memset(block + offset, 0, sizeof(T));  // the handle is written at materialization
      conds.list[conds.count++] = PlaceholderArg{offset, PlaceholderKind::condition, arg.id()};
    } else if constexpr (is_buffer_v<A>) {
      // The block holds the buffer's byte offset (0 for a whole buffer), to which materialization
      // adds the allocation's address: a slice's offset is a value of the argument block, which the
      // diff compares and an update patches.
      static_assert(sizeof(T) == sizeof(std::uint64_t), "graphdsl: a GraphBuffer argument needs 64-bit pointers");
      const std::uint64_t at = arg.offset_bytes();
      std::memcpy(block + offset, &at, sizeof at);
      conds.list[conds.count++] = PlaceholderArg{offset, PlaceholderKind::buffer, arg.id(), arg.bytes()};
    } else if constexpr (ArgConvertible<A, T>::value) {  // otherwise KernelArgument has said why
      const T value = static_cast<T>(std::forward<A>(arg));
      std::memcpy(block + offset, &value, sizeof(T));
    }
  }
};

/// The check of one kernel argument. A static_assert message is a fixed text, so the position and
/// both types are this template's arguments: the compiler prints them in the line that names the
/// failing instantiation ("in instantiation of ... KernelArgument<2, const char (&)[4], int>").
template <std::size_t Position, class Argument, class Parameter>
struct KernelArgument {
  static constexpr bool ok = ArgConvertible<Argument, Parameter>::value;
  static_assert(ok,
                "graphdsl add_kernel: argument N cannot be converted to the kernel's parameter type; N (counting "
                "from 1), the argument's type and the parameter's type are the template arguments of "
                "graphdsl::detail::KernelArgument<N, Argument, Parameter> in the instantiation named with this "
                "error (a Condition may only be passed for a cudaGraphConditionalHandle parameter, a GraphBuffer<T> "
                "for a T*)");
};

template <class... P, class... A, std::size_t... I>
constexpr bool check_each_argument(TypeList<P...>, TypeList<A...>, std::index_sequence<I...>) {
  return (KernelArgument<I + 1, A, P>::ok && ...);
}

/// The compile-time rules for `add_kernel(void (*)(P...), Launch, A...)`.
template <class... P, class... A>
constexpr void check_kernel_args(TypeList<P...>, TypeList<A...>) {
  static_assert(sizeof...(P) == sizeof...(A),
                "graphdsl add_kernel: the number of arguments differs from the kernel's parameter count");
  if constexpr (sizeof...(P) == sizeof...(A)) {
    (void)check_each_argument(TypeList<P...>{}, TypeList<A...>{}, std::index_sequence_for<P...>{});
  }
  static_assert((std::is_trivially_copyable_v<P> && ...),
                "graphdsl add_kernel: kernel parameters must be trivially copyable");
}

}  // namespace graphdsl::detail
