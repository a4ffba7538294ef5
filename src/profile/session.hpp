// src/profile/session.hpp — graphdsl's CUPTI subscription: for one profile() call, or for the rest
// of the process after profiler_attach(), and the graph node clones CUPTI reports while subscribed.
//
// cudaGraphInstantiate clones the graph it is given into the executable, and CUPTI's records may
// name the clone's graph node id rather than the original's. While graphdsl is subscribed it
// records every clone CUPTI reports (CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED: original id -> clone
// id), so that profile() can attribute records of either id to the plan node. Executables
// compiled after profiler_attach() have their clones recorded.
#pragma once

#include <cstdint>
#include <vector>

namespace graphdsl::detail {

/// Subscribed to CUPTI while alive: graphdsl's process-wide subscription when profiler_attach()
/// made one, else one of its own (released by the destructor).
/// @throws ProfilerError when CUPTI cannot be loaded or another subscriber holds it.
class Subscribed {
 public:
  Subscribed();
  ~Subscribed();
  Subscribed(const Subscribed&) = delete;
  Subscribed& operator=(const Subscribed&) = delete;

 private:
  bool own_ = false;
};

/// Every graph node id CUPTI reported as cloned from `id`, at any depth (a clone of a clone).
std::vector<std::uint64_t> clones_of(std::uint64_t id);

/// Whether profiler_attach() holds a subscription now.
bool attached() noexcept;

}  // namespace graphdsl::detail
