// src/kinds/mem_alloc.cpp — the mem_alloc node kind (Graph::add_mem_alloc): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <atomic>
#include <cstdint>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan/graph_build.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl {

namespace detail {
namespace {

/// Refuses a graph allocation of managed or host memory (MemAllocOptions::kind), naming the node it
/// would have become: CUDA graph allocations are device memory only (AllocationKind).
void check_allocation_kind(const GraphImpl& g, AllocationKind kind) {
  const std::size_t k = checked_enum(kind, AllocationKind::host, "add_mem_alloc", "AllocationKind",
                                     "an allocation kind (device, managed or host)");
  if (kind == AllocationKind::device) return;
  static constexpr const char* names[] = {"device", "managed", "pinned host"};
  throw UsageError(fmt::format(
      "add_mem_alloc: mem_alloc node #{} of graph {} asks for {} memory (MemAllocOptions::kind); CUDA graph "
      "allocations are device memory only: cudaGraphAddMemAllocNode returns cudaErrorNotSupported for managed "
      "memory at no location or on the host and for pinned host memory, and for managed memory on a device it "
      "returns plain device memory (driver 580, CUDA 13.0); allocate it outside the graph (cudaMallocManaged, "
      "cudaMallocHost) and pass the pointer",
      g.nodes.size(), quoted(g.name), names[k]));
}

}  // namespace
}  // namespace detail

std::pair<MemAllocNode, std::uint64_t> Graph::add_mem_alloc_node(std::size_t bytes, const MemAllocOptions& options) {
  static std::atomic<std::uint64_t> next{1};
  auto& g = impl();
  // Checked before anything is added: -2 is no device, and neither "the current one" (-1).
  const std::int16_t device = detail::device_number(options.device, "add_mem_alloc: MemAllocOptions::device");
  detail::check_allocation_kind(g, options.kind);
  const std::uint64_t uid = next.fetch_add(1, std::memory_order_relaxed);
  Change change(*this);
  g.allocs.push_back(detail::AllocData{uid, bytes, options.device, options.peer_access,
                                       static_cast<std::uint32_t>(g.nodes.size())});
  const detail::NodeRef ref = g.push(NodeKind::mem_alloc, g.allocs.size() - 1);
  if (device >= 0) g.nodes[ref.index].device = device;
  change.commit();
  return {MemAllocNode(ref), uid};
}

/// Records that memset or memcpy `node` uses `n` bytes of buffer `uid` from byte `at`; the
/// offset goes into the record's pointer field (compiling adds the allocation's address to it), so
/// that it is a parameter of the node, compared and patched as the record is.
void Graph::use_buffer(const Node& node, detail::BufferField field, std::uint64_t uid, std::size_t at, std::size_t n) {
  auto& g = impl();
  const detail::ConditionRef r = g.resolve_buffer(uid);  // also a buffer of the plan a body is built in
  const bool found = r.levels != detail::ConditionRef::unresolved;
  g.buffer_uses.push_back(detail::BufferUse{node.index(), field, found ? r.index : detail::ConditionRef::unresolved,
                                            found ? r.levels : 0, uid, n});
  void* const offset = reinterpret_cast<void*>(static_cast<std::uintptr_t>(at));
  const std::uint32_t payload = g.nodes[node.index()].payload;
  if (field == detail::BufferField::memset_dst) {
    g.memsets[payload].dst = offset;
  } else {
    cudaMemcpy3DParms& p = g.memcpys[payload];
    (field == detail::BufferField::memcpy_dst ? p.dstPtr : p.srcPtr).ptr = offset;
  }
}

AllocationParams Graph::allocation_of(const MemAllocNode& node) const {
  const auto& g = impl();
  const detail::AllocData& a = detail::alloc_of(g, detail::own_node(g, node, NodeKind::mem_alloc, "allocation_of"));
  AllocationParams out;
  out.bytes = a.bytes;
  out.options.device = a.device;
  out.options.peer_access = a.peers;
  out.buffer = a.uid;
  return out;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include <algorithm>
#include <string>

#include "plan/placement.hpp"
#include "plan/rule_kit.hpp"
#include "plan/walk.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_mem_alloc(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  if (g.allocs[n.payload].bytes == 0) fail(g, i, ctx, "allocates 0 bytes; a graph allocation needs at least one");
}

/// An allocation's placement and the device its MemAllocOptions name agree.
void check_mem_alloc_placement(const GraphImpl& g, std::uint32_t i, const std::string& context) {
  const NodeData& n = g.nodes[i];
  const AllocData& a = g.allocs[n.payload];
  if (a.device >= 0 && n.device >= 0 && a.device != n.device) {
    refuse_placement(g, i, context,
                     fmt::format("is placed on device {} but its MemAllocOptions name device {}; give one device",
                                 n.device, a.device));
  }
}

/// An unplaced allocation is created on the device its MemAllocOptions name, if any.
int mem_alloc_device(const GraphImpl& g, std::uint32_t i, int home) {
  const AllocData& a = g.allocs[g.nodes[i].payload];
  return a.device >= 0 ? a.device : home;
}

/// Whether a node of plan `p` uses graph buffer `uid`: a kernel argument, a memset's or memcpy's end.
bool plan_uses_buffer(const GraphImpl& p, std::uint64_t uid) {
  for (std::uint32_t k = 0; k < p.nodes.size(); ++k) {
    if (kernel_uses_buffer(p, k, uid)) return true;
  }
  return std::any_of(p.buffer_uses.begin(), p.buffer_uses.end(), [&](const BufferUse& u) { return u.uid == uid; });
}

/// Refuses to remove mem_alloc node `a` of g while a node uses its buffer (or frees it): the node
/// would refer to memory no node allocates. Reads the whole plan and the plans nested in it.
void check_unused_buffer(const GraphImpl& g, std::uint32_t a) {
  const std::uint64_t uid = node_record(g.allocs, a)->uid;
  auto refuse = [&](const std::string& user) {
    throw UsageError(
        fmt::format("remove_node: {} allocates the buffer that {} uses; remove that use first (change "
                    "or remove the node)",
                    g.info(a).describe(), user));
  };
  for (const BufferUse& u : g.buffer_uses) {
    if (u.uid == uid) refuse(g.info(u.node).describe());
  }
  for (std::uint32_t k = 0; k < g.nodes.size(); ++k) {
    if (kernel_uses_buffer(g, k, uid) || frees_allocation(g, k, a)) refuse(g.info(k).describe());
    for (const auto& inner : nested_slots(g, k)) {
      if (any_nested_plan(*inner, [&](const GraphImpl& p) { return plan_uses_buffer(p, uid); })) {
        refuse(fmt::format("a node in the plan nested in {}", g.info(k).describe()));
      }
    }
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::mem_alloc {
const RuleOps rules{/*check=*/&rule::check_mem_alloc,
                    /*not_placeable=*/nullptr,
                    /*in_body=*/false,
                    /*check_scoped=*/nullptr,
                    /*kinded_edges=*/false,
                    /*check_replacement=*/nullptr,
                    /*nested_in_plan=*/false,
                    /*inert=*/false,
                    /*recount_on_remove=*/true,
                    /*check_removal=*/&rule::check_unused_buffer,
                    /*check_placement=*/&rule::check_mem_alloc_placement,
                    /*unplaced_device=*/&rule::mem_alloc_device};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// An allocation writes all of its buffer.
void mem_alloc_accesses(const NodeContext& c) {
  const GraphImpl& g = c.g;
  const std::uint32_t i = c.i;
  const NodeData& n = g.nodes[i];
  Level& level = c.level;
  Access a = c.access();
  a.origin = Origin::alloc;
  a.r = whole(Space::buffer, g.allocs[n.payload].uid);
  level.accesses.push_back(a);
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::mem_alloc {
const RaceOps races{&race::mem_alloc_accesses};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::mem_alloc {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl&, std::uint32_t, const GraphImpl&, std::uint32_t) {
  return true;  // compared as structure
}

/// The same size, device and peers: CUDA cannot change a graph allocation.
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const AllocData& ax = a.allocs[a.nodes[i].payload];
  const AllocData& ay = b.allocs[b.nodes[i].payload];
  if (ax.bytes != ay.bytes || ax.device != ay.device || ax.peers != ay.peers) {
    return refusal(UpdateStatus::not_supported, b.info(i),
                   fmt::format("{}{} allocates {} bytes in the executable but {} in the template (or on another "
                               "device); CUDA cannot change a graph allocation",
                               ctx, b.info(i).describe(), ax.bytes, ay.bytes));
  }
  return std::nullopt;
}

void save(SavedParams&, const GraphImpl&, std::uint32_t, bool) {}
void restore(const SavedParams&, GraphImpl&, std::uint32_t) {}

void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& /*memo*/) {
  const std::uint32_t payload = g.nodes[i].payload;
  const auto& a = g.allocs[payload];
  f.add(a.bytes);
  f.add(a.device);
  f.add(a.peers.size());
  f.add(a.peers.data(), a.peers.size() * sizeof(int));
}

}  // namespace compare_fns

const CompareOps compare{/*same_params=*/compare_fns::same_params,
                         /*compare_shape=*/compare_fns::compare_shape,
                         /*fingerprint=*/compare_fns::fingerprint,
                         /*after_edges=*/false,
                         /*save=*/compare_fns::save,
                         /*restore=*/compare_fns::restore,
                         /*nested=*/false};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

#include <fmt/format.h>

#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::mem_alloc {
namespace describing {
namespace {

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams&) {
  const auto& a = g.allocs[g.nodes[i].payload];
  std::string s = fmt::format("{} bytes on {}", a.bytes,
                              a.device < 0 ? std::string("the current device") : fmt::format("device {}", a.device));
  for (int p : a.peers) s += fmt::format(", peer {}", p);
  return s;
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, nullptr, "cylinder", nullptr, nullptr};

}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <vector>

#include <fmt/format.h>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"

namespace graphdsl::detail::kinds::mem_alloc {
namespace building {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  const AllocData& a = g.allocs[g.nodes[i].payload];
  int device = a.device;
  if (device < 0) GRAPHDSL_CHECK(cudaGetDevice, &device);
  cudaMemAllocNodeParams p{};
  p.poolProps.allocType = cudaMemAllocationTypePinned;
  p.poolProps.location.type = cudaMemLocationTypeDevice;
  p.poolProps.location.id = device;
  std::vector<cudaMemAccessDesc> access(a.peers.size());
  for (std::size_t k = 0; k < a.peers.size(); ++k) {
    access[k].location.type = cudaMemLocationTypeDevice;
    access[k].location.id = a.peers[k];
    access[k].flags = cudaMemAccessFlagsProtReadWrite;
  }
  p.accessDescs = access.empty() ? nullptr : access.data();
  p.accessDescCount = access.size();
  p.bytesize = a.bytes;
  AddedNode out;
  out.api = "cudaGraphAddMemAllocNode";
  out.rc = cuda_try(cudaGraphAddMemAllocNode, &out.node, graph, deps.data(), deps.size(), &p);
  if (out.rc == cudaSuccess) builder.dptrs_[i] = p.dptr;
  return out;
}

/// Every peer given access exists and can access the allocation's device.
void check_devices(const GraphImpl& g, std::uint32_t i, int count, int current) {
  const AllocData& a = g.allocs[g.nodes[i].payload];
  const int home = node_device(g, i, current);
  for (int peer : a.peers) {
    if (peer < 0 || peer >= count) {
      refuse_placement(g, i, {}, fmt::format("gives peer access to device {}, but {}", peer, devices_seen(count)));
    }
    if (peer != home && !can_access_peer(peer, home)) {
      refuse_placement(g, i, {},
                       fmt::format("gives device {} access to memory of device {}, but peer access from device {} "
                                   "to device {} is not available (cudaDeviceCanAccessPeer)",
                                   peer, home, peer, home));
    }
  }
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, /*may_keep=*/false, &building::check_devices};

}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include "exec/patch.hpp"

namespace graphdsl::detail::kinds::mem_alloc {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// Nothing to patch.
Applied apply(ExecImpl&, std::uint32_t) { return {}; }

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end patch ====
