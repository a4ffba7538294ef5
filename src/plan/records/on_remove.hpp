// plan/records/on_remove.hpp — what Graph::remove_node does with each store of a plan: the
// on_remove column of plan/records/stores.def (remove_node's fold over it is in plan/edit.cpp).
//
// A removed node stays in the plan as a tombstone (NodeData::removed: an empty node with no edges,
// no device and no payload), so that the other nodes keep their indices, which their handles hold.
// What the node had elsewhere goes: entries of the side tables that name it, what its record owns
// (a host callable, an event, a captured function, nested plans); plain records of its kind are
// left where they are, unreferenced (a payload is a position, so they cannot be taken out).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "graphdsl/node_kind.hpp"
#include "plan/records/conditional.hpp"
#include "plan/records/plan.hpp"

namespace graphdsl::detail::on_remove {

/// The node being removed.
struct Removal {
  std::uint32_t node = 0;     ///< its index
  std::uint32_t payload = 0;  ///< its index in the stores of its kind
  /// For a child node: an empty plan, made beforehand by empty_child::prepare (remove_node allocates
  /// nothing once it changes the plan), which takes the place of the child plan in GraphImpl::children.
  std::shared_ptr<const GraphImpl> empty_plan;
};

/// Whether a node of `kind` keeps its parameters in a store of `owner` (stores.def's first column):
/// one function per node kind, generated from node_kinds.def; `event` serves both event kinds and
/// `plan`, what every plan has, holds no node's payload.
namespace owned_by {
#define GRAPHDSL_NODE_KIND(name, doc) \
  constexpr bool name(NodeKind k) noexcept { return k == NodeKind::name; }
#include "graphdsl/detail/node_kinds.def"
#undef GRAPHDSL_NODE_KIND
constexpr bool event(NodeKind k) noexcept { return k == NodeKind::event_record || k == NodeKind::event_wait; }
constexpr bool plan(NodeKind) noexcept { return false; }
}  // namespace owned_by

// Each policy has prepare(store, r, owned), called for every store before the plan changes: what
// the removal needs allocated beforehand, kept in `r` (it may throw); and apply(store, r, owned):
// what removing node r.node does to the store, which neither allocates nor throws. `owned`: the
// node's payload is an index into the store.

/// Nothing to prepare (every policy but empty_child).
struct no_prepare {
  template <class Store>
  static void prepare(Store& /*store*/, Removal& /*r*/, bool /*owned*/) noexcept {}
};

/// Nothing: the plan's own tables (nodes, names: a removed node's name stays for the messages about
/// its handle; edge kinds go with the edges; declared conditions), and plain records of a kind,
/// left unreferenced.
struct keep : no_prepare {
  template <class T>
  static void apply(std::vector<T>& /*store*/, const Removal& /*r*/, bool /*owned*/) noexcept {}
};
/// The node's entry is reset, releasing what it owns (a host callable, an event, a captured function).
struct reset : no_prepare {
  template <class T>
  static void apply(std::vector<T>& store, const Removal& r, bool owned) noexcept {
    if (owned) store[r.payload] = T{};
  }
};
/// The entries naming the node go, from a table in node order (binary search; none when the node's
/// entries are the last, as when nodes are removed last first).
struct erase_sorted : no_prepare {
  template <class T>
  static void apply(std::vector<T>& store, const Removal& r, bool /*owned*/) noexcept {
    auto first = store.end();
    if (!store.empty() && store.back().node <= r.node) {
      while (first != store.begin() && (first - 1)->node == r.node) --first;
    } else {
      first = std::lower_bound(store.begin(), store.end(), r.node,
                               [](const T& e, std::uint32_t i) { return e.node < i; });
    }
    auto last = first;
    while (last != store.end() && last->node == r.node) ++last;
    store.erase(first, last);
  }
};
/// The entries naming the node go, from a table in the order it was filled (declared accesses may
/// be added to any node at any time): one pass.
struct erase_node : no_prepare {
  template <class T>
  static void apply(std::vector<T>& store, const Removal& r, bool /*owned*/) noexcept {
    store.erase(std::remove_if(store.begin(), store.end(), [&](const T& e) { return e.node == r.node; }), store.end());
  }
};
/// A conditional node's bodies go (its Condition stays declared: another conditional node may use it).
struct drop_bodies : no_prepare {
  static void apply(std::vector<ConditionalData>& store, const Removal& r, bool owned) noexcept {
    if (owned) store[r.payload].bodies.clear();
  }
};
/// A child node's plan is replaced by an empty one (walks over the children's store stay valid),
/// made by prepare, named as the plan it replaces.
struct empty_child {
  template <class Store>
  static void prepare(Store& store, Removal& r, bool owned) {
    if (owned) r.empty_plan = std::make_shared<const GraphImpl>(store[r.payload]->name);
  }
  static void apply(std::vector<std::shared_ptr<const GraphImpl>>& store, const Removal& r, bool owned) noexcept {
    if (owned) store[r.payload] = r.empty_plan;
  }
};
/// A mem_free node frees nothing any more.
struct unfree : no_prepare {
  static void apply(std::vector<std::uint32_t>& store, const Removal& r, bool owned) noexcept {
    if (owned) store[r.payload] = ConditionRef::unresolved;
  }
};
/// The parameters' uses of the node, and their nested uses through it, go (both in node order);
/// the parameters stay.
struct drop_param_uses : no_prepare {
  static void apply(std::vector<ParamData>& store, const Removal& r, bool /*owned*/) noexcept {
    for (ParamData& p : store) {
      erase_sorted::apply(p.uses, r, false);
      erase_sorted::apply(p.nested, r, false);
    }
  }
};

}  // namespace graphdsl::detail::on_remove

#include "plan/records/kernel_remove.hpp"  // the kernel's store policies
