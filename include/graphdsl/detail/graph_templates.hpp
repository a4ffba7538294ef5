// graphdsl/detail/graph_templates.hpp — the bodies of Graph's member templates that add nodes (the
// node constructors that pack kernel arguments, use graph buffers or build conditional bodies) and
// of Graph::Change, the roll-back of an add_* they share, kept out of the class so that graph.hpp
// reads as the plan's API. graph.hpp includes this file at its end (and graph_edits.hpp, the
// setters' bodies).
//
// Internal: not part of graphdsl's API; include graphdsl/graph.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "graphdsl/graph.hpp"

namespace graphdsl {

/// An add_* under way, recording a node in steps that may throw (std::bad_alloc included). Destroyed
/// before commit(), it takes the plan back to what it held when made: a failed add_* leaves no trace.
class Graph::Change {
 public:
  explicit Change(Graph& g);
  ~Change();
  Change(const Change&) = delete;
  Change& operator=(const Change&) = delete;
  /// The add_* completed: the plan keeps what it added.
  void commit() noexcept { committed_ = true; }

 private:
  static constexpr std::size_t mark_bytes = 256;  ///< room for detail::PlanMark (plan/graph_impl.hpp)
  Graph& graph_;
  detail::NodeRef plan_;  ///< the plan (id and slot; no node)
  bool committed_ = false;
  alignas(std::uint64_t) unsigned char mark_[mark_bytes];  ///< the plan's detail::PlanMark when made
};

template <class... P>
Launch Graph::launch_of(const KernelNode<P...>& node) const {
  return kernel_launch(node);
}

template <class T, class V>
MemsetNode Graph::add_memset(T* dst, V value, std::size_t count) {
  return add_memset_2d(dst, detail::checked_bytes(count, sizeof(T), "add_memset"), value, count, 1);
}

template <class T, class U>
MemsetNode Graph::add_memset(T* dst, const Parameter<U>& value, std::size_t count) {
  detail::check_memset_types<T, T>();
  return add_memset_parameter(dst, value.template arg<T>(0, 0), sizeof(T), count, detail::scalar_type_of<T>());
}

template <class T, class V>
MemsetNode Graph::add_memset_2d(T* dst, std::size_t pitch_bytes, V value, std::size_t width, std::size_t height) {
  detail::check_memset_types<T, V>();
  const T v = detail::exact_value<T>(value, "add_memset", "the element type");
  return add_memset_node(dst, detail::bit_pattern(v), sizeof(T), width, height, pitch_bytes,
                         detail::scalar_type_of<T>());
}

template <class D, class S>
MemcpyNode Graph::add_memcpy(D* dst, const S* src, std::size_t count, cudaMemcpyKind kind) {
  detail::check_memcpy_types<D, S>();
  return add_memcpy_bytes(dst, src, detail::checked_bytes(count, sizeof(D), "add_memcpy"), kind);
}

template <class D, class S>
MemcpyNode Graph::add_memcpy(const Parameter<D*>& dst, const S* src, std::size_t count, cudaMemcpyKind kind) {
  detail::check_memcpy_types<D, S>();
  const detail::ParamArg d = dst.template arg<D*>(0, 0);
  return add_memcpy_parameters(&d, nullptr, nullptr, src, detail::checked_bytes(count, sizeof(D), "add_memcpy"), kind);
}

template <class D, class S>
MemcpyNode Graph::add_memcpy(D* dst, const Parameter<S*>& src, std::size_t count, cudaMemcpyKind kind) {
  detail::check_memcpy_types<D, S>();
  const detail::ParamArg s = src.template arg<const S*>(0, 0);
  return add_memcpy_parameters(nullptr, dst, &s, nullptr, detail::checked_bytes(count, sizeof(D), "add_memcpy"), kind);
}

template <class D, class S>
MemcpyNode Graph::add_memcpy(const Parameter<D*>& dst, const Parameter<S*>& src, std::size_t count,
                             cudaMemcpyKind kind) {
  detail::check_memcpy_types<D, S>();
  const detail::ParamArg d = dst.template arg<D*>(0, 0);
  const detail::ParamArg s = src.template arg<const S*>(0, 0);
  return add_memcpy_parameters(&d, nullptr, &s, nullptr, detail::checked_bytes(count, sizeof(D), "add_memcpy"), kind);
}

template <class T>
MemcpyNode Graph::add_memcpy_peer(T* dst, int dst_device, const T* src, int src_device, std::size_t count) {
  static_assert(!std::is_const_v<T>, "graphdsl add_memcpy_peer: the destination is const");
  return add_memcpy_peer_bytes(dst, dst_device, src, src_device,
                               detail::checked_bytes(count, sizeof(T), "add_memcpy_peer"));
}

template <class F>
HostNode Graph::add_host(F&& fn) {
  static_assert(std::is_invocable_v<std::decay_t<F>&>,
                "graphdsl add_host: the callable must be invocable with no arguments");
  return add_host_node(detail::new_host_closure(std::forward<F>(fn)));
}

template <class T>
MemFreeNode Graph::add_mem_free(const GraphBuffer<T>& buffer) {
  return add_mem_free_node(buffer.id(), buffer.offset());
}

template <class F>
CapturedNode Graph::add_captured(F&& fn, cudaStreamCaptureMode mode) {
  using Fn = std::decay_t<F>;
  static_assert(std::is_invocable_v<Fn&, cudaStream_t>,
                "graphdsl add_captured: the function must be invocable as fn(cudaStream_t)");
  return add_captured_node(new detail::StreamClosureOf<Fn>(Fn(std::forward<F>(fn))), mode);
}

template <class Body>
ConditionalNode Graph::add_if(const Condition& cond, Body&& body) {
  return add_conditional_node(ConditionalType::if_then, cond, 1, [&](unsigned, Graph& g) { body(g); });
}

template <class Body>
ConditionalNode Graph::add_while(const Condition& cond, Body&& body) {
  return add_conditional_node(ConditionalType::while_loop, cond, 1, [&](unsigned, Graph& g) { body(g); });
}

template <class... P, class... A>
KernelNode<P...> Graph::add_kernel(void (*kernel)(P...), const Launch& launch, A&&... args) {
  static_assert(detail::check_declared_args(detail::DeclList<P...>{}, detail::DeclList<A...>{}));
  detail::check_kernel_args(detail::TypeList<P...>{}, detail::TypeList<detail::unwrap_declared_t<A&&>...>{});
  const auto& layout = detail::ArgLayoutOf<P...>::value;
  Change change(*this);
  std::size_t offset = 0;
  unsigned char* block = add_argument_block(layout.total, offset);
  constexpr std::size_t parameters = (std::size_t{detail::is_parameter_v<A>} + ... + 0);
  detail::PlaceholderArgs<(std::size_t{detail::is_condition_v<detail::unwrap_declared_t<A>> ||
                                       detail::is_buffer_v<detail::unwrap_declared_t<A>>} +
                           ... + 0),
                          parameters>
      conds;
  detail::ArgPacker<P...>::pack(block, conds, detail::unwrap_declared(std::forward<A>(args))...);
  if constexpr (parameters > 0) bind_kernel_parameters(offset, conds.params.data(), conds.param_count);
  KernelNode<P...> node(add_kernel_node(reinterpret_cast<const void*>(kernel), launch, &layout, offset,
                                        conds.list.data(), conds.count));
  if constexpr ((detail::is_declared_v<A> || ...))
    declare_kernel_ranges(node, std::index_sequence_for<A...>{}, args...);
  change.commit();
  return node;
}

template <class T, class V>
MemsetNode Graph::add_memset(const GraphBuffer<T>& dst, V value, std::size_t count) {
  Change change(*this);
  MemsetNode n = add_memset(static_cast<T*>(nullptr), value, count);  // a value or a Parameter
  use_buffer(n, detail::BufferField::memset_dst, dst.id(), dst.offset_bytes(), dst.bytes());
  change.commit();
  return n;
}

template <class T, class V>
MemsetNode Graph::add_memset_2d(const GraphBuffer<T>& dst, std::size_t pitch_bytes, V value, std::size_t width,
                                std::size_t height) {
  Change change(*this);
  MemsetNode n = add_memset_2d(static_cast<T*>(nullptr), pitch_bytes, value, width, height);
  use_buffer(n, detail::BufferField::memset_dst, dst.id(), dst.offset_bytes(), dst.bytes());
  change.commit();
  return n;
}

template <class T>
MemcpyNode Graph::add_memcpy(const GraphBuffer<T>& dst, const T* src, std::size_t count, cudaMemcpyKind kind) {
  Change change(*this);
  MemcpyNode n = add_memcpy_bytes(nullptr, src, detail::checked_bytes(count, sizeof(T), "add_memcpy"), kind);
  use_buffer(n, detail::BufferField::memcpy_dst, dst.id(), dst.offset_bytes(), dst.bytes());
  change.commit();
  return n;
}

template <class T>
MemcpyNode Graph::add_memcpy(T* dst, const GraphBuffer<T>& src, std::size_t count, cudaMemcpyKind kind) {
  Change change(*this);
  MemcpyNode n = add_memcpy_bytes(dst, nullptr, detail::checked_bytes(count, sizeof(T), "add_memcpy"), kind);
  use_buffer(n, detail::BufferField::memcpy_src, src.id(), src.offset_bytes(), src.bytes());
  change.commit();
  return n;
}

template <class T>
MemcpyNode Graph::add_memcpy(const GraphBuffer<T>& dst, const GraphBuffer<T>& src, std::size_t count) {
  Change change(*this);
  MemcpyNode n = add_memcpy_bytes(nullptr, nullptr, detail::checked_bytes(count, sizeof(T), "add_memcpy"),
                                  cudaMemcpyDeviceToDevice);
  use_buffer(n, detail::BufferField::memcpy_dst, dst.id(), dst.offset_bytes(), dst.bytes());
  use_buffer(n, detail::BufferField::memcpy_src, src.id(), src.offset_bytes(), src.bytes());
  change.commit();
  return n;
}

template <class Then, class Else>
ConditionalNode Graph::add_if_else(const Condition& cond, Then&& then_body, Else&& else_body) {
  return add_conditional_node(ConditionalType::if_else, cond, 2, [&](unsigned i, Graph& g) {
    if (i == 0) {
      then_body(g);
    } else {
      else_body(g);
    }
  });
}

template <class... Bodies>
ConditionalNode Graph::add_switch(const Condition& cond, Bodies&&... bodies) {
  return add_conditional_node(ConditionalType::switch_case, cond, sizeof...(Bodies), [&](unsigned i, Graph& g) {
    unsigned k = 0;
    ((i == k++ ? static_cast<void>(bodies(g)) : static_cast<void>(0)), ...);
  });
}

template <class Body>
ConditionalNode Graph::add_conditional(ConditionalType type, const Condition& cond, unsigned int size, Body&& body) {
  using Fn = std::decay_t<Body>;
  static_assert(std::is_invocable_v<Fn&, unsigned int, Graph&>,
                "graphdsl add_conditional: the body builder must be invocable as body(unsigned int, Graph&)");
  if constexpr (std::is_invocable_v<Body&, unsigned int, Graph&>) {
    return add_conditional_node(type, cond, size, body);
  } else {
    Fn copy(body);  // a const callable whose call operator is not const: called through a copy
    return add_conditional_node(type, cond, size, copy);
  }
}

template <class T, class V>
KernelNode<cudaGraphConditionalHandle, const T*, int, T> Graph::add_set_condition(const Condition& cond, const T* value,
                                                                                  Compare op, V operand) {
  static_assert(std::is_same_v<T, int> || std::is_same_v<T, unsigned int> || std::is_same_v<T, float> ||
                    std::is_same_v<T, double>,
                "graphdsl add_set_condition: the value type must be int, unsigned int, float or double");
  static_assert(detail::value_accepted<T, V>,
                "graphdsl add_set_condition: the operand is neither of the value's type nor an integer: write it "
                "as the value's type (e.g. 1e-6f, not 1e-6, for a const float* value)");
  detail::check_compare(op);
  return add_kernel(detail::set_condition_kernel<T>(), Launch{1, 1}, cond, value, static_cast<int>(op),
                    detail::exact_value<T>(operand, "add_set_condition", "the value's type"));
}

template <std::size_t... I, class... A>
void Graph::declare_kernel_ranges(const Node& node, std::index_sequence<I...>, const A&... args) {
  detail::DeclaredAccess list[sizeof...(A)];
  std::size_t count = 0;
  auto one = [&](std::int32_t param, const auto& arg) {
    if constexpr (detail::is_declared_v<decltype(arg)>) list[count++] = detail::erase(arg, param);
  };
  (one(static_cast<std::int32_t>(I), args), ...);
  detail::declare_accesses(node, list, count);
}

template <class T>
Parameter<T> Graph::parameter(T initial) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_reference_v<T>,
                "graphdsl parameter<T>: T must be trivially copyable (a kernel argument type)");
  static_assert(sizeof(T) <= detail::max_parameter_bytes, "graphdsl parameter<T>: T is larger than 32 bytes");
  const std::uint64_t uid = add_parameter(detail::param_type<T>(), &initial);
  return Parameter<T>(plan_token(), uid);
}

template <class T>
Graph::Allocation<T> Graph::add_mem_alloc(std::size_t count, const MemAllocOptions& options) {
  static_assert(std::is_trivially_copyable_v<T>, "graphdsl add_mem_alloc: T must be trivially copyable");
  const auto [node, uid] = add_mem_alloc_node(detail::checked_bytes(count, sizeof(T), "add_mem_alloc"), options);
  return Allocation<T>{node, GraphBuffer<T>(uid, count)};
}

template <class T, std::size_t N>
MemcpyNode Graph::add_memcpy_to_symbol(T (&symbol)[N], const T* src, std::size_t count, std::size_t offset,
                                       cudaMemcpyKind kind) {
  static_assert(!std::is_const_v<T>, "graphdsl add_memcpy_to_symbol: the symbol is const");
  return add_memcpy_symbol_bytes(symbol, sizeof symbol, true, const_cast<T*>(src),
                                 detail::checked_bytes(count, sizeof(T), "add_memcpy_to_symbol"),
                                 detail::checked_bytes(offset, sizeof(T), "add_memcpy_to_symbol"), kind);
}

template <class T, std::size_t N>
MemcpyNode Graph::add_memcpy_from_symbol(T* dst, const T (&symbol)[N], std::size_t count, std::size_t offset,
                                         cudaMemcpyKind kind) {
  static_assert(!std::is_const_v<T>, "graphdsl add_memcpy_from_symbol: the destination is const");
  return add_memcpy_symbol_bytes(symbol, sizeof symbol, false, dst,
                                 detail::checked_bytes(count, sizeof(T), "add_memcpy_from_symbol"),
                                 detail::checked_bytes(offset, sizeof(T), "add_memcpy_from_symbol"), kind);
}

template <class T, class>
MemcpyNode Graph::add_memcpy_to_symbol(T& symbol, const T* src, cudaMemcpyKind kind) {
  static_assert(!std::is_const_v<T>, "graphdsl add_memcpy_to_symbol: the symbol is const");
  return add_memcpy_symbol_bytes(&symbol, sizeof(T), true, const_cast<T*>(src), sizeof(T), 0, kind);
}

template <class T, class>
MemcpyNode Graph::add_memcpy_from_symbol(T* dst, const T& symbol, cudaMemcpyKind kind) {
  static_assert(!std::is_const_v<T>, "graphdsl add_memcpy_from_symbol: the destination is const");
  return add_memcpy_symbol_bytes(&symbol, sizeof(T), false, dst, sizeof(T), 0, kind);
}

template <class F>
Graph capture(F&& fn, cudaStreamCaptureMode mode) {
  Graph g("captured");
  g.add_captured(std::forward<F>(fn), mode).name("capture");
  return g;
}

}  // namespace graphdsl
