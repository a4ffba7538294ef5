// src/kinds/kernel.cpp — the kernel node kind (Graph::add_kernel): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

#include <fmt/format.h>

#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::kernel {
namespace describing {
namespace {

std::string dims(const dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

/// A kernel's placeholder argument: ", sets condition #0" or ", argument 2: buffer of 'tmp'" (the
/// mem_alloc node that allocates it; arguments count from 1).
std::string placeholder_arg(const detail::GraphImpl& g, const detail::KernelData& k,
                            const detail::KernelPlaceholder& p) {
  if (p.kind == detail::PlaceholderKind::condition) return fmt::format(", sets condition {}", condition_ref(p.ref));
  std::uint32_t arg = 0;
  while (arg + 1 < k.layout->count && k.layout->offsets[arg] != p.offset) ++arg;
  if (p.ref.levels == detail::ConditionRef::unresolved) {
    return fmt::format(", argument {}: a graph buffer of another plan", arg + 1);
  }
  return fmt::format(", argument {}: buffer of {}", arg + 1, g.info(p.ref.index).ref());
}

/// A kernel's launch attributes for dumps and DOT labels: ", cluster (2,1,1), cooperative, ...";
/// empty when it has none.
std::string attributes_text(const Launch& l) {
  std::string s;
  if (l.cluster.x != 0) s += fmt::format(", cluster {}", dims(l.cluster));
  if (l.cooperative) s += ", cooperative";
  if (l.sync_domain != MemSyncDomain::default_domain) s += fmt::format(", sync domain {}", to_string(l.sync_domain));
  if (l.l2.bytes != 0) {
    s += fmt::format(", L2 window {} B hit {:g} {}/{}", l.l2.bytes, l.l2.hit_ratio, to_string(l.l2.hit),
                     to_string(l.l2.miss));
  }
  return s;
}

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams& params) {
  const detail::NodeData& n = g.nodes[i];
  const auto& k = g.kernels[n.payload];
  std::string s = fmt::format("grid {} block {} shared {} B, {} args ({} B)", dims(k.launch.grid),
                              dims(k.launch.block), k.launch.shared_bytes, k.layout->count, k.layout->total);
  for (std::uint32_t c = 0; c < k.ph_count; ++c) s += placeholder_arg(g, k, g.placeholders[k.ph_first + c]);
  for (const auto& [p, u] : params) {
    s += fmt::format(", argument {}: {}", u.position, detail::escaped(param_use_text(g, p, u)));
  }
  if (k.launch.priority != 0) s += fmt::format(", priority {}", k.launch.priority);
  return detail::attributes_of(g, n.payload) != nullptr ? s + attributes_text(detail::launch_of(g, n.payload)) : s;
}

void dot_label(std::string& label, const detail::GraphImpl& g, std::uint32_t i) {
  const detail::NodeData& n = g.nodes[i];
  if (detail::attributes_of(g, n.payload) != nullptr) {
    label += "\\n" + dot_escape(attributes_text(detail::launch_of(g, n.payload)).substr(2));
  }
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, &describing::dot_label, "box", nullptr, nullptr};

}  // namespace graphdsl::detail::kinds::kernel

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <string>
#include <vector>

#include <fmt/format.h>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "native/launch_attributes.hpp"

namespace graphdsl::detail::kinds::kernel {
namespace building {
namespace {

/// What the message of a failed kernel node creation adds (empty: nothing).
std::string kernel_hint(cudaError_t rc, const KernelData& k) {
  if (rc == cudaErrorInvalidDeviceFunction || rc == cudaErrorInvalidResourceHandle) {
    return "the function is not a __global__ kernel compiled for this device (check CMAKE_CUDA_ARCHITECTURES)";
  }
  if (rc == cudaErrorInvalidValue && k.launch.shared_bytes > 48u * 1024u) {
    return fmt::format("{} bytes of dynamic shared memory is above the default 48 KiB; raise the kernel's limit "
                       "with cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, {})",
                       k.launch.shared_bytes, k.launch.shared_bytes);
  }
  return {};
}

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  const NodeData& n = g.nodes[i];
  const KernelData& k = g.kernels[n.payload];
  const cudaKernelNodeParams p = kernel_params(g, k, builder.scopes_, builder.dptrs_, builder.block_, builder.argv_);
  const KernelAttributes* attributes = attributes_of(g, n.payload);
  if (attributes != nullptr) check_attributes_on_device(g, i, builder.where_, k, launch_of(g, n.payload));
  AddedNode out;
  out.api = "cudaGraphAddKernelNode";
  out.rc = cuda_try(cudaGraphAddKernelNode, &out.node, graph, deps.data(), deps.size(),
                    static_cast<const cudaKernelNodeParams*>(&p));
  if (out.rc == cudaSuccess) out.rc = set_attributes(out.node, k.launch.priority, attributes, out.api);
  if (out.rc != cudaSuccess) out.hint = kernel_hint(out.rc, k);
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, false};

}  // namespace graphdsl::detail::kinds::kernel

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end patch ====
