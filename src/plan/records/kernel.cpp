// src/plan/records/kernel.cpp — a kernel record's launch: the shape in KernelData, the launch
// attributes (cluster, cooperative, sync domain, L2 window, device-updatable) in
// GraphImpl::kernel_attributes, for the few kernels that have any; launch_of() and store_launch()
// put the two together (plan/records/kernel_access.hpp). No CUDA call.
#include <algorithm>

#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

const KernelAttributes* attributes_of(const GraphImpl& g, std::uint32_t kernel) noexcept {
  if (g.kernel_attributes.empty()) return nullptr;
  const auto it = std::lower_bound(g.kernel_attributes.begin(), g.kernel_attributes.end(), kernel,
                                   [](const KernelAttributes& a, std::uint32_t k) { return a.kernel < k; });
  return it != g.kernel_attributes.end() && it->kernel == kernel ? &*it : nullptr;
}

Launch launch_of(const GraphImpl& g, std::uint32_t kernel) {
  const LaunchShape& s = g.kernels[kernel].launch;
  Launch l(s.grid, s.block, s.shared_bytes, s.priority);
  if (const KernelAttributes* a = attributes_of(g, kernel)) {
    l.cluster = a->cluster;
    l.cooperative = a->cooperative;
    l.sync_domain = a->sync_domain;
    l.l2 = a->l2;
    l.device_updatable = a->device_updatable;
  }
  return l;
}

bool device_updatable(const GraphImpl& g, std::uint32_t kernel) noexcept {
  const KernelAttributes* a = attributes_of(g, kernel);
  return a != nullptr && a->device_updatable;
}

void store_launch(GraphImpl& g, std::uint32_t kernel, const Launch& l) {
  LaunchShape& shape = g.kernels[kernel].launch;  // in place (see add_kernel_node)
  shape.grid = l.grid;
  shape.block = l.block;
  shape.shared_bytes = l.shared_bytes;
  shape.priority = l.priority;
  auto& all = g.kernel_attributes;
  if (all.empty() && !l.has_attributes()) return;  // the common case: no kernel of the plan has any
  const auto it = std::lower_bound(all.begin(), all.end(), kernel,
                                   [](const KernelAttributes& a, std::uint32_t k) { return a.kernel < k; });
  const bool present = it != all.end() && it->kernel == kernel;
  if (!l.has_attributes()) {
    if (present) all.erase(it);
    return;
  }
  const KernelAttributes a{kernel, l.cluster, l.cooperative, l.sync_domain, l.l2, l.device_updatable};
  if (present) {
    *it = a;
  } else {
    all.insert(it, a);
  }
}

}  // namespace graphdsl::detail
