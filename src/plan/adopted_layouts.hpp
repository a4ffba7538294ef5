// src/plan/adopted_layouts.hpp — argument layouts of kernels known only by their parameter info
// (graphdsl::adopt): one shared, never-freed ArgLayout per distinct list of parameter sizes and
// device offsets, so that kernels of one function share one layout, as kernels of one signature
// do (the diff relies on it).
#pragma once

#include <cstdint>

#include "graphdsl/detail/kernel_args.hpp"

namespace graphdsl::detail {

/// The layout of `count` parameters of `sizes` bytes at device offsets `abi_offsets` (packed
/// without padding in the plan's argument block), marked `adopted`: the same object for the same
/// lists, for the life of the process. Thread-safe. @throws UsageError when the packed block would
/// pass 4 GiB; std::bad_alloc.
const ArgLayout& adopted_layout(const std::uint32_t* sizes, const std::uint32_t* abi_offsets, std::uint32_t count);

}  // namespace graphdsl::detail
