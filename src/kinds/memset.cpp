// src/kinds/memset.cpp — the memset node kind (Graph::add_memset*): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"
#include "plan/graph_build.hpp"
#include "plan/node_params.hpp"
#include "plan/plan_access.hpp"
#include "plan/rules.hpp"

namespace graphdsl {

MemsetNode Graph::add_memset_raw(void* dst, unsigned int value, unsigned int element_size, std::size_t width,
                                 std::size_t height, std::size_t pitch_bytes) {
  return add_memset_node(dst, value, element_size, width, height, pitch_bytes, detail::ScalarType::raw);
}

MemsetNode Graph::add_memset_node(void* dst, unsigned int value, unsigned int element_size, std::size_t width,
                                  std::size_t height, std::size_t pitch_bytes, detail::ScalarType type) {
  auto& g = impl();
  Change change(*this);
  g.memsets.push_back(detail::memset_node_params(dst, value, element_size, width, height, pitch_bytes));
  g.memset_types.push_back(type);
  const MemsetNode n(g.push(NodeKind::memset, g.memsets.size() - 1));
  change.commit();
  return n;
}

MemsetParams Graph::memset_of(const MemsetNode& node) const {
  const auto& g = impl();
  const std::uint32_t i = detail::own_node(g, node, NodeKind::memset, "memset_of");
  const cudaMemsetParams& p = detail::memset_of(g, i);
  MemsetParams out;
  out.dst = p.dst;
  out.value = p.value;
  out.element_size = p.elementSize;
  out.width = p.width;
  out.height = p.height;
  out.pitch = p.pitch;
  for (const detail::BufferUse& u : detail::buffer_uses_of(g, i)) {
    if (u.field != detail::BufferField::memset_dst) continue;
    out.buffer = u.uid;
    out.buffer_offset = reinterpret_cast<std::uintptr_t>(p.dst);  // the record holds the slice's offset
    out.dst = nullptr;
  }
  return out;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include "plan/replace.hpp"
#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_memset(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const cudaMemsetParams& p = g.memsets[g.nodes[i].payload];
  const Count row = Count{p.width}.times(p.elementSize);
  const Count span = p.height <= 1 ? row : Count{p.pitch}.times(p.height - 1).plus(row);
  check_size(g, i, ctx, "sets", span);
  check_pointer(g, i, ctx, p.dst, BufferField::memset_dst, "destination", span);
  if (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4) {
    fail(g, i, ctx,
         fmt::format("element size is {} bytes; CUDA memset nodes take 1, 2 or 4-byte elements", p.elementSize));
  }
  if (p.width == 0 || p.height == 0) {
    fail(g, i, ctx,
         fmt::format("sets {} x {} elements; a memset node must set at least one element", p.width, p.height));
  }
  if (p.height > 1 && row.above(p.pitch)) {
    fail(g, i, ctx,
         fmt::format("pitch {} bytes is smaller than one row ({} elements x {} bytes = {} bytes)", p.pitch, p.width,
                     p.elementSize, row.text()));
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::rule {
namespace {

/// A setter's destination stands for what the node's does (a GraphBuffer or a plain pointer).
void check_memset_replacement(const GraphImpl& a, std::uint32_t i, const GraphImpl& s) {
  check_pointer_meanings(a, i, s, {BufferField::memset_dst});
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::memset {
const RuleOps rules{/*check=*/&rule::check_memset,
                    /*not_placeable=*/nullptr,
                    /*in_body=*/true,
                    /*check_scoped=*/nullptr,
                    /*kinded_edges=*/false,
                    /*check_replacement=*/&rule::check_memset_replacement};
}  // namespace graphdsl::detail::kinds::memset

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// The destination of a memset node.
void memset_accesses(const NodeContext& c) {
  const GraphImpl& g = c.g;
  const std::uint32_t i = c.i;
  const NodeData& n = g.nodes[i];
  Level& level = c.level;
  Access a = c.access();
  const cudaMemsetParams& p = g.memsets[n.payload];
  const std::uint64_t uid = buffer_of(g, i, BufferField::memset_dst);
  if (uid == 0 && p.dst == nullptr) return;
  a.origin = Origin::memset_dst;
  // For a buffer, the pointer field holds the slice's byte offset (0 for a whole buffer).
  a.r = make_region(uid != 0 ? Space::buffer : Space::address, uid, reinterpret_cast<std::uintptr_t>(p.dst),
                    sat_mul(p.width, p.elementSize), p.pitch, p.height);
  level.accesses.push_back(a);
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::memset {
const RaceOps races{&race::memset_accesses};
}  // namespace graphdsl::detail::kinds::memset

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::memset {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_memset(const cudaMemsetParams& x, const cudaMemsetParams& y) {
  return x.dst == y.dst && x.pitch == y.pitch && x.value == y.value && x.elementSize == y.elementSize &&
         x.width == y.width && x.height == y.height;
}

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  return same_memset(a.memsets[pa], b.memsets[pb]);
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) {
  s.memset = g.memsets[payload];
  s.memset_type = g.memset_types[payload];
}

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) {
  g.memsets[payload] = s.memset;
  g.memset_types[payload] = s.memset_type;
}

}  // namespace compare_fns

const CompareOps compare{/*same_params=*/compare_fns::same_params,
                         /*compare_shape=*/nullptr,
                         /*fingerprint=*/nullptr,
                         /*after_edges=*/false,
                         /*save=*/compare_fns::save,
                         /*restore=*/compare_fns::restore,
                         /*nested=*/false};
}  // namespace graphdsl::detail::kinds::memset

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <cstdint>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::memset {
namespace describing {
namespace {

/// A typed memset's value as its element type ("1.5 (float)"); the bits for add_memset_raw.
std::string memset_value(unsigned int bits, detail::ScalarType type) {
  float f = 0.0f;
  std::memcpy(&f, &bits, sizeof f);
  switch (type) {
    case detail::ScalarType::float32: return fmt::format("{} (float)", f);
    case detail::ScalarType::int8: return fmt::format("{} (int8)", static_cast<std::int8_t>(bits));
    case detail::ScalarType::uint8: return fmt::format("{} (uint8)", static_cast<std::uint8_t>(bits));
    case detail::ScalarType::int16: return fmt::format("{} (int16)", static_cast<std::int16_t>(bits));
    case detail::ScalarType::uint16: return fmt::format("{} (uint16)", static_cast<std::uint16_t>(bits));
    case detail::ScalarType::int32: return fmt::format("{} (int32)", static_cast<std::int32_t>(bits));
    case detail::ScalarType::uint32: return fmt::format("{} (uint32)", bits);
    case detail::ScalarType::raw: break;
  }
  return fmt::format("0x{:x}", bits);
}

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams& params) {
  const detail::NodeData& n = g.nodes[i];
  const auto& p = g.memsets[n.payload];
  const std::string param = params.empty() ? std::string() : detail::escaped(param_label(g, params[0].first)) + "=";
  std::string s = fmt::format("value {}{}, {}-byte elements, {} x {}", param,
                              memset_value(p.value, g.memset_types[n.payload]), p.elementSize, p.width, p.height);
  if (p.height > 1) s += fmt::format(", pitch {} bytes", p.pitch);   // a 1-D memset's pitch is not used
  for (const detail::BufferUse& u : detail::buffer_uses_of(g, i)) {  // a slice (its offset is a parameter)
    const std::string part = detail::buffer_use_text(g, u);
    if (!part.empty()) s += ", destination " + part;
  }
  return s;
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, nullptr, "cds", nullptr, nullptr};

}  // namespace graphdsl::detail::kinds::memset

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <vector>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"

namespace graphdsl::detail::kinds::memset {
namespace building {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  AddedNode out;
  out.api = "cudaGraphAddMemsetNode";
  const cudaMemsetParams p = memset_params(g, i, builder.dptrs_);
  out.rc = cuda_try(cudaGraphAddMemsetNode, &out.node, graph, deps.data(), deps.size(), &p);
  if (out.rc == cudaErrorInvalidValue) out.hint = "the destination must be device memory (not pageable host memory)";
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, /*may_keep=*/false, /*check_devices=*/nullptr,
                     /*device_launch=*/true};

}  // namespace graphdsl::detail::kinds::memset

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include "exec/patch.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "native/native.hpp"

namespace graphdsl::detail::kinds::memset {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

Applied apply(ExecImpl& x, std::uint32_t i) {
  const cudaMemsetParams p = detail::memset_params(detail::recorded_plan(x), i, x.native.dptrs);
  return {exec_memset_set_params(x, x.native.nodes[i], p), "cudaGraphExecMemsetNodeSetParams"};
}

Applied patch_graph(ExecImpl& x, const GraphImpl& from, std::uint32_t i) {
  const cudaMemsetParams p = detail::memset_params(from, i, x.native.dptrs);
  return {cuda_try(cudaGraphMemsetNodeSetParams, x.native.nodes[i], &p), "cudaGraphMemsetNodeSetParams"};
}

/// A parameter's value in a memset of the executable's plan (apply_node) or of a plan nested in it.
Applied patch_param(ExecImpl& x, const GraphImpl& g, std::uint32_t i, std::uint32_t nested) {
  if (nested == ConditionRef::unresolved) return apply_node(x, i);
  const cudaGraphNode_t node = x.native.nested[nested].nodes[i];
  const DeviceScope device(node_device(g, i, -1));
  mark_changed(x);
  const cudaMemsetParams p = detail::memset_params(g, i, x.native.dptrs);
  return {exec_memset_set_params(x, node, p), "cudaGraphExecMemsetNodeSetParams"};
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr, patch_fns::patch_graph, patch_fns::patch_param};
}  // namespace graphdsl::detail::kinds::memset

// ==== end patch ====
