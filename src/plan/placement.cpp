// src/plan/placement.cpp — multi-device plans: the placement rules that need no CUDA call (the
// compile-time device checks are native/device_rules.cpp).
#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "plan/kind_rules.hpp"
#include "plan/placement.hpp"

namespace graphdsl::detail {

void refuse_placement(const GraphImpl& g, std::uint32_t i, const std::string& context, const std::string& rule) {
  throw UsageError(fmt::format("{}{}: {}", context, g.info(i).describe(), rule));
}

void check_placement(const GraphImpl& g, std::uint32_t i, const RuleOps& ops, const std::string& context) {
  const NodeData& n = g.nodes[i];
  if (n.device >= 0) {
    if (const char* why = ops.not_placeable) {
      refuse_placement(g, i, context, fmt::format("cannot be placed on device {}: {}", n.device, why));
    }
  }
  if (ops.check_placement != nullptr) ops.check_placement(g, i, context);
  if (const PeerCopy* p = g.peer_copy(i)) {
    if (p->src_device < 0 || p->dst_device < 0) {
      refuse_placement(g, i, context, "a peer copy names both devices (0, 1, ...); -1 is not allowed here");
    }
    if (p->src_device == p->dst_device) {
      refuse_placement(g, i, context,
                       fmt::format("a peer copy from device {} to itself; use add_memcpy for a copy within one "
                                   "device",
                                   p->src_device));
    }
    if (n.device != p->dst_device && n.device != p->src_device) {
      refuse_placement(g, i, context,
                       fmt::format("a peer copy from device {} to device {} is placed on device {}; place it on "
                                   "one of the two",
                                   p->src_device, p->dst_device, n.device));
    }
  }
}

void check_body_placement(const GraphImpl& body, const std::string& context) {
  for (std::uint32_t i = 0; i < body.nodes.size(); ++i) {
    if (body.nodes[i].device >= 0 || body.peer_copy(i) != nullptr) {
      refuse_placement(body, i, context,
                       fmt::format("is placed on device {} inside a conditional body; a body's nodes run on "
                                   "the device of its conditional node (place nothing inside bodies)",
                                   body.nodes[i].device));
    }
  }
}

}  // namespace graphdsl::detail
