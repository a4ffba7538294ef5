// src/errors.cpp — error types, node descriptions and the failure half of the checked CUDA path.
#include <fmt/format.h>

#include "counters.hpp"
#include "cuda_call.hpp"
#include "graphdsl/condition.hpp"
#include "graphdsl/debug.hpp"
#include "graphdsl/error.hpp"

namespace graphdsl {

const char* to_string(NodeKind kind) noexcept {
  switch (kind) {
    case NodeKind::kernel: return "kernel";
    case NodeKind::memset: return "memset";
    case NodeKind::memcpy: return "memcpy";
    case NodeKind::host: return "host";
    case NodeKind::child: return "child";
    case NodeKind::empty: return "empty";
    case NodeKind::event_record: return "event_record";
    case NodeKind::event_wait: return "event_wait";
    case NodeKind::conditional: return "conditional";
    case NodeKind::captured: return "captured";
    case NodeKind::mem_alloc: return "mem_alloc";
    case NodeKind::mem_free: return "mem_free";
  }
  return "unknown";
}

const char* to_string(ConditionalType type) noexcept {
  switch (type) {
    case ConditionalType::if_then: return "if";
    case ConditionalType::if_else: return "if_else";
    case ConditionalType::while_loop: return "while";
    case ConditionalType::switch_case: return "switch";
  }
  return "unknown";
}

const char* to_string(Compare op) noexcept {
  switch (op) {
    case Compare::equal: return "==";
    case Compare::not_equal: return "!=";
    case Compare::less: return "<";
    case Compare::less_equal: return "<=";
    case Compare::greater: return ">";
    case Compare::greater_equal: return ">=";
  }
  return "?";
}

std::string NodeInfo::ref() const {
  return name.empty() ? fmt::format("#{}", index) : fmt::format("'{}'", name);
}

std::string NodeInfo::describe() const {
  std::string s = name.empty() ? fmt::format("{} node #{}", to_string(kind), index)
                               : fmt::format("{} node '{}' (#{})", to_string(kind), name, index);
  if (!context.empty()) s += " " + context;
  return s;
}

UsageError::UsageError(const std::string& message) : Error("graphdsl: " + message) {}

namespace {
std::string cuda_message(cudaError_t code, const std::string& api, const std::optional<NodeInfo>& node,
                         const std::string& detail) {
  std::string msg = fmt::format("graphdsl: {} failed: {} ({})", api, cudaGetErrorName(code), cudaGetErrorString(code));
  if (node) msg += " at " + node->describe();
  if (!detail.empty()) msg += "; " + detail;
  return msg;
}
}  // namespace

CudaError::CudaError(cudaError_t code, std::string api, std::optional<NodeInfo> node, std::string detail)
    : Error(cuda_message(code, api, node, detail)), code_(code), api_(std::move(api)), node_(std::move(node)) {}

namespace detail {

Counters& counters() noexcept {
  static Counters c;
  return c;
}

void count_cuda_call() noexcept { counters().cuda_calls.fetch_add(1, std::memory_order_relaxed); }

void clear_last_error() noexcept { (void)cudaGetLastError(); }

void throw_cuda(cudaError_t rc, const char* api, std::optional<NodeInfo> node, std::string detail) {
  throw CudaError(rc, api, std::move(node), std::move(detail));
}

}  // namespace detail

namespace debug {

LiveCounts live_counts() noexcept {
  auto& c = detail::counters();
  return LiveCounts{c.plans.load(), c.native_graphs.load(), c.executables.load(), c.events.load(),
                    c.host_closures.load()};
}

std::uint64_t cuda_calls() noexcept { return detail::counters().cuda_calls.load(); }

}  // namespace debug
}  // namespace graphdsl
