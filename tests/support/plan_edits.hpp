// tests/support/plan_edits.hpp — the plan generator's edits made in place, for the generated tests
// of a plan's setters and of Graph::remove_node (tests/unit/generated_plans_test.cpp,
// tests/gpu/generated_update_test.cpp): a Spec's parameters written into a built plan through the
// typed setters, and the model of a node's removal (the Spec without it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan_generator.hpp"

namespace plan_gen {

/// Writes the parameters of `n` (a node of a Spec) into node `node` of `g`, built from a Spec of the
/// same shape, through the plan's typed setters; `buffer`: the plan's graph buffer (Kind::slice
/// nodes). False, changing nothing, for what has no setter: captured, memory-operation, semaphore
/// and conditional nodes, copies within the graph buffer and 2-D memsets.
inline bool set_params(gd::Graph& g, const gd::Node& node, const NodeSpec& n, const Resources& r,
                       const gd::GraphBuffer<float>& buffer = {}) {
  using Kernel = gd::KernelNode<float*, float, int>;
  const auto count = static_cast<std::size_t>(n.count);
  gd::Launch launch{n.grid, n.block};
  if (n.cluster != 0) launch = launch.with_cluster(n.cluster);
  switch (n.kind) {
    case Kind::kernel:
      g.set_kernel(gd::node_cast<Kernel>(node), r.kernels[n.fn], launch, r.buffers[n.buf], n.scalar, n.count);
      return true;
    case Kind::memset: g.set_memset(gd::node_cast<gd::MemsetNode>(node), r.buffers[n.buf], n.scalar, count); return true;
    case Kind::memcpy:
      g.set_memcpy(gd::node_cast<gd::MemcpyNode>(node), r.buffers[n.buf], static_cast<const float*>(r.buffers[n.src]),
                   count);
      return true;
    case Kind::host: {
      int* cell = r.cells + n.buf;
      const int tag = n.tag;
      g.set_host(gd::node_cast<gd::HostNode>(node), [cell, tag] { *cell = tag; });
      return true;
    }
    case Kind::event_record:
      g.set_event(gd::node_cast<gd::EventRecordNode>(node), r.events[static_cast<std::size_t>(n.event)]);
      return true;
    case Kind::event_wait:
      g.set_event(gd::node_cast<gd::EventWaitNode>(node), r.events[static_cast<std::size_t>(n.event)]);
      return true;
    case Kind::child: {
      gd::Graph c("child");
      build_into(c, n.bodies[0], r, false, buffer);  // its slices: of the plan's buffer, resolved by set_child
      g.set_child(gd::node_cast<gd::ChildNode>(node), c);
      return true;
    }
    case Kind::slice: {
      const gd::GraphBuffer<float> dst = buffer.slice(8 * static_cast<std::size_t>(n.buf), count);
      if (n.fn == 0) g.set_kernel(gd::node_cast<Kernel>(node), r.kernels[0], gd::Launch{n.grid, n.block}, dst, n.scalar,
                                  n.count);
      if (n.fn == 1) g.set_memset(gd::node_cast<gd::MemsetNode>(node), dst, n.scalar, count);
      return n.fn <= 1;
    }
    default: return false;
  }
}

/// The graph buffer of a plan built from a Spec with Kind::slice nodes (its node #0's), else empty.
inline gd::GraphBuffer<float> buffer_of(const gd::Graph& g, const Spec& s) {
  if (!has_slices(s)) return {};
  const gd::AllocationParams a = g.allocation_of(gd::node_cast<gd::MemAllocNode>(g.node(0)));
  return gd::GraphBuffer<float>(a.buffer, a.bytes / sizeof(float));
}

/// Writes into `g`, built from `a`, the parameters `b` (a Spec of a's shape and names) gives the nodes
/// that differ, through the setters. False when one of them has no setter (set_params) or when `b`
/// is not of a's shape, renames a node or changes a condition default: `g` may then be half edited.
inline bool set_all_params(gd::Graph& g, const Spec& a, const Spec& b, const Resources& r) {
  if (!same_shape(a, b) || defaults_differ(a, b)) return false;
  std::vector<std::string> na, nb;  // names, nested plans' included
  names_of(a, na);
  names_of(b, nb);
  if (na != nb) return false;
  const gd::GraphBuffer<float> buffer = buffer_of(g, a);
  const std::uint32_t first = has_slices(a) ? 1 : 0;
  for (std::uint32_t i : changed_nodes(a, b)) {
    if (!set_params(g, g.node(i), b.nodes[i - first], r, buffer)) return false;
  }
  return true;
}

/// The model of Graph::remove_node of node k of `s` (a top-level node): `s` without it and its edges,
/// the later nodes one place down, and, with `bridge`, an edge from the node before k to the node
/// after it (what a chain needs to stay one), appended unless there is one.
inline Spec without_node(const Spec& s, std::uint32_t k, bool bridge = false) {
  Spec out;
  for (std::uint32_t i = 0; i < s.nodes.size(); ++i) {
    if (i != k) out.nodes.push_back(s.nodes[i]);
  }
  auto moved = [k](std::uint32_t i) { return i > k ? i - 1 : i; };
  for (const EdgeSpec& e : s.edges) {
    if (e.from != k && e.to != k) out.edges.push_back({moved(e.from), moved(e.to), e.kind});
  }
  if (bridge && k > 0 && k + 1 < s.nodes.size()) {
    const EdgeSpec added{k - 1, k, gd::EdgeKind::full};
    bool present = false;
    for (const EdgeSpec& e : out.edges) present = present || (e.from == added.from && e.to == added.to);
    if (!present) out.edges.push_back(added);
  }
  return out;
}

/// Removes node k of `s` (a top-level node) from `g`, built from `s`, as without_node(s, k, bridge)
/// describes it: with the last Kind::slice node, the graph buffer's allocation too (build() makes
/// one only for a Spec with slices).
inline void remove_node(gd::Graph& g, const Spec& s, std::uint32_t k, bool bridge = false) {
  const std::uint32_t first = has_slices(s) ? 1 : 0;
  g.remove_node(g.node(first + k));
  if (bridge && k > 0 && k + 1 < s.nodes.size()) g.add_edge(g.node(first + k - 1), g.node(first + k + 1));
  if (first == 1 && !has_slices(without_node(s, k))) g.remove_node(g.node(0));
}

/// `text` (a dump, a race report) with every node number "#7" written "#": plans of the same nodes
/// at other positions then read the same.
inline std::string without_numbers(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] != '#') continue;
    while (i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9') ++i;
  }
  return out;
}

}  // namespace plan_gen
