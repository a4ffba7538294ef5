// graphdsl/cache.hpp — executables reused across plans of the same shape.
//
//   gd::ExecutableCache<std::size_t> cache;            // key: e.g. a capacity class
//   for (auto& batch : batches) {
//     gd::Graph plan = build_plan(batch);                // same shape for the same class
//     cache.get(capacity_class(batch.size()), plan).launch(stream);
//   }
//
// get() compiles a plan the first time a key is seen. Later, if the plan's fingerprint equals the
// cached executable's, the executable is updated in place (only changed nodes are patched);
// otherwise — or if the update is refused — the plan is compiled anew and replaces the entry.
// Keep the shape stable per key (for example by rounding sizes up to capacity classes) so that
// updates succeed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>

#include "graphdsl/executable.hpp"
#include "graphdsl/graph.hpp"

namespace graphdsl {

/// A map from a user key to an Executable kept up to date with the latest plan for that key.
/// Not synchronized: use one cache from one thread at a time.
template <class Key, class Hash = std::hash<Key>, class KeyEqual = std::equal_to<Key>>
class ExecutableCache {
 public:
  /// What get() did so far.
  struct Stats {
    std::size_t compiled = 0;  ///< plans compiled (new key, new fingerprint or refused update)
    std::size_t updated = 0;   ///< plans applied to a cached executable in place
    std::size_t refused = 0;   ///< updates refused although fingerprints matched (then compiled)
  };

  /// An empty cache; every plan it compiles is compiled with `options`.
  explicit ExecutableCache(InstantiateOptions options = {}) : options_(options) {}

  /// The executable for `key`, brought up to date with `plan`.
  /// @throws what Graph::instantiate() throws.
  Executable& get(const Key& key, const Graph& plan) {
    const std::uint64_t fp = plan.fingerprint();
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.fingerprint == fp) {
      if (it->second.exec.update(plan)) {
        ++stats_.updated;
        return it->second.exec;
      }
      ++stats_.refused;
    }
    Entry fresh{fp, plan.instantiate(options_)};
    ++stats_.compiled;
    if (it != entries_.end()) {
      it->second = std::move(fresh);
      return it->second.exec;
    }
    return entries_.emplace(key, std::move(fresh)).first->second.exec;
  }

  /// The cached executable for `key`, or nullptr.
  Executable* find(const Key& key) {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second.exec;
  }
  /// Removes the entry for `key` and destroys its executable; true if there was one.
  bool erase(const Key& key) { return entries_.erase(key) > 0; }
  /// Removes every entry and destroys their executables (the statistics are kept).
  void clear() { entries_.clear(); }
  /// The number of cached executables (one per key).
  std::size_t size() const noexcept { return entries_.size(); }
  /// What get() did so far.
  const Stats& stats() const noexcept { return stats_; }

 private:
  struct Entry {
    std::uint64_t fingerprint;
    Executable exec;
  };
  InstantiateOptions options_;
  std::unordered_map<Key, Entry, Hash, KeyEqual> entries_;
  Stats stats_;
};

}  // namespace graphdsl
