// src/plan/token.cpp — the ownership and liveness primitives public headers declare and src/
// defines: a plan's storage deleted where GraphImpl is complete (GraphImplDelete, for Graph's
// UniqueHandle), the reference count of a plan's liveness token (SharedRef<PlanToken>, held by
// Parameters and conditional bodies' builders), and the plan table that node handles check instead
// of holding a count (plan/handles.hpp), with the content stamps those handles clear. No CUDA call.
#include <atomic>
#include <mutex>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan/graph_impl.hpp"
#include "plan/handles.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail {

void GraphImplDelete::destroy(GraphImpl* g) noexcept { delete g; }

void retain(PlanToken* p) noexcept { p->refs.fetch_add(1, std::memory_order_relaxed); }
void release(PlanToken* p) noexcept {
  if (p->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p;
}
long use_count(const PlanToken* p) noexcept { return p->refs.load(std::memory_order_relaxed); }

// ---- the plan table (plan/handles.hpp) ---------------------------------------------------------

namespace {

constexpr std::uint64_t slot_chunk0 = 256;  ///< slots of chunk 0; chunk k holds slot_chunk0 << k
constexpr int slot_chunks = 24;             ///< 256 * (2^24 - 1) = 2^32 - 256 slots in all
constexpr std::uint64_t max_plan_slots = slot_chunk0 * ((std::uint64_t{1} << slot_chunks) - 1);

struct PlanSlot {
  std::atomic<std::uint64_t> live{0};     ///< the id of the plan in the slot; 0 while it is free
  std::atomic<GraphImpl*> plan{nullptr};  ///< that plan (read after `live` matched)
  // Guarded by PlanTable::mutex:
  std::uint64_t last = 0;  ///< the id of the plan the slot held last, alive or destroyed
  std::string name;        ///< that plan's name once it is destroyed
  std::uint32_t next = 0;  ///< the next free slot (first-in first-out)
};

/// Constant-initialized, with nothing to destroy: usable from any static constructor or destructor.
/// The chunks are never freed (they stay reachable from `chunks`).
struct PlanTable {
  std::mutex mutex;
  std::atomic<PlanSlot*> chunks[slot_chunks] = {};
  std::uint64_t made = 0;  ///< slots handed out at least once (guarded by `mutex`, as all below)
  std::uint32_t free_head = 0, free_tail = 0, free_count = 0;
};
PlanTable plan_table;

/// The chunk and position of slot `s`: chunk k holds slots [256 (2^k - 1), 256 (2^(k+1) - 1)).
struct SlotPlace {
  int chunk;
  std::uint64_t offset;
};
SlotPlace place_of(std::uint64_t s) noexcept {
  const std::uint64_t v = s + slot_chunk0;
  const int k = 63 - __builtin_clzll(v) - 8;  // floor(log2(v)) - log2(slot_chunk0)
  return {k, v - (slot_chunk0 << k)};
}

PlanSlot& plan_slot(std::uint32_t s) noexcept {
  const SlotPlace w = place_of(s);
  return plan_table.chunks[w.chunk].load(std::memory_order_acquire)[w.offset];
}

/// A slot never used, making its chunk when it is the chunk's first. Under the mutex.
std::uint32_t new_plan_slot() {
  if (plan_table.made == max_plan_slots) {
    throw UsageError(fmt::format("{} plans are alive at once, the most graphdsl's plan table holds", max_plan_slots));
  }
  const SlotPlace w = place_of(plan_table.made);
  if (w.offset == 0) plan_table.chunks[w.chunk].store(new PlanSlot[slot_chunk0 << w.chunk], std::memory_order_release);
  return static_cast<std::uint32_t>(plan_table.made++);
}

}  // namespace

std::uint32_t take_plan_slot(GraphImpl* plan, std::uint64_t id) {
  const std::lock_guard<std::mutex> lock(plan_table.mutex);
  std::uint32_t s = 0;
  if (plan_table.free_count > kept_names) {
    s = plan_table.free_head;
    plan_table.free_head = plan_slot(s).next;
    --plan_table.free_count;
  } else {
    s = new_plan_slot();
  }
  PlanSlot& x = plan_slot(s);
  std::string().swap(x.name);  // the name of the slot's previous plan is forgotten now
  x.last = id;
  x.plan.store(plan, std::memory_order_relaxed);
  x.live.store(id, std::memory_order_release);
  return s;
}

void give_back_plan_slot(std::uint32_t slot, std::uint64_t id, std::string name) noexcept {
  const std::lock_guard<std::mutex> lock(plan_table.mutex);
  PlanSlot& x = plan_slot(slot);
  x.live.store(0, std::memory_order_release);
  x.plan.store(nullptr, std::memory_order_relaxed);
  x.last = id;
  x.name = std::move(name);
  if (plan_table.free_count == 0) {
    plan_table.free_head = slot;
  } else {
    plan_slot(plan_table.free_tail).next = slot;
  }
  plan_table.free_tail = slot;
  ++plan_table.free_count;
}

bool plan_alive(std::uint32_t slot, std::uint64_t plan) noexcept {
  return plan_slot(slot).live.load(std::memory_order_acquire) == plan;
}

void throw_unusable_handle(const Node& n) {
  const NodeRef r = n.ref();
  if (r.plan == 0) throw UsageError("empty node handle (a default-constructed Node was used)");
  throw UsageError(
      fmt::format("node #{} of {} was used after its plan was destroyed (its Graph was destroyed or "
                  "assigned over, or moved into an instantiate() that threw); a node handle is usable "
                  "only while its plan is alive",
                  r.index, plan_ref_of(r)));
}

std::uint64_t GraphImpl::content_stamp() const noexcept {
  static std::atomic<std::uint64_t> next{1};
  std::uint64_t s = stamp.load(std::memory_order_relaxed);
  if (s != 0) return s;
  const std::uint64_t fresh = next.fetch_add(1, std::memory_order_relaxed);
  // A reader on another thread may stamp the plan first: then both use its stamp.
  return stamp.compare_exchange_strong(s, fresh, std::memory_order_relaxed) ? fresh : s;
}

GraphImpl* live_plan(const NodeRef& ref) noexcept {
  if (ref.plan == 0) return nullptr;
  const PlanSlot& x = plan_slot(ref.slot);
  if (x.live.load(std::memory_order_acquire) != ref.plan) return nullptr;
  GraphImpl* g = x.plan.load(std::memory_order_relaxed);
  g->stamp.store(0, std::memory_order_relaxed);  // a handle may change its plan
  return g;
}

std::string plan_ref_of(const NodeRef& ref) {
  std::string name;
  {
    const std::lock_guard<std::mutex> lock(plan_table.mutex);
    const PlanSlot& x = plan_slot(ref.slot);
    if (x.last != ref.plan) return fmt::format("a graph whose name is no longer kept (plan id {})", ref.plan);
    if (x.live.load(std::memory_order_relaxed) == ref.plan) {
      name = x.plan.load(std::memory_order_relaxed)->name;
    } else {
      name = x.name;
    }
  }
  return fmt::format("graph {} (plan id {})", quoted(name), ref.plan);
}

std::uint32_t origin_index(const GraphImpl& g, const Node& n) {
  if (n.index() < g.nodes.size()) return n.index();
  throw UsageError(
      fmt::format("node #{} of {} was added after the executable was compiled; the executable's "
                  "recorded plan {} (plan id {}) has {} nodes",
                  n.index(), plan_ref_of(n.ref()), quoted(g.name), g.id, g.nodes.size()));
}

}  // namespace graphdsl::detail
