// graphdsl/detail/graph_edits.hpp — the bodies of the plan's typed setters (Graph::set_kernel_args,
// set_memset, ...): each builds a one-node plan with the add_* that made the node, which converts
// and checks the new values as it does when adding, and hands it to Graph::replace_params
// (src/plan/edit.cpp), which checks that it may stand for the node and writes it in, all or none.
// graph.hpp includes this file at its end.
//
// Internal: not part of graphdsl's API; include graphdsl/graph.hpp.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "graphdsl/graph.hpp"

namespace graphdsl {

template <class... P, class... A>
void Graph::set_kernel_args(const KernelNode<P...>& node, A&&... args) {
  const auto kernel = reinterpret_cast<void (*)(P...)>(const_cast<void*>(kernel_function(node)));
  set_kernel(node, kernel, kernel_launch(node), std::forward<A>(args)...);
}

template <class... P, class... A>
void Graph::set_kernel(const KernelNode<P...>& node, void (*kernel)(P...), const Launch& launch, A&&... args) {
  static_assert(!(detail::is_parameter_v<A> || ...),
                "graphdsl setters take values, not Parameters: patch a parameter with Executable::set(param, value)");
  Graph one("setter");
  one.add_kernel(kernel, launch, std::forward<A>(args)...);
  replace_params(node, one, "set_kernel");
}

template <class... P>
void Graph::set_launch(const KernelNode<P...>& node, const Launch& launch) {
  set_kernel_launch(node, launch);
}

template <class T, class V>
void Graph::set_memset(const MemsetNode& node, T* dst, V value, std::size_t count) {
  detail::check_memset_types<T, V>();
  const T v = detail::exact_value<T>(value, "set_memset", "the element type");
  Graph one("setter");
  one.add_memset_node(dst, detail::bit_pattern(v), sizeof(T), count, 1,
                      detail::checked_bytes(count, sizeof(T), "add_memset"), detail::scalar_type_of<T>());
  replace_params(node, one, "set_memset");
}

template <class T, class V>
void Graph::set_memset(const MemsetNode& node, const GraphBuffer<T>& dst, V value, std::size_t count) {
  Graph one("setter");
  one.add_memset(dst, value, count);
  replace_params(node, one, "set_memset");
}

template <class D, class S>
void Graph::set_memcpy(const MemcpyNode& node, D* dst, const S* src, std::size_t count, cudaMemcpyKind kind) {
  Graph one("setter");
  one.add_memcpy(dst, src, count, kind);
  replace_params(node, one, "set_memcpy");
}

template <class T>
void Graph::set_memcpy(const MemcpyNode& node, const GraphBuffer<T>& dst, const T* src, std::size_t count,
                       cudaMemcpyKind kind) {
  Graph one("setter");
  one.add_memcpy(dst, src, count, kind);
  replace_params(node, one, "set_memcpy");
}

template <class T>
void Graph::set_memcpy(const MemcpyNode& node, T* dst, const GraphBuffer<T>& src, std::size_t count,
                       cudaMemcpyKind kind) {
  Graph one("setter");
  one.add_memcpy(dst, src, count, kind);
  replace_params(node, one, "set_memcpy");
}

template <class F>
void Graph::set_host(const HostNode& node, F&& fn) {
  static_assert(std::is_invocable_v<std::decay_t<F>&>,
                "graphdsl set_host: the callable must be invocable with no arguments");
  Graph one("setter");
  one.add_host(std::forward<F>(fn));
  replace_params(node, one, "set_host");
}

}  // namespace graphdsl
