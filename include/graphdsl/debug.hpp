// graphdsl/debug.hpp — counters for tests and leak hunting.
//
// compute-sanitizer cannot see leaked cudaGraph_t or cudaGraphExec_t objects; these counters can.
#pragma once

#include <cstdint>

/// Counters for tests and leak hunting.
namespace graphdsl::debug {

/// Objects graphdsl currently keeps alive.
struct LiveCounts {
  std::int64_t plans = 0;          ///< Graph values (including copies held by executables)
  std::int64_t native_graphs = 0;  ///< cudaGraph_t owned by graphdsl
  std::int64_t executables = 0;    ///< cudaGraphExec_t owned by graphdsl
  std::int64_t events = 0;         ///< cudaEvent_t owned by graphdsl Events
  std::int64_t host_closures = 0;  ///< host-node callables owned by plans or executables
};

/// A snapshot of the live-object counters.
LiveCounts live_counts() noexcept;

/// How many CUDA calls the calling thread has made through graphdsl's checked path (each thread
/// counts its own: graphdsl's background thread, which destroys executables released inside their
/// own host callbacks, does not move another thread's count). Building a plan never changes it.
std::uint64_t cuda_calls() noexcept;

}  // namespace graphdsl::debug
