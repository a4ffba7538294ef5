// src/nccl/collectives.cpp — the collective nodes (a captured node whose closure issues one NCCL call
// per local rank over a Clique) and nccl::synchronize, the bounded wait for the collectives of a
// launched executable.
#include <algorithm>
#include <cstddef>
#include <future>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <nccl.h>

#include "graphdsl/nccl.hpp"
#include "native/cuda_call.hpp"
#include "nccl/nccl_internal.hpp"
#include "plan/walk.hpp"

namespace graphdsl::nccl {

using detail::api;
using detail::Backoff;
using detail::Clock;
using detail::nccl_text;

namespace {

constexpr ncclDataType_t nccl_types[] = {ncclInt8,  ncclUint8,  ncclInt32,   ncclUint32,
                                         ncclInt64, ncclUint64, ncclFloat32, ncclFloat64};
static_assert(std::size(nccl_types) == static_cast<std::size_t>(DataType::float64) + 1);

constexpr ncclRedOp_t nccl_ops[] = {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg};
static_assert(std::size(nccl_ops) == static_cast<std::size_t>(ReduceOp::avg) + 1);

/// NCCL's value of a DataType (checked by add_collective: checked_enum).
ncclDataType_t native(DataType t) { return nccl_types[static_cast<std::size_t>(t)]; }

/// NCCL's value of a ReduceOp (checked by add_collective: checked_enum).
ncclRedOp_t native(ReduceOp op) { return nccl_ops[static_cast<std::size_t>(op)]; }

std::size_t element_bytes(DataType t) noexcept {
  return t == DataType::int8 || t == DataType::uint8                               ? 1
         : t == DataType::int64 || t == DataType::uint64 || t == DataType::float64 ? 8
                                                                                   : 4;
}

/// The captured function of a collective node.
class CollectiveClosure final : public graphdsl::detail::StreamClosure {
 public:
  CollectiveClosure(std::shared_ptr<detail::Clique> clique, Collective what, std::vector<RawBuffers> ranks,
                    std::size_t count, DataType type, ReduceOp op, int root)
      : clique_(std::move(clique)),
        what_(what),
        ranks_(std::move(ranks)),
        count_(count),
        type_(type),
        op_(op),
        root_(root) {}

  std::string describe() const override {
    std::string s = fmt::format("nccl {}", to_string(what_));
    if (what_ == Collective::all_reduce) s += fmt::format(" {}", to_string(op_));
    s += fmt::format(" {} x{}", to_string(type_), count_);
    if (what_ == Collective::broadcast) s += fmt::format(" from rank {}", root_);
    return s + " over " + clique_->where();
  }

  // NCCL refuses a second capture over the same communicators into one graph (NCCL 2.28: "Cuda
  // failure 'dependency created on uncaptured work in another stream'"); each collective is
  // captured into a graph of its own and embedded as a child node.
  bool own_graph() const override { return true; }

  /// The communicators (nccl::synchronize watches them).
  const std::shared_ptr<detail::Clique>& clique() const noexcept { return clique_; }

  bool same_work(const graphdsl::detail::StreamClosure& other) const override {
    const auto* o = dynamic_cast<const CollectiveClosure*>(&other);
    return o != nullptr && o->clique_ == clique_ && o->what_ == what_ && o->count_ == count_ && o->type_ == type_ &&
           o->op_ == op_ && o->root_ == root_ &&
           std::equal(ranks_.begin(), ranks_.end(), o->ranks_.begin(), o->ranks_.end(),
                      [](const RawBuffers& x, const RawBuffers& y) { return x.send == y.send && x.recv == y.recv; });
  }

  void check(const NodeInfo& node) const override {
    clique_->ensure();
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      const int device = clique_->devices[r];
      for (const auto& [ptr, which] : {std::pair<const void*, const char*>{ranks_[r].send, "send"},
                                       std::pair<const void*, const char*>{ranks_[r].recv, "receive"}}) {
        cudaPointerAttributes a{};
        GRAPHDSL_CHECK(cudaPointerGetAttributes, &a, ptr);
        const bool on_device = a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
        if (!on_device || a.device != device) {
          throw UsageError(fmt::format(
              "{}: rank {}'s {} buffer is {}, but rank {}'s communicator is on device {}; each rank's buffers must be "
              "memory of its own device",
              node.describe(), r, which, on_device ? fmt::format("memory of device {}", a.device) : "not device memory",
              r, device));
        }
      }
    }
  }

  void call(cudaStream_t s) override {
    detail::Clique& c = *clique_;
    const std::lock_guard<std::mutex> lock(c.capture);
    c.refuse_if_aborted();
    // The capture stream is on the current device (graphdsl makes one per device, and
    // cudaStreamGetDevice is refused on a capturing stream).
    int home = 0;
    GRAPHDSL_CHECK(cudaGetDevice, &home);
    // Fork: every rank's stream joins the capture after the node's predecessors ...
    const cudaEvent_t fork = c.fork_event(home);
    GRAPHDSL_CHECK(cudaEventRecord, fork, s);
    for (cudaStream_t rank_stream : c.streams) GRAPHDSL_CHECK(cudaStreamWaitEvent, rank_stream, fork, 0u);
    // ... each rank's call is captured on its stream ...
    const std::string what = describe();
    GRAPHDSL_NCCL(ncclGroupStart, what);
    try {
      for (std::size_t r = 0; r < c.comms.size(); ++r) issue(r, what);
    } catch (...) {
      (void)api().ncclGroupEnd();
      throw;
    }
    GRAPHDSL_NCCL(ncclGroupEnd, what);
    c.settle(what);  // non-blocking communicators (join) enqueue in the background
    // ... and the capture stream joins them all again.
    for (std::size_t r = 0; r < c.streams.size(); ++r) {
      GRAPHDSL_CHECK(cudaEventRecord, c.joins[r], c.streams[r]);
      GRAPHDSL_CHECK(cudaStreamWaitEvent, s, c.joins[r], 0u);
    }
  }

 private:
  void issue(std::size_t r, const std::string& what) {
    detail::Clique& c = *clique_;
    const RawBuffers& b = ranks_[r];
    switch (what_) {
      case Collective::all_reduce:
        GRAPHDSL_NCCL(ncclAllReduce, what, b.send, b.recv, count_, native(type_), native(op_), c.comms[r],
                      c.streams[r]);
        break;
      case Collective::broadcast:
        GRAPHDSL_NCCL(ncclBroadcast, what, b.send, b.recv, count_, native(type_), root_, c.comms[r], c.streams[r]);
        break;
      case Collective::all_gather:
        GRAPHDSL_NCCL(ncclAllGather, what, b.send, b.recv, count_, native(type_), c.comms[r], c.streams[r]);
        break;
    }
  }

  std::shared_ptr<detail::Clique> clique_;
  Collective what_;
  std::vector<RawBuffers> ranks_;
  std::size_t count_;
  DataType type_;
  ReduceOp op_;
  int root_;
};

}  // namespace

CapturedNode add_collective(Graph& g, const Communicators& comms, Collective what, const std::vector<RawBuffers>& ranks,
                            std::size_t count, DataType type, ReduceOp op, int root) {
  const std::string where = fmt::format("nccl {} added to graph {}", to_string(what),
                                        graphdsl::detail::quoted(g.name()));
  // Before anything else reads them: an enumeration value outside the enumeration is refused, never
  // compiled into another collective, type or reduction (or into no NCCL call).
  (void)graphdsl::detail::checked_enum(what, Collective::all_gather, where.c_str(), "Collective",
                                       "a collective (all_reduce, broadcast or all_gather)");
  (void)graphdsl::detail::checked_enum(type, DataType::float64, where.c_str(), "DataType",
                                       "an NCCL data type (int8, uint8, int32, uint32, int64, uint64, float32 or "
                                       "float64)");
  (void)graphdsl::detail::checked_enum(op, ReduceOp::avg, where.c_str(), "ReduceOp",
                                       "a reduction (sum, prod, max, min or avg)");
  if (ranks.size() != comms.size()) {
    throw UsageError(fmt::format("{}: {} buffer pair{} for {} communicator{} ({}); give one per rank of this process",
                                 where, ranks.size(), ranks.size() == 1 ? "" : "s", comms.size(),
                                 comms.size() == 1 ? "" : "s", comms.state()->where()));
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].send == nullptr || ranks[r].recv == nullptr) {
      throw UsageError(fmt::format("{}: rank {}'s {} buffer is null", where, r,
                                   ranks[r].send == nullptr ? "send" : "receive"));
    }
  }
  if (count == 0) throw UsageError(fmt::format("{}: the element count is 0", where));
  // all_gather's receive buffers hold every rank's share
  (void)graphdsl::detail::checked_bytes(
      count, element_bytes(type) * (what == Collective::all_gather ? static_cast<std::size_t>(comms.world_size()) : 1),
      where.c_str());
  if (root < 0 || root >= comms.world_size()) {
    throw UsageError(fmt::format("{}: root rank {} is not one of the {} ranks", where, root, comms.world_size()));
  }
  return g.add_captured_node(new CollectiveClosure(comms.state(), what, ranks, count, type, op, root),
                             cudaStreamCaptureModeThreadLocal);
}

namespace {

/// The collective nodes of a plan (nested plans included), each with its communicators.
struct CollectiveUse {
  std::string node;  ///< e.g. "captured node 'sum' (#2) (nccl all_reduce ... over rank 0 of 2 on device 0)"
  std::shared_ptr<detail::Clique> clique;
};

/// Aborts the communicators of `cliques` on a thread of its own and waits for it at most `bound`:
/// NCCL's abort can wait for the collectives' kernels, which wait for the peer that never came
/// (measured: NCCL 2.28.3 on two H200s, a peer that compiled its plan and never launched it). The
/// communicators are taken out of their cliques first (marked aborted, under their locks), so that
/// nothing else calls NCCL on them, also when the abort never returns. True when it returned.
bool abort_bounded(const std::vector<detail::Clique*>& cliques, Clock::duration bound) {
  auto doomed = std::make_shared<std::vector<ncclComm_t>>();
  for (detail::Clique* c : cliques) {
    const std::lock_guard<std::mutex> lock(c->capture);
    const std::vector<ncclComm_t> taken = c->take_locked();
    doomed->insert(doomed->end(), taken.begin(), taken.end());
  }
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> returned = done->get_future();
  std::thread([doomed, done] {
    detail::Clique::abort(*doomed);
    done->set_value();
  }).detach();
  return returned.wait_for(bound) == std::future_status::ready;
}

}  // namespace

void synchronize(Executable& exec, cudaStream_t stream, std::chrono::milliseconds timeout) {
  if (!exec) throw UsageError("nccl::synchronize: the executable is empty (default-constructed or moved from)");
  const Graph& plan = exec.plan();
  std::vector<CollectiveUse> uses;
  graphdsl::detail::any_nested_plan(plan.impl(), [&](const graphdsl::detail::GraphImpl& g) {
    for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
      if (g.nodes[i].kind != NodeKind::captured) continue;
      const auto* c = dynamic_cast<const CollectiveClosure*>(g.captures[g.nodes[i].payload].fn.get());
      if (c != nullptr) uses.push_back({fmt::format("{} ({})", g.info(i).describe(), c->describe()), c->clique()});
    }
    return false;
  });
  std::vector<detail::Clique*> cliques;
  for (const CollectiveUse& u : uses) {
    if (std::find(cliques.begin(), cliques.end(), u.clique.get()) == cliques.end()) cliques.push_back(u.clique.get());
  }
  const Clock::time_point start = Clock::now();
  Backoff backoff;
  ncclResult_t failure = ncclSuccess;
  for (;;) {
    const cudaError_t rc = graphdsl::detail::cuda_try(cudaStreamQuery, stream);
    if (rc == cudaSuccess) break;
    if (rc != cudaErrorNotReady) graphdsl::detail::throw_cuda(rc, "cudaStreamQuery");
    for (detail::Clique* c : cliques) {
      const std::lock_guard<std::mutex> lock(c->capture);
      for (ncclComm_t comm : c->comms) {
        ncclResult_t state = ncclSuccess;
        if (api().ncclCommGetAsyncError(comm, &state) == ncclSuccess && state != ncclSuccess &&
            state != ncclInProgress) {
          failure = state;
        }
      }
    }
    if (failure == ncclSuccess && Clock::now() - start >= detail::bounded_timeout(timeout)) failure = ncclInProgress;
    if (failure != ncclSuccess) break;
    backoff.pause();
  }
  if (failure == ncclSuccess) {
    exec.rethrow_host_error();
    return;
  }
  // The collectives' kernels wait for peers that may never come: abort the communicators, so that
  // they stop, and give the stream a bounded time to drain.
  const bool abort_returned = abort_bounded(cliques, std::min<Clock::duration>(detail::bounded_timeout(timeout),
                                                                               std::chrono::seconds(10)));
  const Clock::time_point drain_end = Clock::now() + std::min<Clock::duration>(detail::bounded_timeout(timeout),
                                                                               std::chrono::seconds(10));
  cudaError_t drained = cudaErrorNotReady;
  while (abort_returned && (drained = graphdsl::detail::cuda_try(cudaStreamQuery, stream)) == cudaErrorNotReady &&
         Clock::now() < drain_end) {
    backoff.pause();
  }
  std::string nodes;
  for (std::size_t i = 0; i < uses.size(); ++i) nodes += fmt::format("{}{}", i ? "; " : "", uses[i].node);
  const std::string why = failure == ncclInProgress ? fmt::format("did not finish within {} ms", timeout.count())
                                                    : fmt::format("failed: NCCL reports {}", nccl_text(failure));
  const std::string which = uses.empty() ? std::string("it holds no collective node")
                                         : fmt::format("collective node{}: {}", uses.size() == 1 ? "" : "s", nodes);
  throw NcclError(static_cast<int>(failure),
                  fmt::format("graph '{}' launched on a stream {} ({}); a peer that never arrived (a process that "
                              "died, or did not launch its plan) keeps a collective waiting. {}",
                              plan.name(), why, which,
                              !abort_returned
                                  ? "The communicators were aborted, but NCCL's abort did not return in time (it "
                                    "waits for the collective's kernels, which wait for the missing peer): they "
                                    "and this GPU context cannot be used again; end the process (std::_Exit)"
                              : drained == cudaErrorNotReady
                                  ? "The communicators were aborted and cannot be used again; the stream is still "
                                    "busy (the device may need a reset)"
                              : drained == cudaSuccess
                                  ? "The communicators were aborted and cannot be used again; the stream has drained"
                                  : fmt::format("The communicators were aborted and cannot be used again; the stream "
                                                "reports {}",
                                                cudaGetErrorName(drained))));
}

}  // namespace graphdsl::nccl
