// src/kinds/captured.cpp — the captured node kind (Graph::add_captured): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"
#include "plan/counters.hpp"

namespace graphdsl::detail {

StreamClosure::StreamClosure() noexcept { counters().host_closures.fetch_add(1); }
StreamClosure::~StreamClosure() { counters().host_closures.fetch_sub(1); }
void StreamClosure::check(const NodeInfo&) const {}
std::string StreamClosure::describe() const { return {}; }

}  // namespace graphdsl::detail

namespace graphdsl {

CapturedNode Graph::add_captured_node(detail::StreamClosure* fn, cudaStreamCaptureMode mode) {
  std::shared_ptr<detail::StreamClosure> owned(fn);
  auto& g = impl();
  Change change(*this);
  g.captures.push_back(detail::CaptureData{std::move(owned), mode});
  const CapturedNode n(g.push(NodeKind::captured, g.captures.size() - 1));
  change.commit();
  return n;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_captured(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  const cudaStreamCaptureMode m = g.captures[n.payload].mode;
  if (m != cudaStreamCaptureModeGlobal && m != cudaStreamCaptureModeThreadLocal && m != cudaStreamCaptureModeRelaxed) {
    fail(g, i, ctx, fmt::format("cudaStreamCaptureMode {} is not a capture mode", static_cast<int>(m)));
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::captured {
const RuleOps rules{&rule::check_captured, nullptr, true};
}  // namespace graphdsl::detail::kinds::captured

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// Unbounded unless its accesses are declared.
void captured_accesses(const NodeContext& c) {
  if (c.decl.empty()) {
    c.level.unbounded.push_back(UnboundedAccess{c.level.info(c.i),
                                                "captured work with no accesses() declaration: not checked"});
  }
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::captured {
const RaceOps races{&race::captured_accesses};
}  // namespace graphdsl::detail::kinds::captured

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::captured {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  return a.captures[pa].fn->same_work(*b.captures[pb].fn) && a.captures[pa].mode == b.captures[pb].mode;
}

}  // namespace compare_fns

using Stored = StoredParams<&GraphImpl::captures, &SavedParams::capture>;
const CompareOps compare{/*same_params=*/compare_fns::same_params,
                         /*compare_shape=*/nullptr,
                         /*fingerprint=*/nullptr,
                         /*after_edges=*/false,
                         /*save=*/Stored::save,
                         /*restore=*/Stored::restore,
                         /*nested=*/false,
                         /*needs_whole_update=*/&always_whole_update};
}  // namespace graphdsl::detail::kinds::captured

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

#include <fmt/format.h>

#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::captured {
namespace describing {
namespace {

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams&) {
  const detail::CaptureData& c = g.captures[g.nodes[i].payload];
  const cudaStreamCaptureMode m = c.mode;
  const std::string what = detail::escaped(c.fn->describe());
  return fmt::format("{}stream capture, mode {}", what.empty() ? "" : what + ", ",
                     m == cudaStreamCaptureModeGlobal        ? "global"
                     : m == cudaStreamCaptureModeThreadLocal ? "thread-local"
                                                             : "relaxed");
}

void dot_label(std::string& label, const detail::GraphImpl& g, std::uint32_t i) {
  const std::string what = g.captures[g.nodes[i].payload].fn->describe();
  if (!what.empty()) label += "\\n" + dot_escape(what);
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, &describing::dot_label, "component", nullptr, nullptr};

}  // namespace graphdsl::detail::kinds::captured

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <string>
#include <vector>

#include "graphdsl/detail/config.hpp"
#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"

namespace graphdsl::detail::kinds::captured {
namespace building {
namespace {

/// Captures captured node i of g into `graph` after `deps`; returns the capture's last nodes.
/// On a CUDA failure sets `api`, `rc` and `hint`; if the user's function throws, the capture is
/// ended (the caller destroys the half-built graph) and the exception propagates.
std::vector<cudaGraphNode_t> capture(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
                                     const std::vector<cudaGraphNode_t>& deps, const char*& api, cudaError_t& rc,
                                     std::string& hint) {
  const CaptureData& c = g.captures[g.nodes[i].payload];
  c.fn->check(builder.info(g, i));
  const cudaStream_t s = builder.capture_stream();
  api = "cudaStreamBeginCaptureToGraph";
  rc = cuda_try(cudaStreamBeginCaptureToGraph, s, graph, deps.data(), static_cast<const cudaGraphEdgeData*>(nullptr),
                deps.size(), c.mode);
  if (rc != cudaSuccess) return {};
  // Capturing into `graph`: `ended` is `graph`. A capture that fails at its end (invalidated or
  // unjoined) destroys `graph` with it: its owner must not destroy it again (graph_destroyed_by_cuda).
  auto end_capture = [&] {
    cudaGraph_t ended = nullptr;
    const cudaError_t end = cuda_try(cudaStreamEndCapture, s, &ended);
    if (end != cudaSuccess) graph_destroyed_by_cuda(graph);
    return end;
  };
  try {
    c.fn->call(s);
  } catch (...) {
    (void)end_capture();
    throw;
  }
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaGraphNode_t* last = nullptr;
  std::size_t count = 0;
  api = "cudaStreamGetCaptureInfo";
#if GRAPHDSL_CUDA_13
  rc = cuda_try(cudaStreamGetCaptureInfo, s, &status, static_cast<unsigned long long*>(nullptr),
                static_cast<cudaGraph_t*>(nullptr), &last, static_cast<const cudaGraphEdgeData**>(nullptr), &count);
#else
  rc = cuda_try(cudaStreamGetCaptureInfo, s, &status, static_cast<unsigned long long*>(nullptr),
                static_cast<cudaGraph_t*>(nullptr), &last, &count);
#endif
  std::vector<cudaGraphNode_t> exits(last, last + (rc == cudaSuccess ? count : 0));
  const cudaError_t ended = end_capture();
  if (ended != cudaSuccess || rc == cudaSuccess) {  // report the end of the capture unless only the query failed
    api = "cudaStreamEndCapture";
    rc = ended;
  }
  if (rc == cudaErrorStreamCaptureInvalidated || status == cudaStreamCaptureStatusInvalidated) {
    rc = rc == cudaSuccess ? cudaErrorStreamCaptureInvalidated : rc;
    hint =
        "the capture was invalidated inside the captured function: it made a call that is not allowed while "
        "capturing (cudaMalloc or another unsafe call in thread-local or global mode, a synchronization, or work "
        "on the legacy default stream); use cudaMallocAsync, or cudaStreamCaptureModeRelaxed for allocations";
  } else if (rc == cudaErrorStreamCaptureUnjoined) {
    hint = "the captured function forked work to another stream and did not join it back into the capture stream";
  }
  return exits;
}

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  AddedNode out;
  if (builder.body_depth_ > 0 || g.captures[g.nodes[i].payload].fn->own_graph()) {
    // Inside a conditional body the capture goes into a graph of its own, embedded as a child
    // node: a capture invalidated while capturing straight into a body crashes the driver
    // (seen on CUDA 13.0 / driver 580: cudaMalloc or a synchronization in the captured function).
    // Closures that ask for it (own_graph) are captured the same way everywhere.
    NativeGraph inner = create_native_graph();
    (void)capture(builder, g, i, inner.get(), {}, out.api, out.rc, out.hint);
    if (out.rc != cudaSuccess) return out;
    out.api = "cudaGraphAddChildGraphNode";
    out.rc = cuda_try(cudaGraphAddChildGraphNode, &out.node, graph, deps.data(), deps.size(),
                      inner.get());  // clones `inner`
    return out;
  }
  const std::vector<cudaGraphNode_t> exits = capture(builder, g, i, graph, deps, out.api, out.rc, out.hint);
  if (out.rc != cudaSuccess) return out;
  out.api = "cudaGraphAddEmptyNode";  // the node successors wait for: after everything captured
  out.rc = cuda_try(cudaGraphAddEmptyNode, &out.node, graph, exits.data(), exits.size());
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, /*may_keep=*/false, /*check_devices=*/nullptr,
                     /*device_launch=*/false, /*foreign_nodes=*/true};

}  // namespace graphdsl::detail::kinds::captured

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include <optional>

#include "exec/patch.hpp"

namespace graphdsl::detail::kinds::captured {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// The captured nodes are not mapped: update() goes whole-graph.
Applied apply(ExecImpl&, std::uint32_t) { return {cudaErrorNotSupported, "a per-node update of a captured node"}; }

/// Only cudaGraphExecUpdate patches it.
std::optional<UpdateResult> update_needs(const GraphImpl&, const GraphImpl&, std::uint32_t, UpdateNeeds& needs) {
  needs.nested_change = true;
  return std::nullopt;
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, patch_fns::update_needs, nullptr};
}  // namespace graphdsl::detail::kinds::captured

// ==== end patch ====
