// src/nccl/communicators.cpp — nccl::Communicators and the Clique behind it: making, joining or adopting
// the communicators, their streams and events, waiting for NCCL, aborting and releasing them.
#include <algorithm>
#include <cstring>
#include <mutex>

#include <fmt/format.h>
#include <nccl.h>

#include "graphdsl/nccl.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "nccl/nccl_internal.hpp"

namespace graphdsl::nccl {

namespace detail {

using graphdsl::detail::cuda_try;

namespace {

std::string device_list(const std::vector<int>& devices) {
  std::string s;
  for (std::size_t r = 0; r < devices.size(); ++r) s += fmt::format("{}{}", r ? "," : "", devices[r]);
  return s;
}

/// The state of communicators after a non-blocking call: ncclSuccess when every one is done, the
/// first error one reports, or ncclInProgress when `timeout` passed first.
ncclResult_t wait_ready(const std::vector<ncclComm_t>& comms, std::chrono::milliseconds timeout) {
  const Clock::time_point end = Clock::now() + bounded_timeout(timeout);
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

std::string Clique::where() const {
  if (origin == Origin::init_all) return fmt::format("devices {}", device_list(devices));
  const bool one = ranks.size() == 1;
  return fmt::format("rank{} {} of {} on device{} {}", one ? "" : "s", device_list(ranks), world, one ? "" : "s",
                     device_list(devices));
}

cudaEvent_t Clique::fork_event(int device) {
  cudaEvent_t& e = forks[static_cast<std::size_t>(device)];
  if (e == nullptr) GRAPHDSL_CHECK(cudaEventCreateWithFlags, &e, static_cast<unsigned>(cudaEventDisableTiming));
  return e;
}

void Clique::refuse_if_aborted() const {
  if (aborted) {
    throw NcclError(0, fmt::format("the NCCL communicators over {} were aborted (a collective did not finish in "
                                   "time, see nccl::synchronize); make new communicators and plans",
                                   where()));
  }
}

void Clique::ensure() {
  const std::lock_guard<std::mutex> lock(init);
  refuse_if_aborted();
  if (!streams.empty() && !comms.empty()) return;
  release_streams();  // what a failed first attempt left
  int count = 0;
  GRAPHDSL_CHECK(cudaGetDeviceCount, &count);
  for (int d : devices) {
    if (d >= count) {
      throw UsageError(
          fmt::format("nccl::Communicators: device {} does not exist; this process sees {} CUDA "
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

void Clique::join_world(graphdsl::detail::DeviceScope& scope, std::vector<ncclComm_t>& made) {
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

void Clique::settle(const std::string& what) {
  const ncclResult_t state = wait_ready(comms, timeout);
  if (state == ncclSuccess) return;
  abort_locked();
  throw NcclError(static_cast<int>(state),
                  state == ncclInProgress
                      ? fmt::format("{}: NCCL did not finish within {} ms; the communicators were aborted", what,
                                    timeout.count())
                      : fmt::format("{}: NCCL reports {}; the communicators were aborted", what, nccl_text(state)));
}

void Clique::abort(std::vector<ncclComm_t>& list) noexcept {
  for (ncclComm_t& c : list) {
    if (c != nullptr) (void)api().ncclCommAbort(c);
    c = nullptr;
  }
}

std::vector<ncclComm_t> Clique::take_locked() noexcept {
  std::vector<ncclComm_t> taken;
  taken.swap(comms);
  aborted = true;
  return taken;
}

void Clique::abort_locked() noexcept {
  std::vector<ncclComm_t> taken = take_locked();
  abort(taken);
}

void Clique::release_streams() noexcept {
  for (cudaEvent_t e : joins) (void)cuda_try(cudaEventDestroy, e);
  for (cudaEvent_t e : forks) {
    if (e != nullptr) (void)cuda_try(cudaEventDestroy, e);
  }
  for (cudaStream_t s : streams) (void)cuda_try(cudaStreamDestroy, s);
  joins.clear();
  forks.clear();
  streams.clear();
}

void Clique::release() noexcept {
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

}  // namespace detail

using detail::device_list;
using detail::loaded_api;

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

Communicators Communicators::join(const UniqueId& id, int world_size, int rank, int device,
                                  const JoinOptions& options) {
  return join(id, world_size, std::vector<int>{rank}, std::vector<int>{device}, options);
}

Communicators Communicators::join(const UniqueId& id, int world_size, std::vector<int> ranks, std::vector<int> devices,
                                  const JoinOptions& options) {
  const char* who = "nccl::Communicators::join";
  if (!id)
    throw UsageError(
        fmt::format("{}: the unique id is all zero; make it with UniqueId::create() in one process "
                    "and hand its bytes to the others",
                    who));
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
  // An unknown value would silently read as borrowed: the communicators then never destroyed.
  (void)graphdsl::detail::checked_enum(ownership, Ownership::owned, who, "Ownership",
                                       "an ownership (borrowed or owned)");
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
      throw UsageError(
          fmt::format("{}: communicator {} belongs to a world of {} ranks, communicator 0 to one of {}; "
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

}  // namespace graphdsl::nccl
