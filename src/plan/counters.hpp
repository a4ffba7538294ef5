// src/plan/counters.hpp — live-object counters behind graphdsl::debug::live_counts().
#pragma once

#include <atomic>
#include <cstdint>

namespace graphdsl::detail {

struct Counters {
  std::atomic<std::int64_t> plans{0};
  std::atomic<std::int64_t> native_graphs{0};
  std::atomic<std::int64_t> executables{0};
  std::atomic<std::int64_t> events{0};
  std::atomic<std::int64_t> host_closures{0};
};

Counters& counters() noexcept;

}  // namespace graphdsl::detail
