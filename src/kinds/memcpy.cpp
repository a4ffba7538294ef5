// src/kinds/memcpy.cpp — the memcpy node kind (Graph::add_memcpy*): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const RuleOps rules{};
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

#include <string>

#include <fmt/format.h>

#include "plan/names.hpp"
#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::memcpy {
namespace describing {
namespace {

/// The direction of a copy, by cudaMemcpyKind.
constexpr const char* copy_kind_names[] = {"host-to-host", "host-to-device", "device-to-host", "device-to-device",
                                           "cudaMemcpyDefault (direction inferred by CUDA at run time)"};
static_assert(cudaMemcpyHostToHost == 0 && cudaMemcpyHostToDevice == 1 && cudaMemcpyDeviceToHost == 2 &&
              cudaMemcpyDeviceToDevice == 3 && cudaMemcpyDefault == 4);

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams&) {
  const detail::NodeData& n = g.nodes[i];
  const auto& p = g.memcpys[n.payload];
  if (const detail::PeerCopy* peer = g.peer_copy(i)) {
    return fmt::format("{} bytes, peer copy device {} -> device {}", p.extent.width, peer->src_device,
                       peer->dst_device);
  }
  return fmt::format("{} x {} x {} bytes, {}", p.extent.width, p.extent.height, p.extent.depth,
                     name_of(p.kind, copy_kind_names, "invalid"));
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, nullptr, "cds", nullptr, nullptr};

}  // namespace graphdsl::detail::kinds::memcpy

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <vector>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"

namespace graphdsl::detail::kinds::memcpy {
namespace building {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  AddedNode out;
  out.api = "cudaGraphAddMemcpyNode";
  const cudaMemcpy3DParms p = memcpy_params(g, i, builder.dptrs_);
  out.rc = cuda_try(cudaGraphAddMemcpyNode, &out.node, graph, deps.data(), deps.size(), &p);
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, false};

}  // namespace graphdsl::detail::kinds::memcpy

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end patch ====
