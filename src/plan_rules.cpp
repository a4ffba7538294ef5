// src/plan_rules.cpp — the rules a plan must satisfy before it reaches CUDA.
#include <algorithm>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "plan_rules.hpp"

namespace graphdsl::detail {

namespace {

[[noreturn]] void fail(const GraphImpl& g, std::uint32_t i, const std::string& context, const std::string& rule) {
  throw UsageError(fmt::format("{}{}: {}", context, g.info(i).describe(), rule));
}

std::string dims(const dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

void check_kernel(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const KernelData& k = g.kernels[g.nodes[i].payload];
  if (k.func == nullptr) fail(g, i, ctx, "the kernel function is null");
  const Launch& l = k.launch;
  for (auto [what, d] : {std::pair<const char*, dim3>{"grid", l.grid}, {"block", l.block}}) {
    if (d.x == 0 || d.y == 0 || d.z == 0) {
      fail(g, i, ctx, fmt::format("{} {} has a zero dimension; every dimension must be at least 1", what, dims(d)));
    }
  }
  const unsigned long long threads = 1ull * l.block.x * l.block.y * l.block.z;
  if (threads > 1024) {
    fail(g, i, ctx, fmt::format("block {} has {} threads; CUDA allows at most 1024 threads per block",
                                dims(l.block), threads));
  }
}

void check_memset(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const cudaMemsetParams& p = g.memsets[g.nodes[i].payload];
  if (p.dst == nullptr) fail(g, i, ctx, "the destination pointer is null");
  if (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4) {
    fail(g, i, ctx, fmt::format("element size is {} bytes; CUDA memset nodes take 1, 2 or 4-byte elements", p.elementSize));
  }
  if (p.width == 0 || p.height == 0) {
    fail(g, i, ctx, fmt::format("sets {} x {} elements; a memset node must set at least one element", p.width, p.height));
  }
  if (p.height > 1 && p.pitch < p.width * p.elementSize) {
    fail(g, i, ctx, fmt::format("pitch {} bytes is smaller than one row ({} elements x {} bytes = {} bytes)", p.pitch,
                                p.width, p.elementSize, p.width * p.elementSize));
  }
}

void check_memcpy(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const cudaMemcpy3DParms& p = g.memcpys[g.nodes[i].payload];
  if (p.extent.width == 0 || p.extent.height == 0 || p.extent.depth == 0) {
    fail(g, i, ctx, fmt::format("copies {} x {} x {} bytes; a memcpy node must copy at least one byte", p.extent.width,
                                p.extent.height, p.extent.depth));
  }
  if (p.srcArray == nullptr && p.srcPtr.ptr == nullptr) fail(g, i, ctx, "the source pointer is null");
  if (p.dstArray == nullptr && p.dstPtr.ptr == nullptr) fail(g, i, ctx, "the destination pointer is null");
  if (p.kind < cudaMemcpyHostToHost || p.kind > cudaMemcpyDefault) {
    fail(g, i, ctx, fmt::format("cudaMemcpyKind {} is not a valid copy direction", static_cast<int>(p.kind)));
  }
  const bool rows = p.extent.height > 1 || p.extent.depth > 1;
  for (auto [what, ptr, array] : {std::tuple<const char*, cudaPitchedPtr, cudaArray_t>{"source", p.srcPtr, p.srcArray},
                                  {"destination", p.dstPtr, p.dstArray}}) {
    if (array == nullptr && rows && ptr.pitch < p.extent.width) {
      fail(g, i, ctx, fmt::format("{} pitch {} bytes is smaller than the row width {} bytes", what, ptr.pitch,
                                  p.extent.width));
    }
  }
}

}  // namespace

void check_node(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  switch (n.kind) {
    case NodeKind::kernel: check_kernel(g, i, ctx); break;
    case NodeKind::memset: check_memset(g, i, ctx); break;
    case NodeKind::memcpy: check_memcpy(g, i, ctx); break;
    case NodeKind::host:
      if (g.hosts[n.payload]->empty) {
        fail(g, i, ctx, "the callable is empty (a null function pointer or an empty std::function)");
      }
      break;
    case NodeKind::event_record:
    case NodeKind::event_wait:
      if (!g.events[n.payload]) fail(g, i, ctx, "the Event is empty (default-constructed); make one with Event::create()");
      break;
    case NodeKind::child:
      (void)check_plan(*g.children[n.payload],
                       fmt::format("{}in {} of graph '{}': ", ctx, g.info(i).describe(), g.name));
      break;
    case NodeKind::empty: break;
  }
}

namespace {

/// Finds one cycle among the nodes Kahn's algorithm could not order, and names it.
[[noreturn]] void report_cycle(const GraphImpl& g, const std::vector<std::uint32_t>& indegree,
                               const std::string& ctx) {
  // Among unordered nodes every one has an unordered predecessor: walk predecessors until a node
  // repeats; the repeated stretch is a cycle (listed here in run order).
  std::uint32_t start = 0;
  while (indegree[start] == 0) ++start;
  std::vector<std::uint32_t> walk;
  std::vector<int> seen_at(g.nodes.size(), -1);
  std::uint32_t cur = start;
  while (seen_at[cur] < 0) {
    seen_at[cur] = static_cast<int>(walk.size());
    walk.push_back(cur);
    const auto& preds = g.nodes[cur].preds;
    cur = *std::find_if(preds.begin(), preds.end(), [&](std::uint32_t p) { return indegree[p] != 0; });
  }
  std::vector<std::uint32_t> cycle(walk.begin() + seen_at[cur], walk.end());
  std::reverse(cycle.begin(), cycle.end());  // predecessors were followed: reverse into run order
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());  // start at the lowest index
  std::string text;
  for (std::uint32_t v : cycle) text += g.info(v).ref() + " -> ";
  text += g.info(cycle.front()).ref();
  throw UsageError(fmt::format("{}cycle: {}", ctx, text));
}

}  // namespace

std::vector<std::uint32_t> check_plan(const GraphImpl& g, const std::string& context) {
  const auto n = static_cast<std::uint32_t>(g.nodes.size());
  for (std::uint32_t i = 0; i < n; ++i) check_node(g, i, context);

  // Kahn's algorithm over a successor table; ready nodes are taken in FIFO order, seeded in index
  // order, so the order is a deterministic function of the plan.
  std::vector<std::uint32_t> indegree(n), first(n + 1, 0), succ(g.edge_count);
  for (std::uint32_t v = 0; v < n; ++v) {
    indegree[v] = static_cast<std::uint32_t>(g.nodes[v].preds.size());
    for (std::uint32_t p : g.nodes[v].preds) ++first[p + 1];
  }
  for (std::uint32_t v = 0; v < n; ++v) first[v + 1] += first[v];
  std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
  for (std::uint32_t v = 0; v < n; ++v) {
    for (std::uint32_t p : g.nodes[v].preds) succ[fill[p]++] = v;
  }
  std::vector<std::uint32_t> order;
  order.reserve(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    if (indegree[v] == 0) order.push_back(v);
  }
  for (std::size_t head = 0; head < order.size(); ++head) {
    const std::uint32_t u = order[head];
    for (std::uint32_t e = first[u]; e < first[u + 1]; ++e) {
      if (--indegree[succ[e]] == 0) order.push_back(succ[e]);
    }
  }
  if (order.size() != n) report_cycle(g, indegree, context);
  return order;
}

}  // namespace graphdsl::detail
