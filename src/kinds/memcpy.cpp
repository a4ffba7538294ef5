// src/kinds/memcpy.cpp — the memcpy node kind (Graph::add_memcpy*): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include <tuple>
#include <utility>

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_memcpy(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const cudaMemcpy3DParms& p = g.memcpys[g.nodes[i].payload];
  if (p.extent.width == 0 || p.extent.height == 0 || p.extent.depth == 0) {
    fail(g, i, ctx, fmt::format("copies {} x {} x {} bytes; a memcpy node must copy at least one byte", p.extent.width,
                                p.extent.height, p.extent.depth));
  }
  const Count bytes = Count{p.extent.width}.times(p.extent.height).times(p.extent.depth);
  check_size(g, i, ctx, "copies", bytes);
  const Count rows = Count{p.extent.height}.times(p.extent.depth);
  for (auto [ptr, array] : {std::pair<const cudaPitchedPtr*, cudaArray_t>{&p.srcPtr, p.srcArray}, {&p.dstPtr, p.dstArray}}) {
    // the rows of a pitched pointer span pitch * (rows - 1) + width
    if (array != nullptr || (rows.fits && rows.value == 1)) continue;
    check_size(g, i, ctx, "spans",
               rows.fits ? Count{ptr->pitch}.times(rows.value - 1).plus(Count{p.extent.width}) : rows);
  }
  if (p.srcArray == nullptr) check_pointer(g, i, ctx, p.srcPtr.ptr, BufferField::memcpy_src, "source", bytes);
  if (p.dstArray == nullptr) check_pointer(g, i, ctx, p.dstPtr.ptr, BufferField::memcpy_dst, "destination", bytes);
  if (p.kind < cudaMemcpyHostToHost || p.kind > cudaMemcpyDefault) {
    fail(g, i, ctx, fmt::format("cudaMemcpyKind {} is not a valid copy direction", static_cast<int>(p.kind)));
  }
  const bool multi_row = p.extent.height > 1 || p.extent.depth > 1;
  for (auto [what, ptr, array] : {std::tuple<const char*, cudaPitchedPtr, cudaArray_t>{"source", p.srcPtr, p.srcArray},
                                  {"destination", p.dstPtr, p.dstArray}}) {
    if (array == nullptr && multi_row && ptr.pitch < p.extent.width) {
      fail(g, i, ctx, fmt::format("{} pitch {} bytes is smaller than the row width {} bytes", what, ptr.pitch,
                                  p.extent.width));
    }
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::memcpy {
const RuleOps rules{&rule::check_memcpy, nullptr, true};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end patch ====
