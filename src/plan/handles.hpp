// src/plan/handles.hpp — the plan table behind node handles: which plans are alive, without a count
// (defined in plan/token.cpp).
//
// A node handle (graphdsl/node.hpp) is {plan id, slot, index}, trivially copyable. Every plan
// (GraphImpl) takes a slot of a process-wide table when it is made and gives it back when it is
// destroyed; the slot's atomic `live` holds the id of the plan in it (0 once it is gone), and a
// handle is alive when its plan id is the slot's `live` (an acquire load). Plan ids are 64-bit and
// never reused, so a slot that another plan took over later never revives an old handle.
//
// The table is never freed and only grows (chunks of 256, 512, 1,024, ... slots that never move), so
// a slot number stays readable forever: a handle of any destroyed plan reads only the table, never
// the plan. A destroyed plan's name stays in its slot for the messages of its handles until the slot
// is reused; slots are reused first-in first-out, and only while more than `kept_names` are free,
// so the names of the last 1,024 destroyed plans (at least) are known.
//
// Thread safety: `live` and `plan` are atomics; a slot's other fields and the free list are
// guarded by the table's mutex, which only making and destroying plans and the messages of dead
// handles take. No CUDA call.
#pragma once

#include <cstdint>
#include <string>

#include "graphdsl/node.hpp"

namespace graphdsl::detail {

struct GraphImpl;

/// How many free slots keep their destroyed plan's name before a slot is reused.
inline constexpr std::uint32_t kept_names = 1024;

/// Takes a slot for plan `plan` of id `id` (not 0) and returns its number: handles {id, slot, i} are
/// alive from now on. @throws std::bad_alloc, or UsageError beyond 4.29 billion live plans.
std::uint32_t take_plan_slot(GraphImpl* plan, std::uint64_t id);

/// Gives slot `slot` of plan `id` back: its handles are dead from now on; `name` is kept for their
/// messages until the slot is reused.
void give_back_plan_slot(std::uint32_t slot, std::uint64_t id, std::string name) noexcept;

/// The plan of `ref` while it is alive; null for an empty handle or a destroyed plan. Clears the
/// plan's content stamp (GraphImpl::stamp): the caller may change it.
GraphImpl* live_plan(const NodeRef& ref) noexcept;

/// The index in `g`, an executable's recorded plan, of `n`, a handle of the plan it was compiled
/// from (GraphImpl::recorded_from): that plan may be gone; nodes are only ever appended, so its node
/// i is node i of `g` unless it was added after compiling. @throws UsageError naming the node then.
std::uint32_t origin_index(const GraphImpl& g, const Node& n);

/// The plan `ref` refers to (not empty), alive or destroyed, for messages: "'name' (plan id N)",
/// or "(plan id N; its name is no longer kept)" once the slot of a destroyed plan was reused.
std::string plan_ref_of(const NodeRef& ref);

}  // namespace graphdsl::detail
