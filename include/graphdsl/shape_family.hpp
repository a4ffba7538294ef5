// graphdsl/shape_family.hpp — one executable for a whole family of shapes (e.g. every batch size of
// a decode step), instead of one executable per shape.
//
//   gd::ShapeFamily<int> family;                       // key: the batch size
//   for (int b : {1, 2, 4, 8, 16, 32, 64, 128}) family.add(b, build_step(b));   // no CUDA call
//   family.compile(stream);                            // one executable per topology, each variant prepared
//   for (const Request& r : requests) family.launch(r.batch, stream);   // switches only when the key changes
//   fmt::print("{}\n", family.last_switch().to_string());              // what the switch chose, and why
//   fmt::print("{}\n", family.memory().to_string());                   // against one executable per variant
//
// add() groups the variants by Graph::fingerprint(): variants that differ only in parameters (kernel
// arguments, launch shapes, copy sizes, ...) share one executable; a variant of another topology gets
// an executable of its own, chosen automatically. compile() instantiates one executable per topology.
// launch(key) switches the topology's executable to the variant only when it holds another one, by
// the cheaper of two ways: per-node setters for the nodes that differ between the two variants
// (Executable::update with UpdatePolicy::per_node), or the variant's prepared whole-template update
// (one cudaGraphExecUpdate; the variant is prepared, once, by the first switch that takes it, or by
// compile() with FamilyOptions::prepare_eagerly). The costs are measured when compiling
// (FamilyOptions::calibrate) and by the first prepared switch, and every switch says what it chose
// (SwitchReport). With FamilyOptions::dedicated_budget_bytes, the hottest variants also get
// executables of their own (least recently used out first), which launch with no switch at all.
//
// Graph memory: CUDA cannot change a mem_alloc node's size in an update, so every variant of one
// topology must allocate the same sizes (size graph allocations for the largest variant); add()
// refuses a variant that differs from another only there, naming both variants and the node.
//
// Compared with ExecutableCache (cache.hpp): the cache keeps one executable per key and diffs the
// new plan of that key at every get(); the family keeps one executable per topology for all keys,
// holds every variant's plan and prepared template, and switches between them without a diff of
// plans it has not seen.
//
// Keys are compared with ==, in a list (a family holds a few dozen variants at most; a launch finds its
// key among eight in a few nanoseconds). Not in the umbrella header: #include <graphdsl/shape_family.hpp>.
// Not synchronized: use one family from one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "graphdsl/detail/unique_handle.hpp"
#include "graphdsl/executable.hpp"
#include "graphdsl/graph.hpp"
#include "graphdsl/instantiate_options.hpp"
#include "graphdsl/update.hpp"

namespace graphdsl {

/// How a ShapeFamily brought an executable to the launched variant.
enum class SwitchStrategy : std::uint8_t {
  none,       ///< nothing to do: the executable already held the variant
  compiled,   ///< the variant's topology executable was just compiled from it (first launch)
  dedicated,  ///< the variant has an executable of its own (FamilyOptions::dedicated_budget_bytes)
  per_node,   ///< Executable::update(plan, UpdatePolicy::per_node): one setter per node that differs
  prepared    ///< Executable::update(prepared): one cudaGraphExecUpdate of the variant's prepared template
};

/// "none", "compiled", "dedicated", "per_node" or "prepared".
const char* to_string(SwitchStrategy s) noexcept;

/// Which switch a ShapeFamily may use.
enum class SwitchPolicy : std::uint8_t {
  automatic,  ///< the cheaper one by the measured cost model (SwitchReport's two estimates)
  per_node,   ///< per-node setters always (the prepared update only when setters cannot make the change)
  prepared    ///< the prepared whole-template update always (per-node setters when it is not available)
};

/// Options of a ShapeFamily.
struct FamilyOptions {
  InstantiateOptions instantiate{};               ///< what every executable is compiled with
  SwitchPolicy policy = SwitchPolicy::automatic;  ///< which switch to use
  /// Device bytes the family may spend on executables of their own for its most recently used
  /// variants (measured per executable when compiled); 0: none, every variant is switched.
  std::size_t dedicated_budget_bytes = 0;
  /// A variant gets an executable of its own (budget allowing) on its launch number `promote_after`
  /// since it last lost one (at least 1).
  unsigned int promote_after = 2;
  /// compile() measures, for each topology of two variants or more, one per-node switch and one diff
  /// (and one prepared update when its variants are prepared already), and sets the cost model from
  /// them (else built-in defaults are used); the first prepared switch of a topology measures it too.
  bool calibrate = true;
  /// Use prepared whole-template updates (Executable::prepare_update: a materialized template per
  /// variant, host memory). A variant is prepared the first time a switch to it would take the
  /// prepared update (that switch reports the preparation apart: SwitchReport::prepare_us), so a
  /// family pays, at build and in memory, only for the variants whose switches need it. false: no
  /// prepared update is made, every switch goes per node (the memory-lean choice for families
  /// whose variants differ in few nodes).
  bool prepare_templates = true;
  /// With prepare_templates: compile() prepares every variant up front, so that no switch pays for
  /// it (a longer build and more host memory).
  bool prepare_eagerly = false;
};

/// What one ShapeFamily::launch did to bring the executable to the variant.
struct SwitchReport {
  std::string from;                 ///< the variant the executable held (empty: none)
  std::string to;                   ///< the variant launched
  std::size_t topology = 0;         ///< the topology (executable) index
  std::size_t node_count = 0;       ///< top-level nodes of the variant's plan
  std::size_t changed_nodes = 0;    ///< top-level nodes whose parameters differ between the two variants
  double per_node_us = 0;           ///< estimated cost of the per-node switch (diff + one setter per changed node)
  double prepared_us = 0;           ///< estimated cost of the prepared update (0 when not available)
  bool prepared_available = false;  ///< whether the variant has, or may get now, a prepared update (prepare_update)
  /// Host time spent preparing the variant for this switch (a first prepared switch to it; 0: none),
  /// not in took_us.
  double prepare_us = 0;
  SwitchStrategy chosen = SwitchStrategy::none;  ///< what was done
  double took_us = 0;                            ///< host wall time of the switch (0 when nothing was done)

  /// E.g. "switch 'b=4' -> 'b=8' (topology 0, 12 of 2305 nodes differ): per_node (est. 31.2 us; prepared est. 190.4
  /// us), took 29.8 us".
  std::string to_string() const;
};

/// Memory of a ShapeFamily against one executable per variant (ShapeFamily::memory()).
struct FamilyMemory {
  std::size_t variants = 0;    ///< variants added
  std::size_t topologies = 0;  ///< executables shared by the variants of one topology
  std::size_t dedicated = 0;   ///< executables of their own (dedicated budget)
  std::size_t prepared = 0;    ///< prepared updates held
  /// Device bytes of the family's executables: the cudaMemGetInfo delta of compiling and uploading
  /// each (graph memory included), summed. Device-wide: other allocations made at the same time count too.
  std::size_t device_bytes = 0;
  /// Host bytes the family holds: malloc'd bytes (glibc mallinfo2) while compiling its executables
  /// and preparing its templates, plus its plans' storage. Allocations of the driver made with mmap
  /// are not seen.
  std::size_t host_bytes = 0;
  /// The same measures for one executable per variant: each topology's executable bytes times its
  /// number of variants (no prepared update, and each variant's plan copied into its executable).
  std::size_t separate_device_bytes = 0;
  std::size_t separate_host_bytes = 0;  ///< see separate_device_bytes

  /// E.g. "8 variants, 1 topology: device 12.1 MiB (separate 96.8 MiB, 0.125), host 3.0 MiB (separate 14.2 MiB,
  /// 0.211)".
  std::string to_string() const;
};

/// Counters of a ShapeFamily.
struct FamilyStats {
  std::size_t launches = 0;            ///< launch() calls that launched
  std::size_t unchanged = 0;           ///< launches with no switch (the executable held the variant)
  std::size_t per_node = 0;            ///< switches by per-node setters
  std::size_t prepared = 0;            ///< switches by prepared updates
  std::size_t dedicated_launches = 0;  ///< launches of executables of their own
  std::size_t promotions = 0;          ///< executables of their own compiled
  std::size_t evictions = 0;           ///< executables of their own destroyed to stay within the budget
  std::size_t compiled = 0;            ///< executables compiled (topologies and dedicated)
};

namespace detail {
class FamilyCore;
/// Deletes a family's state (src/exec/shape_family.cpp).
struct FamilyCoreDelete {
  static void destroy(FamilyCore* c) noexcept;
};

/// The untyped family behind ShapeFamily: variants by index (src/exec/shape_family*.cpp).
class FamilyBase {
 public:
  explicit FamilyBase(const FamilyOptions& options);
  FamilyBase(FamilyBase&&) noexcept;
  FamilyBase& operator=(FamilyBase&&) noexcept;
  ~FamilyBase();

  /// Adds variant `label`; returns its index. Strong guarantee. @throws UsageError.
  std::size_t add_variant(std::string label, Graph plan);
  /// Takes back the last add_variant (a variant added but not launched yet: nothing compiled or
  /// prepared for it). Never throws.
  void remove_last_variant() noexcept;
  void compile(cudaStream_t stream);
  void launch_variant(std::size_t v, cudaStream_t stream);
  std::size_t variant_count() const noexcept;
  std::size_t topology_count() const noexcept;
  std::size_t topology_of(std::size_t v) const;
  const std::string& label(std::size_t v) const;
  const Graph& plan(std::size_t v) const;
  std::size_t changed_between(std::size_t a, std::size_t b) const;
  const Executable* executable_of(std::size_t v) const noexcept;
  bool has_dedicated(std::size_t v) const;
  const SwitchReport& last_switch() const noexcept;
  const FamilyStats& stats() const noexcept;
  FamilyMemory memory() const;
  const FamilyOptions& options() const noexcept;
  void set_dedicated_budget(std::size_t bytes);

 private:
  UniqueHandle<FamilyCore*, FamilyCoreDelete> core_;
};

/// A label for a key: the number for arithmetic keys, the text for keys that convert to std::string.
template <class Key>
std::string family_label(const Key& key, std::size_t index) {
  if constexpr (std::is_same_v<Key, bool>) {
    return key ? "true" : "false";
  } else if constexpr (std::is_arithmetic_v<Key>) {
    return std::to_string(key);
  } else if constexpr (std::is_convertible_v<const Key&, std::string>) {
    return std::string(key);
  } else {
    return "variant #" + std::to_string(index);
  }
}
}  // namespace detail

/// Plan variants keyed by the user, served by one executable per topology (see shape_family.hpp).
/// `Key` is copyable and compared with ==. Move-only. Not synchronized.
///
/// Exception-safety: add() has the strong guarantee (a refused or failed add leaves the family as it
/// was); a switch that CUDA refuses throws and leaves the executable on the variant it held.
template <class Key>
class ShapeFamily {
 public:
  /// An empty family.
  explicit ShapeFamily(const FamilyOptions& options = {}) : base_(options) {}

  /// Adds the variant for `key` (a copy of `plan` is kept). No CUDA call: the variant is grouped with
  /// the variants of the same fingerprint; after compile(), a variant of a new topology is compiled on
  /// its first launch, and one of a known topology is prepared then.
  /// @throws UsageError naming the variant: a key added before, an invalid or empty plan, or a plan
  ///         that differs from a variant of the family only in the size of a graph allocation
  ///         (naming both variants and the mem_alloc node).
  void add(const Key& key, Graph plan) {
    if (find(key) != npos) throw_duplicate(detail::family_label(key, base_.variant_count()));
    keys_.reserve(keys_.size() + 1);  // so that push_back below cannot fail once the variant is in
    // Variants are numbered in add order: the new one's index is keys_.size().
    base_.add_variant(detail::family_label(key, base_.variant_count()), std::move(plan));
    try {
      keys_.push_back(key);
    } catch (...) {
      base_.remove_last_variant();  // Key's copy threw: the family as it was
      throw;
    }
  }

  /// Compiles one executable per topology (from its first variant) and uploads it on `stream`;
  /// measures the switch costs (FamilyOptions::calibrate); prepares every variant with
  /// FamilyOptions::prepare_eagerly (else each on its first prepared switch).
  /// @throws what Graph::instantiate() throws (naming the variant), CudaError.
  void compile(cudaStream_t stream = nullptr) { base_.compile(stream); }

  /// Launches the variant of `key` on `stream`, switching its topology's executable to it first when
  /// it holds another variant (last_switch() says how). Compiles first if compile() was not called.
  /// @throws UsageError for an unknown key; UsageError naming the variant and node when the switch
  ///         is refused (the executable keeps the variant it held); what Executable::launch throws.
  void launch(const Key& key, cudaStream_t stream = nullptr) { base_.launch_variant(variant(key), stream); }

  /// The number of variants.
  std::size_t size() const noexcept { return base_.variant_count(); }
  /// The number of topologies (executables shared by variants).
  std::size_t topologies() const noexcept { return base_.topology_count(); }
  /// The topology index of `key`'s variant. @throws UsageError for an unknown key.
  std::size_t topology(const Key& key) const { return base_.topology_of(variant(key)); }
  /// The plan of `key`'s variant (the family's copy). @throws UsageError for an unknown key.
  const Graph& plan(const Key& key) const { return base_.plan(variant(key)); }
  /// Top-level nodes whose parameters differ between two variants of one topology (diff()).
  /// @throws UsageError for an unknown key or variants of two topologies.
  std::size_t changed_nodes(const Key& a, const Key& b) const { return base_.changed_between(variant(a), variant(b)); }
  /// The executable that would launch `key`'s variant now (its own, or its topology's, which may
  /// hold another variant); nullptr before it is compiled. For inspection only; valid until the next
  /// add() or launch() (either may compile, and move the family's executables).
  const Executable* executable(const Key& key) const { return base_.executable_of(variant(key)); }
  /// Whether `key`'s variant has an executable of its own now.
  bool dedicated(const Key& key) const { return base_.has_dedicated(variant(key)); }
  /// What the last launch did to bring the executable to its variant.
  const SwitchReport& last_switch() const noexcept { return base_.last_switch(); }
  /// Counters of launches and switches.
  const FamilyStats& stats() const noexcept { return base_.stats(); }
  /// Device and host bytes of the family, and of one executable per variant.
  FamilyMemory memory() const { return base_.memory(); }
  /// Changes the dedicated budget (executables of their own beyond it are destroyed, least recently
  /// used first).
  void set_dedicated_budget(std::size_t bytes) { base_.set_dedicated_budget(bytes); }

 private:
  static constexpr std::size_t npos = ~std::size_t{0};
  std::size_t find(const Key& key) const {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] == key) return i;
    }
    return npos;
  }
  std::size_t variant(const Key& key) const {
    const std::size_t v = find(key);
    if (v == npos) throw_unknown();
    return v;
  }
  [[noreturn]] static void throw_duplicate(const std::string& label);
  [[noreturn]] static void throw_unknown();

  detail::FamilyBase base_;
  std::vector<Key> keys_;  ///< keys_[v]: the key of variant v
};

namespace detail {
/// The UsageErrors of ShapeFamily's key lookups (src/exec/shape_family.cpp).
[[noreturn]] void family_duplicate_key(const std::string& label);
[[noreturn]] void family_unknown_key();
}  // namespace detail

template <class Key>
void ShapeFamily<Key>::throw_duplicate(const std::string& label) {
  detail::family_duplicate_key(label);
}
template <class Key>
void ShapeFamily<Key>::throw_unknown() {
  detail::family_unknown_key();
}

}  // namespace graphdsl
