// src/nccl.cpp — NCCL collectives captured into plans (the graphdsl::nccl library).
//
// NCCL is loaded with dlopen on first use, so that only programs that build collectives need it;
// nccl.h provides the types and the signatures. Every CUDA call goes through graphdsl's one checked
// path (cuda_call.hpp); every NCCL call through nccl_check below.
#include "graphdsl/nccl.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include <fmt/format.h>
#include <nccl.h>

#include "cuda_call.hpp"
#include "device_rules.hpp"

namespace graphdsl::nccl {

NcclError::NcclError(int code, const std::string& message) : Error("graphdsl: " + message), code_(code) {}

namespace {

/// The NCCL functions graphdsl calls, looked up in the loaded library.
struct Api {
  decltype(&::ncclGetVersion) ncclGetVersion = nullptr;
  decltype(&::ncclGetErrorString) ncclGetErrorString = nullptr;
  decltype(&::ncclCommInitAll) ncclCommInitAll = nullptr;
  decltype(&::ncclCommFinalize) ncclCommFinalize = nullptr;
  decltype(&::ncclCommDestroy) ncclCommDestroy = nullptr;
  decltype(&::ncclGroupStart) ncclGroupStart = nullptr;
  decltype(&::ncclGroupEnd) ncclGroupEnd = nullptr;
  decltype(&::ncclAllReduce) ncclAllReduce = nullptr;
  decltype(&::ncclBroadcast) ncclBroadcast = nullptr;
  decltype(&::ncclAllGather) ncclAllGather = nullptr;
  std::string error;  ///< why loading failed; empty when it worked
};

template <class F>
void bind(void* lib, const char* symbol, F& slot, std::string& error) {
  slot = reinterpret_cast<F>(dlsym(lib, symbol));
  if (slot == nullptr && error.empty()) error = fmt::format("symbol {} not found in the NCCL library", symbol);
}

const Api& api() {
  static const Api loaded = [] {
    Api a;
    const char* env = std::getenv("GRAPHDSL_NCCL_LIBRARY");
    const std::string file = env != nullptr && *env != '\0' ? env : "libnccl.so.2";
    void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      a.error = fmt::format("NCCL is not available: loading '{}' failed ({}); install NCCL (e.g. the libnccl2 "
                            "package) or name the library in GRAPHDSL_NCCL_LIBRARY",
                            file, why != nullptr ? why : "unknown reason");
      return a;
    }
    bind(lib, "ncclGetVersion", a.ncclGetVersion, a.error);
    bind(lib, "ncclGetErrorString", a.ncclGetErrorString, a.error);
    bind(lib, "ncclCommInitAll", a.ncclCommInitAll, a.error);
    bind(lib, "ncclCommFinalize", a.ncclCommFinalize, a.error);
    bind(lib, "ncclCommDestroy", a.ncclCommDestroy, a.error);
    bind(lib, "ncclGroupStart", a.ncclGroupStart, a.error);
    bind(lib, "ncclGroupEnd", a.ncclGroupEnd, a.error);
    bind(lib, "ncclAllReduce", a.ncclAllReduce, a.error);
    bind(lib, "ncclBroadcast", a.ncclBroadcast, a.error);
    bind(lib, "ncclAllGather", a.ncclAllGather, a.error);
    if (!a.error.empty()) a.error = fmt::format("NCCL is not usable: '{}': {}", file, a.error);
    return a;
  }();
  return loaded;
}

const Api& loaded_api() {
  const Api& a = api();
  if (!a.error.empty()) throw NcclError(0, a.error);
  return a;
}

/// The one checked path for NCCL calls: throws NcclError naming the call and what it was for.
template <class F, class... A>
void nccl_check(const char* call, F fn, const std::string& what, A... args) {
  const ncclResult_t rc = fn(args...);
  if (rc != ncclSuccess) {
    throw NcclError(static_cast<int>(rc), fmt::format("{} failed: {} ({}){}", call, api().ncclGetErrorString(rc),
                                                      static_cast<int>(rc), what.empty() ? "" : " " + what));
  }
}
#define GRAPHDSL_NCCL(fn, ...) nccl_check(#fn, api().fn, __VA_ARGS__)  // the first argument: what it was for

ncclDataType_t native(DataType t) {
  switch (t) {
    case DataType::int8: return ncclInt8;
    case DataType::uint8: return ncclUint8;
    case DataType::int32: return ncclInt32;
    case DataType::uint32: return ncclUint32;
    case DataType::int64: return ncclInt64;
    case DataType::uint64: return ncclUint64;
    case DataType::float32: return ncclFloat32;
    case DataType::float64: return ncclFloat64;
  }
  return ncclFloat32;
}

ncclRedOp_t native(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::avg: return ncclAvg;
  }
  return ncclSum;
}

std::string device_list(const std::vector<int>& devices) {
  std::string s;
  for (std::size_t r = 0; r < devices.size(); ++r) s += fmt::format("{}{}", r ? "," : "", devices[r]);
  return s;
}

}  // namespace

bool available() noexcept {
  try {
    return api().error.empty();
  } catch (...) {
    return false;
  }
}

std::string unavailable_reason() { return api().error; }

int version() {
  int v = 0;
  loaded_api();
  GRAPHDSL_NCCL(ncclGetVersion, "", &v);
  return v;
}

const char* to_string(Collective c) noexcept {
  switch (c) {
    case Collective::all_reduce: return "all_reduce";
    case Collective::broadcast: return "broadcast";
    case Collective::all_gather: return "all_gather";
  }
  return "unknown";
}

const char* to_string(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::max: return "max";
    case ReduceOp::min: return "min";
    case ReduceOp::avg: return "avg";
  }
  return "unknown";
}

const char* to_string(DataType t) noexcept {
  switch (t) {
    case DataType::int8: return "int8";
    case DataType::uint8: return "uint8";
    case DataType::int32: return "int32";
    case DataType::uint32: return "uint32";
    case DataType::int64: return "int64";
    case DataType::uint64: return "uint64";
    case DataType::float32: return "float32";
    case DataType::float64: return "float64";
  }
  return "unknown";
}

namespace {
std::size_t element_bytes(DataType t) noexcept {
  return t == DataType::int8 || t == DataType::uint8                                   ? 1
         : t == DataType::int64 || t == DataType::uint64 || t == DataType::float64 ? 8
                                                                                   : 4;
}
}  // namespace

namespace detail {

using graphdsl::detail::cuda_try;

/// The communicators of one Communicators object and what capturing over them needs: a stream and
/// a join event per rank, a fork event per device a capture stream is on (made on first use).
struct Clique {
  std::vector<int> devices;
  std::vector<ncclComm_t> comms;          ///< empty until first use (ensure)
  std::vector<cudaStream_t> streams;      ///< per rank, on the rank's device
  std::vector<cudaEvent_t> joins;         ///< per rank, on the rank's device
  std::vector<cudaEvent_t> forks;         ///< per visible device; null until used
  std::mutex capture;                     ///< one capture at a time uses the streams
  std::mutex init;                        ///< guards the first use

  /// The fork event of `device` (the current device), created on first use.
  cudaEvent_t fork_event(int device) {
    cudaEvent_t& e = forks[static_cast<std::size_t>(device)];
    if (e == nullptr) GRAPHDSL_CHECK(cudaEventCreateWithFlags, &e, static_cast<unsigned>(cudaEventDisableTiming));
    return e;
  }

  /// Creates the communicators, streams and events on first use (the first compile of a plan with
  /// a collective over them, or native_handle). Checks that the devices exist and that NCCL loads.
  void ensure() {
    const std::lock_guard<std::mutex> lock(init);
    if (!comms.empty()) return;
    release();  // what a failed first attempt left
    int count = 0;
    GRAPHDSL_CHECK(cudaGetDeviceCount, &count);
    for (int d : devices) {
      if (d >= count) {
        throw UsageError(fmt::format("nccl::Communicators: device {} does not exist; this process sees {} CUDA "
                                     "device{}",
                                     d, count, count == 1 ? "" : "s"));
      }
    }
    loaded_api();
    graphdsl::detail::DeviceScope scope(-1);
    forks.assign(static_cast<std::size_t>(count), nullptr);
    for (int d : devices) {
      scope.use(d);
      (void)fork_event(d);
      cudaStream_t s = nullptr;
      GRAPHDSL_CHECK(cudaStreamCreateWithFlags, &s, static_cast<unsigned>(cudaStreamNonBlocking));
      streams.push_back(s);
      cudaEvent_t e = nullptr;
      GRAPHDSL_CHECK(cudaEventCreateWithFlags, &e, static_cast<unsigned>(cudaEventDisableTiming));
      joins.push_back(e);
    }
    std::vector<ncclComm_t> made(devices.size());
    GRAPHDSL_NCCL(ncclCommInitAll, fmt::format("creating communicators for devices {{{}}}", device_list(devices)),
                  made.data(), static_cast<int>(made.size()), devices.data());
    comms = std::move(made);
  }

  void release() noexcept {
    if (!comms.empty()) {
      // Communicators of one clique are finalized together (finalizing one alone can wait for the
      // others), then destroyed.
      const Api& a = api();
      (void)a.ncclGroupStart();
      for (ncclComm_t c : comms) (void)a.ncclCommFinalize(c);
      (void)a.ncclGroupEnd();
      for (ncclComm_t c : comms) (void)a.ncclCommDestroy(c);
      comms.clear();
    }
    for (cudaEvent_t e : joins) (void)cuda_try(cudaEventDestroy, e);
    for (cudaEvent_t e : forks) {
      if (e != nullptr) (void)cuda_try(cudaEventDestroy, e);
    }
    for (cudaStream_t s : streams) (void)cuda_try(cudaStreamDestroy, s);
    joins.clear();
    forks.clear();
    streams.clear();
  }

  ~Clique() { release(); }
};

}  // namespace detail

Communicators::Communicators(std::vector<int> devices) : state_(std::make_shared<detail::Clique>()) {
  if (devices.empty()) throw UsageError("nccl::Communicators: the device list is empty");
  for (std::size_t r = 0; r < devices.size(); ++r) {
    if (std::count(devices.begin(), devices.end(), devices[r]) > 1) {
      throw UsageError(fmt::format("nccl::Communicators: device {} appears more than once in {{{}}}; one communicator "
                                   "per device",
                                   devices[r], device_list(devices)));
    }
  }
  for (int d : devices) {
    if (d < 0) throw UsageError(fmt::format("nccl::Communicators: {} is not a device number", d));
  }
  state_->devices = std::move(devices);
}

const std::vector<int>& Communicators::devices() const noexcept { return state_->devices; }

std::size_t Communicators::size() const noexcept { return state_->devices.size(); }

void* Communicators::native_handle(std::size_t rank) const {
  if (rank >= size()) {
    throw UsageError(fmt::format("nccl::Communicators::native_handle: rank {} of {} ranks", rank, size()));
  }
  state_->ensure();
  return static_cast<void*>(state_->comms[rank]);
}

namespace {

/// The captured function of a collective node.
class CollectiveClosure final : public graphdsl::detail::StreamClosure {
 public:
  CollectiveClosure(std::shared_ptr<detail::Clique> clique, Collective what, std::vector<RawBuffers> ranks,
                    std::size_t count, DataType type, ReduceOp op, int root)
      : clique_(std::move(clique)), what_(what), ranks_(std::move(ranks)), count_(count), type_(type), op_(op),
        root_(root) {}

  std::string describe() const override {
    std::string s = fmt::format("nccl {}", to_string(what_));
    if (what_ == Collective::all_reduce) s += fmt::format(" {}", to_string(op_));
    s += fmt::format(" {} x{}", to_string(type_), count_);
    if (what_ == Collective::broadcast) s += fmt::format(" from rank {}", root_);
    return s + fmt::format(" over devices {}", device_list(clique_->devices));
  }

  // NCCL refuses a second capture over the same communicators into one graph (NCCL 2.28: "Cuda
  // failure 'dependency created on uncaptured work in another stream'"); each collective is
  // captured into a graph of its own and embedded as a child node.
  bool own_graph() const override { return true; }

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
        GRAPHDSL_NCCL(ncclAllReduce, what, b.send, b.recv, count_, native(type_), native(op_), c.comms[r], c.streams[r]);
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
  const std::string where = fmt::format("nccl {} added to graph {}", to_string(what), graphdsl::detail::quoted(g.name()));
  if (ranks.size() != comms.size()) {
    throw UsageError(fmt::format("{}: {} buffer pair{} for {} communicators (devices {}); give one per rank", where,
                                 ranks.size(), ranks.size() == 1 ? "" : "s", comms.size(),
                                 device_list(comms.devices())));
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].send == nullptr || ranks[r].recv == nullptr) {
      throw UsageError(fmt::format("{}: rank {}'s {} buffer is null", where, r, ranks[r].send == nullptr ? "send" : "receive"));
    }
  }
  if (count == 0) throw UsageError(fmt::format("{}: the element count is 0", where));
  // all_gather's receive buffers hold every rank's share
  (void)graphdsl::detail::checked_bytes(
      count, element_bytes(type) * (what == Collective::all_gather ? comms.size() : 1), where.c_str());
  if (root < 0 || static_cast<std::size_t>(root) >= comms.size()) {
    throw UsageError(fmt::format("{}: root rank {} is not one of the {} ranks", where, root, comms.size()));
  }
  return g.add_captured_node(std::make_shared<CollectiveClosure>(comms.state(), what, ranks, count, type, op, root),
                             cudaStreamCaptureModeThreadLocal);
}

}  // namespace graphdsl::nccl
