// src/exec/shape_family_core.hpp — the state of a ShapeFamily (graphdsl/shape_family.hpp), shared by
// exec/shape_family.cpp (variants, grouping, memory) and exec/shape_family_switch.cpp (compiling,
// switching, the dedicated executables). Built on the public API of Graph and Executable, with two
// exceptions: the diff of two variants is the plan layer's (which nodes, not only how many), and a
// switch between variants whose diff the family holds applies it without diffing again
// (update_known_nodes, exec/update_steps.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graphdsl/executable.hpp"
#include "graphdsl/shape_family.hpp"

namespace graphdsl::detail {

constexpr std::size_t no_variant = std::numeric_limits<std::size_t>::max();

/// One variant: its plan, its topology and what the family prepared for it.
struct FamilyVariant {
  std::string label;
  Graph plan;
  std::uint64_t fingerprint = 0;
  std::size_t topology = 0;
  PreparedUpdate prepared;        ///< empty until prepared (then ok() or carrying the refusal)
  std::size_t prepared_host = 0;  ///< malloc'd bytes of preparing it
  Executable own;                 ///< an executable of its own (dedicated budget), or empty
  std::size_t own_device = 0;     ///< device bytes of `own`
  std::uint64_t last_use = 0;     ///< the family's launch clock when last launched
  unsigned int uses = 0;          ///< launches since it last lost (or never had) an executable of its own
};

/// The cost model of one topology's switches (microseconds).
struct SwitchCosts {
  double diff_us_per_node = 0.02;  ///< the host diff of update(plan), per top-level node
  double setter_us = 1.0;          ///< one per-node setter
  double prepared_us = -1;         ///< one prepared update (< 0: estimated from the node count)
  bool calibrated = false;
};

/// What differs between two variants of one topology, found once by the plans' diff: the nodes
/// whose parameters differ and whether the per-node setters of those nodes alone bring one variant
/// to the other (no condition default and no node name differs: those need the diff's own update).
struct PairDiff {
  std::vector<std::uint32_t> differing;
  bool setters_suffice = false;
};

/// One topology: its variants and the executable they share.
struct FamilyTopology {
  std::vector<std::size_t> variants;  ///< indices into FamilyCore::variants, in add order
  Executable exec;
  std::size_t current = no_variant;  ///< the variant `exec` holds
  std::size_t device_bytes = 0;      ///< measured when compiled (cudaMemGetInfo delta)
  std::size_t host_bytes = 0;        ///< measured when compiled (mallinfo2 delta)
  SwitchCosts costs;
};

class FamilyCore {
 public:
  explicit FamilyCore(const FamilyOptions& o) : options(o) {}

  FamilyOptions options;
  std::vector<FamilyVariant> variants;
  std::vector<FamilyTopology> topologies;
  mutable std::map<std::pair<std::size_t, std::size_t>, PairDiff> changed;  ///< (a, b) with a < b
  SwitchReport report;
  FamilyStats stats;
  std::uint64_t clock = 0;
  std::size_t dedicated_bytes = 0;  ///< device bytes of the variants' own executables
  bool compiled = false;            ///< compile() ran (later variants are compiled or prepared on use)

  // exec/shape_family.cpp
  std::size_t add(std::string label, Graph plan);
  void check_allocations(const FamilyVariant& v) const;
  std::size_t changed_between(std::size_t a, std::size_t b) const;
  /// The nodes that differ between variants a and b (of one topology; a != b), diffed once.
  const PairDiff& pair_diff(std::size_t a, std::size_t b) const;
  FamilyMemory memory() const;

  // exec/shape_family_switch.cpp
  void compile(cudaStream_t stream);
  void launch(std::size_t v, cudaStream_t stream);
  void set_budget(std::size_t bytes);

 private:
  void compile_topology(FamilyTopology& t, cudaStream_t stream);
  void prepare(FamilyVariant& v);
  void calibrate(FamilyTopology& t);
  void switch_to(FamilyTopology& t, std::size_t v);
  bool promote(std::size_t v, cudaStream_t stream);
  void evict_until(std::size_t bytes, std::size_t keep);
  void ensure_ready(FamilyVariant& v, cudaStream_t stream);
};

/// Free device memory now (cudaMemGetInfo), in bytes.
std::size_t device_free_bytes();
/// Bytes in use by malloc now (glibc mallinfo2: uordblks + hblkhd; 0 elsewhere).
std::size_t host_malloc_bytes() noexcept;
/// `after - before`, or 0 when memory was given back meanwhile.
inline std::size_t grew(std::size_t before, std::size_t after) noexcept { return after > before ? after - before : 0; }

}  // namespace graphdsl::detail
