// src/kinds/semaphore_node.hpp — what the two external-semaphore node kinds (semaphore_signal,
// semaphore_wait) share, section by section. A node's record in GraphImpl::records, at its payload:
// the semaphore count (a std::uint32_t), then the entries (SemaphoreSignal or SemaphoreWait).
// src/kinds/semaphore_signal.cpp and semaphore_wait.cpp pass their Traits (the entry type, the CUDA
// parameter structs and calls) to these templates.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exec/patch.hpp"
#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "plan/diff.hpp"
#include "plan/rule_kit.hpp"

namespace graphdsl::detail::kinds::semaphore_node {

/// The most semaphores one node signals or waits on (graphdsl's bound: CUDA documents none; one
/// node's parameters are built on the stack).
constexpr std::size_t max_semaphores = 64;

/// The number of semaphores of the node whose record is at `payload`.
inline std::size_t count_of(const GraphImpl& g, std::uint32_t payload) noexcept {
  return get_record<std::uint32_t>(g, payload);
}

/// Entry k of the node whose record is at `payload`.
template <class Entry>
Entry entry_of(const GraphImpl& g, std::uint32_t payload, std::size_t k) noexcept {
  return get_record<Entry>(g, payload + sizeof(std::uint32_t), k);
}

// ---- make ----------------------------------------------------------------------------------------

/// Checks the count and appends the record; returns its offset (the node's payload).
/// @throws UsageError for an empty or longer list, changing nothing.
template <class Entry>
std::uint32_t put(GraphImpl& g, const std::vector<Entry>& entries, const char* call) {
  if (entries.empty() || entries.size() > max_semaphores) {
    throw UsageError(fmt::format("{}: {} semaphores; a semaphore node has 1 to {}", call, entries.size(),
                                 max_semaphores));
  }
  const std::size_t before = g.records.size();
  try {
    const auto count = static_cast<std::uint32_t>(entries.size());
    const std::uint32_t at = put_records(g, &count, 1);
    put_records(g, entries.data(), entries.size());
    return at;
  } catch (...) {
    g.records.resize(before);
    throw;
  }
}

// ---- rules ---------------------------------------------------------------------------------------

template <class Entry>
void check(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const std::uint32_t at = g.nodes[i].payload;
  for (std::size_t k = 0; k < count_of(g, at); ++k) {
    if (entry_of<Entry>(g, at, k).semaphore == nullptr) {
      rule::fail(g, i, ctx, fmt::format("semaphore {} is null; pass one made by cudaImportExternalSemaphore", k));
    }
  }
}

/// Why a semaphore node cannot be placed on another device.
inline constexpr const char* not_placeable =
    "an external-semaphore node runs on the device its semaphores were imported on (the current device when the "
    "plan is compiled)";

// ---- compare -------------------------------------------------------------------------------------

/// Field by field (a SemaphoreWait has padding bytes, which a byte comparison would read).
template <class Traits>
bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  const std::size_t n = count_of(a, pa);
  if (n != count_of(b, pb)) return false;
  for (std::size_t k = 0; k < n; ++k) {
    using Entry = typename Traits::Entry;
    if (!Traits::same(entry_of<Entry>(a, pa, k), entry_of<Entry>(b, pb, k))) return false;
  }
  return true;
}

/// The number of semaphores: CUDA's per-node setters change semaphores and values, not the count.
inline std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                                 const std::string& ctx) {
  const std::size_t na = count_of(a, a.nodes[i].payload), nb = count_of(b, b.nodes[i].payload);
  if (na == nb) return std::nullopt;
  return refusal(UpdateStatus::parameters_changed, b.info(i),
                 fmt::format("{}{}: {} semaphores in the executable, {} in the template; CUDA cannot change the "
                             "number of a node's semaphores in place",
                             ctx, b.info(i).describe(), na, nb));
}

/// What compare_shape compares: the count.
inline void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& /*memo*/) {
  const std::uint32_t payload = g.nodes[i].payload;
  f.add(count_of(g, payload));
}

template <class Entry>
void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) {
  const auto* p = g.records.data() + payload;
  s.record.assign(p, p + sizeof(std::uint32_t) + count_of(g, payload) * sizeof(Entry));
}

inline void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) {  // same shape: same size
  std::copy(s.record.begin(), s.record.end(), g.records.begin() + payload);
}

// ---- build and patch: the CUDA parameters of a node --------------------------------------------------

/// The node parameters of the node whose record is at `payload`, pointing into `sems` and `params`
/// (Traits::NodeParams: cudaExternalSemaphoreSignalNodeParams or ...WaitNodeParams).
template <class Traits>
typename Traits::NodeParams node_params(const GraphImpl& g, std::uint32_t payload,
                                        cudaExternalSemaphore_t (&sems)[max_semaphores],
                                        typename Traits::Params (&params)[max_semaphores]) {
  const std::size_t n = count_of(g, payload);
  for (std::size_t k = 0; k < n; ++k) {
    const auto e = entry_of<typename Traits::Entry>(g, payload, k);
    sems[k] = e.semaphore;
    params[k] = Traits::params(e);
  }
  typename Traits::NodeParams p{};
  p.extSemArray = sems;
  p.paramsArray = params;
  p.numExtSems = static_cast<unsigned int>(n);
  return p;
}

template <class Traits>
AddedNode add(Builder& /*builder*/, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  cudaExternalSemaphore_t sems[max_semaphores];
  typename Traits::Params params[max_semaphores];
  const auto p = node_params<Traits>(g, g.nodes[i].payload, sems, params);
  AddedNode out;
  out.api = Traits::add_api;
  out.rc = cuda_try(Traits::add, &out.node, graph, deps.data(), deps.size(), &p);
  return out;
}

template <class Traits>
Applied apply(ExecImpl& x, std::uint32_t i) {
  cudaExternalSemaphore_t sems[max_semaphores];
  typename Traits::Params params[max_semaphores];
  const GraphImpl& g = recorded_plan(x);
  const auto p = node_params<Traits>(g, g.nodes[i].payload, sems, params);
  return {cuda_try(Traits::set, x.exec.get(), x.native.nodes[i], &p), Traits::set_api};
}

// ---- describe ------------------------------------------------------------------------------------

/// "2 semaphores: value 5, key 3"; never the handles (dumps of two runs compare equal).
template <class Traits>
std::string summary(const GraphImpl& g, std::uint32_t i) {
  const std::uint32_t at = g.nodes[i].payload;
  const std::size_t n = count_of(g, at);
  std::string s = fmt::format("{} semaphore{}:", n, n == 1 ? "" : "s");
  for (std::size_t k = 0; k < n; ++k) {
    s += (k == 0 ? " " : ", ") + Traits::text(entry_of<typename Traits::Entry>(g, at, k));
  }
  return s;
}

}  // namespace graphdsl::detail::kinds::semaphore_node
