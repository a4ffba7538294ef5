// src/kinds/memcpy.cpp — the memcpy node kind (Graph::add_memcpy*): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"
#include "plan/graph_build.hpp"
#include "plan/node_params.hpp"

namespace graphdsl {

MemcpyNode Graph::add_memcpy_bytes(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  return add_memcpy_2d(dst, bytes, src, bytes, bytes, 1, kind);
}

MemcpyNode Graph::add_memcpy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                                std::size_t width_bytes, std::size_t height, cudaMemcpyKind kind) {
  return add_memcpy_3d(detail::memcpy_node_params(dst, dst_pitch, src, src_pitch, width_bytes, height, kind));
}

MemcpyNode Graph::add_memcpy_3d(const cudaMemcpy3DParms& params) {
  auto& g = impl();
  g.memcpys.push_back(params);
  return MemcpyNode(g.push(NodeKind::memcpy, g.memcpys.size() - 1));
}

MemcpyNode Graph::add_memcpy_peer_bytes(void* dst, int dst_device, const void* src, int src_device,
                                        std::size_t bytes) {
  const std::int16_t d = detail::device_number(dst_device, "add_memcpy_peer (destination device)");
  const std::int16_t s = detail::device_number(src_device, "add_memcpy_peer (source device)");
  MemcpyNode n = add_memcpy_bytes(dst, src, bytes, cudaMemcpyDeviceToDevice);
  auto& g = impl();
  g.peer_copies.push_back(detail::PeerCopy{n.index(), s, d});
  g.nodes[n.index()].device = d;  // the copy runs in the destination's context
  return n;
}

}  // namespace graphdsl

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
