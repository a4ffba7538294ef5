// src/plan/handles.cpp — the plan table behind node handles (plan/handles.hpp). No CUDA call.
#include "plan/handles.hpp"

#include <atomic>
#include <mutex>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

namespace {

constexpr std::uint64_t first_chunk = 256;  ///< slots of chunk 0; chunk k holds first_chunk << k
constexpr int chunk_count = 24;             ///< 256 * (2^24 - 1) slots in all: every 32-bit slot number but 256
constexpr std::uint64_t max_slots = first_chunk * ((std::uint64_t{1} << chunk_count) - 1);

struct Slot {
  std::atomic<std::uint64_t> live{0};     ///< the id of the plan in the slot; 0 while it is free
  std::atomic<GraphImpl*> plan{nullptr};  ///< that plan (read after `live` matched)
  // Guarded by Table::mutex:
  std::uint64_t last = 0;  ///< the id of the plan the slot held last, alive or destroyed
  std::string name;        ///< that plan's name once it is destroyed
  std::uint32_t next = 0;  ///< the next free slot (first-in first-out)
};

/// Constant-initialized and trivially destroyed: usable from any static constructor or destructor.
/// The chunks are never freed (they stay reachable from `chunks`).
struct Table {
  std::mutex mutex;
  std::atomic<Slot*> chunks[chunk_count] = {};
  std::uint64_t made = 0;  ///< slots handed out at least once (guarded by `mutex`, as all below)
  std::uint32_t free_head = 0, free_tail = 0, free_count = 0;
};
Table table;

/// The chunk and position of slot `s`: chunk k holds slots [256 (2^k - 1), 256 (2^(k+1) - 1)).
struct Where {
  int chunk;
  std::uint64_t offset;
};
Where where(std::uint64_t s) noexcept {
  const std::uint64_t v = s + first_chunk;
  const int k = 63 - __builtin_clzll(v) - 8;  // floor(log2(v)) - log2(first_chunk)
  return {k, v - (first_chunk << k)};
}

Slot& slot_at(std::uint32_t s) noexcept {
  const Where w = where(s);
  return table.chunks[w.chunk].load(std::memory_order_acquire)[w.offset];
}

/// A slot never used, making its chunk when it is the chunk's first. Under the mutex.
std::uint32_t new_slot() {
  if (table.made == max_slots) {
    throw UsageError(fmt::format("{} plans are alive at once, the most graphdsl's plan table holds", max_slots));
  }
  const Where w = where(table.made);
  if (w.offset == 0) table.chunks[w.chunk].store(new Slot[first_chunk << w.chunk], std::memory_order_release);
  return static_cast<std::uint32_t>(table.made++);
}

}  // namespace

std::uint32_t take_plan_slot(GraphImpl* plan, std::uint64_t id) {
  const std::lock_guard<std::mutex> lock(table.mutex);
  std::uint32_t s = 0;
  if (table.free_count > kept_names) {
    s = table.free_head;
    table.free_head = slot_at(s).next;
    --table.free_count;
  } else {
    s = new_slot();
  }
  Slot& x = slot_at(s);
  std::string().swap(x.name);  // the name of the slot's previous plan is forgotten now
  x.last = id;
  x.plan.store(plan, std::memory_order_relaxed);
  x.live.store(id, std::memory_order_release);
  return s;
}

void give_back_plan_slot(std::uint32_t slot, std::uint64_t id, std::string name) noexcept {
  const std::lock_guard<std::mutex> lock(table.mutex);
  Slot& x = slot_at(slot);
  x.live.store(0, std::memory_order_release);
  x.plan.store(nullptr, std::memory_order_relaxed);
  x.last = id;
  x.name = std::move(name);
  if (table.free_count == 0) {
    table.free_head = slot;
  } else {
    slot_at(table.free_tail).next = slot;
  }
  table.free_tail = slot;
  ++table.free_count;
}

bool plan_alive(std::uint32_t slot, std::uint64_t plan) noexcept {
  return slot_at(slot).live.load(std::memory_order_acquire) == plan;
}

GraphImpl* live_plan(const NodeRef& ref) noexcept {
  if (ref.plan == 0) return nullptr;
  const Slot& x = slot_at(ref.slot);
  if (x.live.load(std::memory_order_acquire) != ref.plan) return nullptr;
  return x.plan.load(std::memory_order_relaxed);
}

std::string plan_ref_of(const NodeRef& ref) {
  std::string name;
  {
    const std::lock_guard<std::mutex> lock(table.mutex);
    const Slot& x = slot_at(ref.slot);
    if (x.last != ref.plan) return fmt::format("a graph whose name is no longer kept (plan id {})", ref.plan);
    if (x.live.load(std::memory_order_relaxed) == ref.plan) {
      name = x.plan.load(std::memory_order_relaxed)->name;
    } else {
      name = x.name;
    }
  }
  return fmt::format("graph {} (plan id {})", quoted(name), ref.plan);
}

}  // namespace graphdsl::detail
