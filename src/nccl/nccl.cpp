// src/nccl/nccl.cpp — NCCL collectives captured into plans (the graphdsl::nccl library).
//
// NCCL is loaded with dlopen on first use, so that only programs that build collectives need it;
// nccl.h provides the types and the signatures. Every CUDA call goes through graphdsl's one checked
// path (cuda_call.hpp); every NCCL call through nccl_check below.
#include "graphdsl/nccl.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <nccl.h>

#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "plan/walk.hpp"

namespace graphdsl::nccl {

NcclError::NcclError(int code, const std::string& message) : Error("graphdsl: " + message), code_(code) {}

namespace {

/// The NCCL functions graphdsl calls, looked up in the loaded library.
struct Api {
  decltype(&::ncclGetVersion) ncclGetVersion = nullptr;
  decltype(&::ncclGetErrorString) ncclGetErrorString = nullptr;
  decltype(&::ncclCommInitAll) ncclCommInitAll = nullptr;
  decltype(&::ncclGetUniqueId) ncclGetUniqueId = nullptr;
  decltype(&::ncclCommInitRankConfig) ncclCommInitRankConfig = nullptr;
  decltype(&::ncclCommGetAsyncError) ncclCommGetAsyncError = nullptr;
  decltype(&::ncclCommAbort) ncclCommAbort = nullptr;
  decltype(&::ncclCommCount) ncclCommCount = nullptr;
  decltype(&::ncclCommCuDevice) ncclCommCuDevice = nullptr;
  decltype(&::ncclCommUserRank) ncclCommUserRank = nullptr;
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
    bind(lib, "ncclGetUniqueId", a.ncclGetUniqueId, a.error);
    bind(lib, "ncclCommInitRankConfig", a.ncclCommInitRankConfig, a.error);
    bind(lib, "ncclCommGetAsyncError", a.ncclCommGetAsyncError, a.error);
    bind(lib, "ncclCommAbort", a.ncclCommAbort, a.error);
    bind(lib, "ncclCommCount", a.ncclCommCount, a.error);
    bind(lib, "ncclCommCuDevice", a.ncclCommCuDevice, a.error);
    bind(lib, "ncclCommUserRank", a.ncclCommUserRank, a.error);
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

/// NCCL's text for `rc`, with its number.
std::string nccl_text(ncclResult_t rc) { return fmt::format("{} ({})", api().ncclGetErrorString(rc), static_cast<int>(rc)); }

/// The one checked path for NCCL calls: throws NcclError naming the call and what it was for.
/// ncclInProgress is not an error: a non-blocking communicator's call goes on in the background,
/// and its caller waits for it (Clique::settle).
template <class F, class... A>
ncclResult_t nccl_check(const char* call, F fn, const std::string& what, A... args) {
  const ncclResult_t rc = fn(args...);
  if (rc != ncclSuccess && rc != ncclInProgress) {
    throw NcclError(static_cast<int>(rc),
                    fmt::format("{} failed: {}{}", call, nccl_text(rc), what.empty() ? "" : " " + what));
  }
  return rc;
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

using Clock = std::chrono::steady_clock;

/// Sleeps a little longer each time (20 us up to 1 ms): polling NCCL and a stream without
/// spinning a core, and without adding much latency to short waits.
class Backoff {
 public:
  void pause() {
    std::this_thread::sleep_for(wait_);
    wait_ = std::min(wait_ * 2, std::chrono::microseconds(1000));
  }

 private:
  std::chrono::microseconds wait_{20};
};

/// The state of communicators after a non-blocking call: ncclSuccess when every one is done, the
/// first error one reports, or ncclInProgress when `timeout` passed first.
ncclResult_t wait_ready(const std::vector<ncclComm_t>& comms, std::chrono::milliseconds timeout) {
  const Clock::time_point end = Clock::now() + timeout;
  Backoff backoff;
  for (;;) {
    bool busy = false;
    for (ncclComm_t c : comms) {
      ncclResult_t state = ncclSuccess;
      const ncclResult_t rc = api().ncclCommGetAsyncError(c, &state);
      if (rc != ncclSuccess) return rc;
      if (state == ncclInProgress) {
        busy = true;
      } else if (state != ncclSuccess) {
        return state;
      }
    }
    if (!busy) return ncclSuccess;
    if (Clock::now() >= end) return ncclInProgress;
    backoff.pause();
  }
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

const char* to_string(Ownership o) noexcept { return o == Ownership::owned ? "owned" : "borrowed"; }

UniqueId UniqueId::create() {
  loaded_api();
  ncclUniqueId native{};
  GRAPHDSL_NCCL(ncclGetUniqueId, "making the unique id of a job", &native);
  return from_bytes(native.internal, sizeof native.internal);
}

UniqueId UniqueId::from_bytes(const void* data, std::size_t length) {
  static_assert(size == NCCL_UNIQUE_ID_BYTES, "UniqueId::size must be NCCL_UNIQUE_ID_BYTES");
  if (data == nullptr || length != size) {
    throw UsageError(fmt::format("nccl::UniqueId::from_bytes: {} bytes given; a unique id has {}", data ? length : 0, size));
  }
  UniqueId id;
  std::memcpy(id.bytes_.data(), data, size);
  return id;
}

UniqueId UniqueId::from_hex(std::string_view hex) {
  if (hex.size() != 2 * size) {
    throw UsageError(fmt::format("nccl::UniqueId::from_hex: {} characters given; a unique id is {} hex digits (to_hex())",
                                 hex.size(), 2 * size));
  }
  auto digit = [&](std::size_t i) {
    const char c = hex[i];
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw UsageError(fmt::format("nccl::UniqueId::from_hex: character {} ('{}') is not a hex digit", i,
                                 c >= 0x20 && c < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", static_cast<unsigned char>(c))));
  };
  UniqueId id;
  for (std::size_t i = 0; i < size; ++i) id.bytes_[i] = static_cast<unsigned char>(digit(2 * i) * 16 + digit(2 * i + 1));
  return id;
}

std::string UniqueId::to_hex() const {
  std::string s;
  s.reserve(2 * size);
  for (unsigned char b : bytes_) s += fmt::format("{:02x}", b);
  return s;
}

UniqueId::operator bool() const noexcept {
  return std::any_of(bytes_.begin(), bytes_.end(), [](unsigned char b) { return b != 0; });
}

namespace detail {

using graphdsl::detail::cuda_try;

/// The communicators of one Communicators object and what capturing over them needs: a stream and
/// a join event per local rank, a fork event per device a capture stream is on (made on first use).
struct Clique {
  enum class Origin { init_all, join, adopt };
  Origin origin = Origin::init_all;
  std::vector<int> devices;  ///< per local rank
  std::vector<int> ranks;    ///< per local rank: its rank in the world
  int world = 0;
  UniqueId id;                            ///< join: the job's id
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};  ///< bound of every wait for NCCL
  bool owned = true;                      ///< finalize and destroy the communicators at the end
  bool aborted = false;                   ///< synchronize (or a timed-out wait) aborted them
  std::vector<ncclComm_t> comms;          ///< empty until first use (ensure), except adopted ones
  std::vector<cudaStream_t> streams;      ///< per local rank, on the rank's device
  std::vector<cudaEvent_t> joins;         ///< per local rank, on the rank's device
  std::vector<cudaEvent_t> forks;         ///< per visible device; null until used
  std::mutex capture;                     ///< one capture (or abort) at a time uses the communicators
  std::mutex init;                        ///< guards the first use

  /// "devices 0,1" (one process), "rank 1 of 2 on device 0", "ranks 0,1 of 4 on devices 0,1".
  std::string where() const {
    if (origin == Origin::init_all) return fmt::format("devices {}", device_list(devices));
    const bool one = ranks.size() == 1;
    return fmt::format("rank{} {} of {} on device{} {}", one ? "" : "s", device_list(ranks), world, one ? "" : "s",
                       device_list(devices));
  }

  /// The fork event of `device` (the current device), created on first use.
  cudaEvent_t fork_event(int device) {
    cudaEvent_t& e = forks[static_cast<std::size_t>(device)];
    if (e == nullptr) GRAPHDSL_CHECK(cudaEventCreateWithFlags, &e, static_cast<unsigned>(cudaEventDisableTiming));
    return e;
  }

  void refuse_if_aborted() const {
    if (aborted) {
      throw NcclError(0, fmt::format("the NCCL communicators over {} were aborted (a collective did not finish in "
                                     "time, see nccl::synchronize); make new communicators and plans",
                                     where()));
    }
  }

  /// Creates the communicators, streams and events on first use (the first compile of a plan with
  /// a collective over them, connect or native_handle). Checks that the devices exist and that
  /// NCCL loads; joining waits for every rank of the world, at most `timeout`.
  void ensure() {
    const std::lock_guard<std::mutex> lock(init);
    refuse_if_aborted();
    if (!streams.empty() && !comms.empty()) return;
    release_streams();  // what a failed first attempt left
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
    if (!comms.empty()) return;  // adopted
    std::vector<ncclComm_t> made(devices.size());
    if (origin == Origin::init_all) {
      GRAPHDSL_NCCL(ncclCommInitAll, fmt::format("creating communicators for devices {{{}}}", device_list(devices)),
                    made.data(), static_cast<int>(made.size()), devices.data());
      comms = std::move(made);
      return;
    }
    join_world(scope, made);
  }

  /// Joins the world: one non-blocking ncclCommInitRankConfig per local rank (grouped when there
  /// are several), then waits until every rank of the world has joined, at most `timeout`.
  void join_world(graphdsl::detail::DeviceScope& scope, std::vector<ncclComm_t>& made) {
    const std::string what = fmt::format("joining the world of {} ranks as {}", world, where());
    ncclUniqueId native{};
    std::memcpy(native.internal, id.bytes().data(), UniqueId::size);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const bool group = made.size() > 1;
    if (group) GRAPHDSL_NCCL(ncclGroupStart, what);
    try {
      for (std::size_t r = 0; r < made.size(); ++r) {
        scope.use(devices[r]);
        GRAPHDSL_NCCL(ncclCommInitRankConfig, what, &made[r], world, native, ranks[r], &config);
      }
    } catch (...) {
      if (group) (void)api().ncclGroupEnd();
      abort(made);
      throw;
    }
    if (group) {
      try {
        GRAPHDSL_NCCL(ncclGroupEnd, what);
      } catch (...) {
        abort(made);
        throw;
      }
    }
    const ncclResult_t state = wait_ready(made, timeout);
    if (state == ncclSuccess) {
      comms = std::move(made);
      return;
    }
    abort(made);
    if (state == ncclInProgress) {
      throw NcclError(static_cast<int>(ncclInProgress),
                      fmt::format("{}: not every rank joined within {} ms (a process that did not start, crashed, "
                                  "or was given another id or world size); the communicator was aborted",
                                  what, timeout.count()));
    }
    throw NcclError(static_cast<int>(state), fmt::format("{}: NCCL's initialization failed: {}", what, nccl_text(state)));
  }

  /// Waits until a non-blocking call over the communicators is done, at most `timeout`; aborts
  /// them and throws NcclError naming `what` otherwise. Called with `capture` held.
  void settle(const std::string& what) {
    const ncclResult_t state = wait_ready(comms, timeout);
    if (state == ncclSuccess) return;
    abort_locked();
    throw NcclError(static_cast<int>(state),
                    state == ncclInProgress
                        ? fmt::format("{}: NCCL did not finish within {} ms; the communicators were aborted", what,
                                      timeout.count())
                        : fmt::format("{}: NCCL reports {}; the communicators were aborted", what, nccl_text(state)));
  }

  /// ncclCommAbort of each (a no-op on nulls).
  static void abort(std::vector<ncclComm_t>& list) noexcept {
    for (ncclComm_t& c : list) {
      if (c != nullptr) (void)api().ncclCommAbort(c);
      c = nullptr;
    }
  }

  /// Aborts the communicators for good (their collectives stop waiting). Called with `capture` held.
  void abort_locked() noexcept {
    abort(comms);
    comms.clear();
    aborted = true;
  }

  void release_streams() noexcept {
    for (cudaEvent_t e : joins) (void)cuda_try(cudaEventDestroy, e);
    for (cudaEvent_t e : forks) {
      if (e != nullptr) (void)cuda_try(cudaEventDestroy, e);
    }
    for (cudaStream_t s : streams) (void)cuda_try(cudaStreamDestroy, s);
    joins.clear();
    forks.clear();
    streams.clear();
  }

  void release() noexcept {
    if (!comms.empty() && owned) {
      // The communicators of one clique are finalized together (finalizing one alone can wait for
      // the others), then destroyed; ones that do not finalize in time are aborted.
      const Api& a = api();
      (void)a.ncclGroupStart();
      for (ncclComm_t c : comms) (void)a.ncclCommFinalize(c);
      (void)a.ncclGroupEnd();
      if (wait_ready(comms, timeout) == ncclSuccess) {
        for (ncclComm_t c : comms) (void)a.ncclCommDestroy(c);
      } else {
        abort(comms);
      }
    }
    comms.clear();
    release_streams();
  }

  ~Clique() { release(); }
};

}  // namespace detail

namespace {

void check_device_list(const std::vector<int>& devices, const char* who) {
  if (devices.empty()) throw UsageError(fmt::format("{}: the device list is empty", who));
  for (std::size_t r = 0; r < devices.size(); ++r) {
    if (std::count(devices.begin(), devices.end(), devices[r]) > 1) {
      throw UsageError(fmt::format("{}: device {} appears more than once in {{{}}}; one communicator per device", who,
                                   devices[r], device_list(devices)));
    }
  }
  for (int d : devices) {
    if (d < 0) throw UsageError(fmt::format("{}: {} is not a device number", who, d));
  }
}

}  // namespace

Communicators::Communicators(std::vector<int> devices) : state_(std::make_shared<detail::Clique>()) {
  check_device_list(devices, "nccl::Communicators");
  state_->world = static_cast<int>(devices.size());
  for (int r = 0; r < state_->world; ++r) state_->ranks.push_back(r);
  state_->devices = std::move(devices);
}

Communicators Communicators::join(const UniqueId& id, int world_size, int rank, int device, const JoinOptions& options) {
  return join(id, world_size, std::vector<int>{rank}, std::vector<int>{device}, options);
}

Communicators Communicators::join(const UniqueId& id, int world_size, std::vector<int> ranks, std::vector<int> devices,
                                  const JoinOptions& options) {
  const char* who = "nccl::Communicators::join";
  if (!id) throw UsageError(fmt::format("{}: the unique id is all zero; make it with UniqueId::create() in one process "
                                        "and hand its bytes to the others", who));
  if (world_size < 1) throw UsageError(fmt::format("{}: a world of {} ranks; it needs at least 1", who, world_size));
  check_device_list(devices, who);
  if (ranks.size() != devices.size()) {
    throw UsageError(fmt::format("{}: {} rank{} for {} device{}; give one device per rank", who, ranks.size(),
                                 ranks.size() == 1 ? "" : "s", devices.size(), devices.size() == 1 ? "" : "s"));
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0 || ranks[i] >= world_size) {
      throw UsageError(fmt::format("{}: rank {} is not a rank of a world of {} (0 to {})", who, ranks[i], world_size,
                                   world_size - 1));
    }
    if (std::count(ranks.begin(), ranks.end(), ranks[i]) > 1) {
      throw UsageError(fmt::format("{}: rank {} appears more than once", who, ranks[i]));
    }
  }
  if (options.timeout.count() <= 0) {
    throw UsageError(fmt::format("{}: the timeout is {} ms; it must be positive", who, options.timeout.count()));
  }
  auto state = std::make_shared<detail::Clique>();
  state->origin = detail::Clique::Origin::join;
  state->id = id;
  state->world = world_size;
  state->ranks = std::move(ranks);
  state->devices = std::move(devices);
  state->timeout = options.timeout;
  return Communicators(FromState{}, std::move(state));
}

Communicators Communicators::adopt(const std::vector<void*>& comms, Ownership ownership) {
  const char* who = "nccl::Communicators::adopt";
  if (comms.empty()) throw UsageError(fmt::format("{}: the list of communicators is empty", who));
  for (std::size_t i = 0; i < comms.size(); ++i) {
    if (comms[i] == nullptr) throw UsageError(fmt::format("{}: communicator {} is null", who, i));
  }
  loaded_api();
  auto state = std::make_shared<detail::Clique>();
  state->origin = detail::Clique::Origin::adopt;
  for (std::size_t i = 0; i < comms.size(); ++i) {
    auto* c = static_cast<ncclComm_t>(comms[i]);
    int device = -1, rank = -1, count = 0;
    const std::string what = fmt::format("asking about communicator {}", i);
    GRAPHDSL_NCCL(ncclCommCuDevice, what, c, &device);
    GRAPHDSL_NCCL(ncclCommUserRank, what, c, &rank);
    GRAPHDSL_NCCL(ncclCommCount, what, c, &count);
    if (i > 0 && count != state->world) {
      throw UsageError(fmt::format("{}: communicator {} belongs to a world of {} ranks, communicator 0 to one of {}; "
                                   "adopt communicators of one world together",
                                   who, i, count, state->world));
    }
    state->world = count;
    state->devices.push_back(device);
    state->ranks.push_back(rank);
  }
  check_device_list(state->devices, who);
  state->comms.assign(comms.size(), nullptr);
  for (std::size_t i = 0; i < comms.size(); ++i) state->comms[i] = static_cast<ncclComm_t>(comms[i]);
  state->owned = ownership == Ownership::owned;
  return Communicators(FromState{}, std::move(state));
}

const std::vector<int>& Communicators::devices() const noexcept { return state_->devices; }

std::size_t Communicators::size() const noexcept { return state_->devices.size(); }

const std::vector<int>& Communicators::ranks() const noexcept { return state_->ranks; }

int Communicators::world_size() const noexcept { return state_->world; }

void Communicators::connect() const { state_->ensure(); }

void* Communicators::native_handle(std::size_t rank) const {
  if (rank >= size()) {
    throw UsageError(fmt::format("nccl::Communicators::native_handle: rank {} of {} ranks", rank, size()));
  }
  state_->ensure();
  const std::lock_guard<std::mutex> lock(state_->capture);
  state_->refuse_if_aborted();
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
    throw UsageError(fmt::format("{}: {} buffer pair{} for {} communicator{} ({}); give one per rank of this process",
                                 where, ranks.size(), ranks.size() == 1 ? "" : "s", comms.size(),
                                 comms.size() == 1 ? "" : "s", comms.state()->where()));
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].send == nullptr || ranks[r].recv == nullptr) {
      throw UsageError(fmt::format("{}: rank {}'s {} buffer is null", where, r, ranks[r].send == nullptr ? "send" : "receive"));
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
  return g.add_captured_node(std::make_shared<CollectiveClosure>(comms.state(), what, ranks, count, type, op, root),
                             cudaStreamCaptureModeThreadLocal);
}

}  // namespace graphdsl::nccl

namespace graphdsl::nccl {

namespace {

/// The collective nodes of a plan (nested plans included), each with its communicators.
struct CollectiveUse {
  std::string node;  ///< e.g. "captured node 'sum' (#2) (nccl all_reduce ... over rank 0 of 2 on device 0)"
  std::shared_ptr<detail::Clique> clique;
};

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
        if (api().ncclCommGetAsyncError(comm, &state) == ncclSuccess && state != ncclSuccess && state != ncclInProgress) {
          failure = state;
        }
      }
    }
    if (failure == ncclSuccess && Clock::now() - start >= timeout) failure = ncclInProgress;
    if (failure != ncclSuccess) break;
    backoff.pause();
  }
  if (failure == ncclSuccess) {
    exec.rethrow_host_error();
    return;
  }
  // The collectives' kernels wait for peers that may never come: abort the communicators, so that
  // they stop, and give the stream a bounded time to drain.
  for (detail::Clique* c : cliques) {
    const std::lock_guard<std::mutex> lock(c->capture);
    c->abort_locked();
  }
  const Clock::time_point drain_end = Clock::now() + std::min<Clock::duration>(timeout, std::chrono::seconds(10));
  cudaError_t drained = cudaErrorNotReady;
  while ((drained = graphdsl::detail::cuda_try(cudaStreamQuery, stream)) == cudaErrorNotReady &&
         Clock::now() < drain_end) {
    backoff.pause();
  }
  std::string nodes;
  for (std::size_t i = 0; i < uses.size(); ++i) nodes += fmt::format("{}{}", i ? "; " : "", uses[i].node);
  const std::string why =
      failure == ncclInProgress
          ? fmt::format("did not finish within {} ms", timeout.count())
          : fmt::format("failed: NCCL reports {}", nccl_text(failure));
  const std::string which = uses.empty() ? std::string("it holds no collective node")
                                         : fmt::format("collective node{}: {}", uses.size() == 1 ? "" : "s", nodes);
  throw NcclError(static_cast<int>(failure),
                  fmt::format("graph '{}' launched on a stream {} ({}); a peer that never arrived (a process that "
                              "died, or did not launch its plan) keeps a collective waiting. The communicators were "
                              "aborted and cannot be used again; the stream {}",
                              plan.name(), why, which,
                              drained == cudaErrorNotReady ? "is still busy (the device may need a reset)"
                              : drained == cudaSuccess    ? "has drained"
                                                          : fmt::format("reports {}", cudaGetErrorName(drained))));
}

}  // namespace graphdsl::nccl
