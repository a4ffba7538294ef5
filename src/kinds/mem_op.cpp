// src/kinds/mem_op.cpp — the mem_op node kind (Graph::add_mem_ops: CUDA's batch memory operations,
// writes, waits and barriers): what graphdsl does for one such node, concern by concern, each
// section filling the kind's entry of one table (src/kinds/table.cpp). The first kind added
// through the table: this file, its line in graphdsl/detail/node_kinds.def and its declarations in
// graphdsl/graph.hpp are all of it.
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan/names.hpp"

namespace graphdsl::detail::kinds::mem_op {

/// The most operations one node runs (cuStreamBatchMemOp: "must be less than 256").
constexpr std::size_t max_ops = 255;

// The record of a mem_op node in GraphImpl::records, at the node's payload: the operation count (a
// std::uint32_t), then the MemOps. Every section reads it through these.

/// The number of operations of the node whose record is at `payload`.
inline std::size_t count_of(const GraphImpl& g, std::uint32_t payload) noexcept {
  return get_record<std::uint32_t>(g, payload);
}

/// Operation k of the node whose record is at `payload`.
inline MemOp op_of(const GraphImpl& g, std::uint32_t payload, std::size_t k) noexcept {
  return get_record<MemOp>(g, payload + sizeof(std::uint32_t), k);
}

constexpr const char* type_names[] = {"write32", "write64", "wait32", "wait64", "barrier"};
constexpr const char* until_names[] = {"at_least", "equal", "any_of", "nor"};

/// "write32", ...; null for a value that is no MemOp::Type.
inline const char* type_name(MemOp::Type t) noexcept { return name_of(t, type_names, nullptr); }
/// "at_least", ...; null for a value that is no MemOp::Until.
inline const char* until_name(MemOp::Until u) noexcept { return name_of(u, until_names, nullptr); }

/// Whether the operation waits, and whether it is 64 bits wide.
inline bool waits(const MemOp& op) noexcept { return op.type == MemOp::Type::wait32 || op.type == MemOp::Type::wait64; }
inline bool wide(const MemOp& op) noexcept { return op.type == MemOp::Type::write64 || op.type == MemOp::Type::wait64; }

}  // namespace graphdsl::detail::kinds::mem_op

namespace graphdsl {

MemOpNode Graph::add_mem_ops(const std::vector<MemOp>& ops) {
  using detail::kinds::mem_op::max_ops;
  if (ops.empty() || ops.size() > max_ops) {
    throw UsageError(fmt::format("add_mem_ops: {} operations; a memory-operations node runs 1 to {}", ops.size(),
                                 max_ops));
  }
  detail::GraphImpl& g = impl();
  Change change(*this);  // a refused call changes nothing
  const auto count = static_cast<std::uint32_t>(ops.size());
  const std::uint32_t at = detail::put_records(g, &count, 1);
  detail::put_records(g, ops.data(), ops.size());
  const MemOpNode n(g.push(NodeKind::mem_op, at));
  change.commit();
  return n;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include <fmt/format.h>

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

/// Operation k of mem_op node i: its type, address, comparison, scope and value (no CUDA call).
void check_operation(const GraphImpl& g, std::uint32_t i, const std::string& ctx, std::size_t k, const MemOp& op) {
  using kinds::mem_op::type_name;
  if (type_name(op.type) == nullptr) {
    fail(g, i, ctx, fmt::format("operation {}: MemOp::Type {} is not an operation", k, static_cast<int>(op.type)));
  }
  const std::string what = fmt::format("operation {} ({})", k, type_name(op.type));
  if (op.type == MemOp::Type::barrier) {
    if (op.scope != MemOp::Scope::gpu && op.scope != MemOp::Scope::system) {
      fail(g, i, ctx, fmt::format("{}: MemOp::Scope {} is not a scope", what, static_cast<int>(op.scope)));
    }
    return;
  }
  if (op.address == 0) fail(g, i, ctx, what + " has a null address");
  const unsigned align = kinds::mem_op::wide(op) ? 8 : 4;
  if (op.address % align != 0) fail(g, i, ctx, fmt::format("{} needs an {}-byte aligned address", what, align));
  if (!kinds::mem_op::wide(op) && op.value > 0xffffffffull) {
    fail(g, i, ctx, fmt::format("{}: the value {} does not fit in 32 bits", what, op.value));
  }
  if (kinds::mem_op::waits(op) && kinds::mem_op::until_name(op.until) == nullptr) {
    fail(g, i, ctx, fmt::format("{}: MemOp::Until {} is not a comparison", what, static_cast<int>(op.until)));
  }
}

void check_mem_op(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const std::uint32_t at = g.nodes[i].payload;
  const std::size_t count = kinds::mem_op::count_of(g, at);
  for (std::size_t k = 0; k < count; ++k) check_operation(g, i, ctx, k, kinds::mem_op::op_of(g, at, k));
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::mem_op {
/// Not in a conditional body: CUDA adds the node there but fails the compile with
/// cudaErrorInvalidValue (measured, driver 580).
const RuleOps rules{&rule::check_mem_op, nullptr, false};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// A write writes its 4 or 8 bytes, a wait reads them; a barrier touches nothing.
void mem_op_accesses(const NodeContext& c) {
  const std::uint32_t at = c.g.nodes[c.i].payload;
  const std::size_t count = kinds::mem_op::count_of(c.g, at);
  for (std::size_t k = 0; k < count; ++k) {
    const MemOp op = kinds::mem_op::op_of(c.g, at, k);
    if (op.type == MemOp::Type::barrier || op.address == 0) continue;
    Access a = c.access();
    a.mode = kinds::mem_op::waits(op) ? AccessMode::read : AccessMode::write;
    a.origin = Origin::operation;
    a.param = static_cast<std::int32_t>(k);
    a.r = make_region(Space::address, 0, op.address, kinds::mem_op::wide(op) ? 8 : 4, 0, 1);
    c.level.accesses.push_back(a);
  }
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::mem_op {
const RaceOps races{&race::mem_op_accesses};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::mem_op {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

/// The record's bytes: the count and the operations.
std::size_t record_bytes(const GraphImpl& g, std::uint32_t payload) {
  return sizeof(std::uint32_t) + count_of(g, payload) * sizeof(MemOp);
}

/// Field by field: a MemOp has padding bytes, which a byte comparison would read.
bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  const std::size_t n = count_of(a, pa);
  if (n != count_of(b, pb)) return false;
  for (std::size_t k = 0; k < n; ++k) {
    const MemOp x = op_of(a, pa, k), y = op_of(b, pb, k);
    if (x.type != y.type || x.until != y.until || x.scope != y.scope || x.address != y.address || x.value != y.value) {
      return false;
    }
  }
  return true;
}

/// The number and the types of the operations: CUDA patches addresses, values and comparisons only.
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const std::uint32_t pa = a.nodes[i].payload, pb = b.nodes[i].payload;
  const std::size_t na = count_of(a, pa), nb = count_of(b, pb);
  std::string what;
  if (na != nb) {
    what = fmt::format("{} operations in the executable, {} in the template", na, nb);
  } else {
    for (std::size_t k = 0; k < na && what.empty(); ++k) {
      const MemOp x = op_of(a, pa, k), y = op_of(b, pb, k);
      if (x.type != y.type) {
        what = fmt::format("operation {} is {} in the executable but {} in the template", k, type_name(x.type),
                           type_name(y.type));
      } else if (x.type == MemOp::Type::barrier && x.scope != y.scope) {
        what = fmt::format("operation {} is a barrier of another scope in the template", k);
      }
    }
  }
  if (what.empty()) return std::nullopt;
  return refusal(UpdateStatus::parameters_changed, b.info(i),
                 fmt::format("{}{}: {}; CUDA cannot change the number or the types of a node's memory operations in "
                             "place",
                             ctx, b.info(i).describe(), what));
}

/// What compare_shape compares: the count, the types and the barriers' scopes.
void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& /*memo*/) {
  const std::uint32_t payload = g.nodes[i].payload;
  const std::size_t count = count_of(g, payload);
  f.add(count);
  for (std::size_t k = 0; k < count; ++k) {
    const MemOp op = op_of(g, payload, k);
    f.add(op.type);
    if (op.type == MemOp::Type::barrier) f.add(op.scope);
  }
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) {
  const auto* p = g.records.data() + payload;
  s.record.assign(p, p + record_bytes(g, payload));
}

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) {  // same shape: same size
  std::copy(s.record.begin(), s.record.end(), g.records.begin() + payload);
}

}  // namespace compare_fns

const CompareOps compare{/*same_params=*/compare_fns::same_params,
                         /*compare_shape=*/compare_fns::compare_shape,
                         /*fingerprint=*/compare_fns::fingerprint,
                         /*after_edges=*/false,
                         /*save=*/compare_fns::save,
                         /*restore=*/compare_fns::restore,
                         /*nested=*/false};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

#include <fmt/format.h>

#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::mem_op {
namespace describing {
namespace {

/// "3 operations: write32 41, write64 4294967299, barrier gpu"; never the addresses (dumps of two
/// runs compare equal).
std::string summary(const GraphImpl& g, std::uint32_t i, const NodeParams& /*params*/) {
  const std::uint32_t at = g.nodes[i].payload;
  const std::size_t count = count_of(g, at);
  std::string s = fmt::format("{} operation{}:", count, count == 1 ? "" : "s");
  for (std::size_t k = 0; k < count; ++k) {
    const MemOp op = op_of(g, at, k);
    const char* type = type_name(op.type);
    s += k == 0 ? " " : ", ";
    if (type == nullptr) {
      s += fmt::format("type {}", static_cast<int>(op.type));
    } else if (op.type == MemOp::Type::barrier) {
      s += fmt::format("barrier {}", op.scope == MemOp::Scope::system ? "system" : "gpu");
    } else if (waits(op)) {
      const char* until = until_name(op.until);
      s += fmt::format("{} until {} {}", type, until != nullptr ? until : "?", op.value);
    } else {
      s += fmt::format("{} {}", type, op.value);
    }
  }
  return s;
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, nullptr, "septagon", nullptr, nullptr};

}  // namespace graphdsl::detail::kinds::mem_op

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <cuda.h>

#include <vector>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "native/builder.hpp"
#include "native/cuda_call.hpp"

namespace graphdsl::detail::kinds::mem_op {
namespace {

/// The driver's form of operation `op`.
CUstreamBatchMemOpParams driver_op(const MemOp& op) {
  constexpr unsigned until_flags[] = {CU_STREAM_WAIT_VALUE_GEQ, CU_STREAM_WAIT_VALUE_EQ, CU_STREAM_WAIT_VALUE_AND,
                                      CU_STREAM_WAIT_VALUE_NOR};
  CUstreamBatchMemOpParams d{};
  if (op.type == MemOp::Type::barrier) {
    d.memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
    d.memoryBarrier.flags = op.scope == MemOp::Scope::system ? CU_STREAM_MEMORY_BARRIER_TYPE_SYS
                                                             : CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
  } else if (waits(op)) {
    d.waitValue.operation = wide(op) ? CU_STREAM_MEM_OP_WAIT_VALUE_64 : CU_STREAM_MEM_OP_WAIT_VALUE_32;
    d.waitValue.address = static_cast<CUdeviceptr>(op.address);
    if (wide(op))
      d.waitValue.value64 = op.value;
    else
      d.waitValue.value = static_cast<cuuint32_t>(op.value);
    d.waitValue.flags = until_flags[static_cast<std::size_t>(op.until)];
  } else {
    d.writeValue.operation = wide(op) ? CU_STREAM_MEM_OP_WRITE_VALUE_64 : CU_STREAM_MEM_OP_WRITE_VALUE_32;
    d.writeValue.address = static_cast<CUdeviceptr>(op.address);
    if (wide(op))
      d.writeValue.value64 = op.value;
    else
      d.writeValue.value = static_cast<cuuint32_t>(op.value);
  }
  return d;
}

/// The node's operations in the driver's form, and the current context (the node's device is
/// current): what cuGraphAddBatchMemOpNode and cuGraphExecBatchMemOpNodeSetParams take.
struct DriverOps {
  std::vector<CUstreamBatchMemOpParams> ops;
  CUDA_BATCH_MEM_OP_NODE_PARAMS params{};
  const char* api = "cuCtxGetCurrent";
  cudaError_t rc = cudaSuccess;

  DriverOps(const GraphImpl& g, std::uint32_t payload) {
    using GetContext = CUresult (*)(CUcontext*);
    static const auto get_context = reinterpret_cast<GetContext>(driver_entry("cuCtxGetCurrent", 12000));
    const std::size_t count = count_of(g, payload);
    ops.reserve(count);
    for (std::size_t k = 0; k < count; ++k) ops.push_back(driver_op(op_of(g, payload, k)));
    rc = driver_try(get_context, &params.ctx);
    params.count = static_cast<unsigned>(count);
    params.paramArray = ops.data();
  }
};

/// What needs the device: an address in pageable host memory (the driver accepts it, the device
/// cannot reach it) and a `nor` wait on a device without it.
void check_on_device(const GraphImpl& g, std::uint32_t i, const std::string& where) {
  NodeInfo node = g.info(i);
  node.context = where;
  const std::uint32_t at = g.nodes[i].payload;
  for (std::size_t k = 0, n = count_of(g, at); k < n; ++k) {
    const MemOp op = op_of(g, at, k);
    if (op.type == MemOp::Type::barrier) continue;
    cudaPointerAttributes attributes{};
    const void* p = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(op.address));
    if (cuda_try(cudaPointerGetAttributes, &attributes, p) == cudaSuccess &&
        attributes.type == cudaMemoryTypeUnregistered) {
      throw UsageError(
          fmt::format("{}: operation {} ({}): the address is pageable host memory, which the device cannot "
                      "reach; use device memory or host memory mapped into the device (cudaHostAlloc "
                      "with cudaHostAllocMapped, cudaHostRegister)",
                      node.describe(), k, type_name(op.type)));
    }
    if (waits(op) && op.until == MemOp::Until::nor) {
      int device = 0, nor = 0;
      GRAPHDSL_CHECK(cudaGetDevice, &device);
      // CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR (123): the runtime passes it through.
      const auto attribute = static_cast<cudaDeviceAttr>(CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR);
      if (cuda_try(cudaDeviceGetAttribute, &nor, attribute, device) != cudaSuccess || nor == 0) {
        throw UsageError(
            fmt::format("{}: operation {} ({}): device {} cannot wait with MemOp::Until::nor "
                        "(CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR is not set)",
                        node.describe(), k, type_name(op.type), device));
      }
    }
  }
}

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  using AddNode = CUresult (*)(CUgraphNode*, CUgraph, const CUgraphNode*, std::size_t,
                               const CUDA_BATCH_MEM_OP_NODE_PARAMS*);
  static const auto add_node = reinterpret_cast<AddNode>(driver_entry("cuGraphAddBatchMemOpNode", 12000));
  check_on_device(g, i, builder.where_);
  DriverOps d(g, g.nodes[i].payload);
  AddedNode out;
  out.api = d.api;
  out.rc = d.rc;
  if (out.rc != cudaSuccess) return out;
  out.api = "cuGraphAddBatchMemOpNode";
  out.rc = driver_try(add_node, &out.node, graph, deps.data(), deps.size(), &d.params);
  if (out.rc == cudaErrorNotSupported) out.hint = "this driver has no batch memory operations in graphs";
  return out;
}

}  // namespace

const BuildOps build{&add, false};

}  // namespace graphdsl::detail::kinds::mem_op

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include "exec/patch.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"

namespace graphdsl::detail::kinds::mem_op {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// cuGraphExecBatchMemOpNodeSetParams: new addresses, values and comparisons (same count and
/// types: compare_shape refuses others).
Applied apply(ExecImpl& x, std::uint32_t i) {
  using SetParams = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS*);
  static const auto set_params = reinterpret_cast<SetParams>(driver_entry("cuGraphExecBatchMemOpNodeSetParams", 12000));
  const GraphImpl& g = recorded_plan(x);
  DriverOps d(g, g.nodes[i].payload);
  if (d.rc != cudaSuccess) return {d.rc, d.api};
  return {driver_try(set_params, x.exec.get(), x.native.nodes[i], &d.params), "cuGraphExecBatchMemOpNodeSetParams"};
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end patch ====
