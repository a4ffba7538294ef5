// plan/records/kernel_remove.hpp — what Graph::remove_node does with the kernel's stores that need a
// policy of their own (the on_remove column of plan/records/stores.def; the policies every store
// may use are plan/records/on_remove.hpp, which includes this file).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "plan/records/on_remove.hpp"

namespace graphdsl::detail::on_remove {

/// The kernel's launch attributes go (GraphImpl::kernel_attributes, sorted by kernel).
struct erase_kernel : no_prepare {
  template <class T>
  static void apply(std::vector<T>& store, const Removal& r, bool owned) noexcept {
    if (!owned) return;
    const auto it = std::lower_bound(store.begin(), store.end(), r.payload,
                                     [](const T& a, std::uint32_t k) { return a.kernel < k; });
    if (it != store.end() && it->kernel == r.payload) store.erase(it);
  }
};

}  // namespace graphdsl::detail::on_remove
