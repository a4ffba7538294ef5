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

/// The counters, constant-initialized (usable during static initialization and destruction).
inline Counters counter_storage;
/// The process's counters.
inline Counters& counters() noexcept { return counter_storage; }

}  // namespace graphdsl::detail
