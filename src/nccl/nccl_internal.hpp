// src/nccl/nccl_internal.hpp — what the files of graphdsl::nccl share: the NCCL functions loaded at run
// time (library.cpp), the one checked path for NCCL calls, and the Clique, the state behind
// nccl::Communicators (communicators.cpp), over which the collective nodes capture (collectives.cpp).
//
// NCCL is loaded with dlopen on first use, so that only programs that build collectives need it;
// nccl.h provides the types and the signatures. Every CUDA call goes through graphdsl's one checked
// path (cuda_call.hpp); every NCCL call through nccl_check below.
#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include "graphdsl/nccl.hpp"
#include "native/device_rules.hpp"

namespace graphdsl::nccl::detail {

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

/// The NCCL library, loaded on first use; its `error` says why it is not usable (empty when it is).
const Api& api();

/// api(), or NcclError when NCCL could not be loaded.
const Api& loaded_api();

/// NCCL's text for `rc`, with its number.
std::string nccl_text(ncclResult_t rc);

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
#define GRAPHDSL_NCCL(fn, ...) /* the first argument: what it was for */ \
  ::graphdsl::nccl::detail::nccl_check(#fn, ::graphdsl::nccl::detail::api().fn, __VA_ARGS__)

using Clock = std::chrono::steady_clock;

/// `timeout` as a Clock duration, at most a century: the clock counts nanoseconds in 64 bits, so
/// milliseconds::max() converted to it (or added to now()) would overflow into a deadline in the
/// past, an immediate timeout. Every deadline and elapsed-time comparison goes through it.
inline Clock::duration bounded_timeout(std::chrono::milliseconds timeout) {
  constexpr std::chrono::hours century{24 * 365 * 100};
  return timeout >= century ? Clock::duration(century) : Clock::duration(timeout);
}

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

/// The communicators of one Communicators object and what capturing over them needs: a stream and
/// a join event per local rank, a fork event per device a capture stream is on (made on first use).
/// Its functions are in communicators.cpp.
struct Clique {
  enum class Origin { init_all, join, adopt };
  Origin origin = Origin::init_all;
  std::vector<int> devices;  ///< per local rank
  std::vector<int> ranks;    ///< per local rank: its rank in the world
  int world = 0;
  UniqueId id;                                                  ///< join: the job's id
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};  ///< bound of every wait for NCCL
  bool owned = true;                                            ///< finalize and destroy the communicators at the end
  bool aborted = false;                                         ///< synchronize (or a timed-out wait) aborted them
  std::vector<ncclComm_t> comms;                                ///< empty until first use (ensure), except adopted ones
  std::vector<cudaStream_t> streams;                            ///< per local rank, on the rank's device
  std::vector<cudaEvent_t> joins;                               ///< per local rank, on the rank's device
  std::vector<cudaEvent_t> forks;                               ///< per visible device; null until used
  std::mutex capture;  ///< one capture (or abort) at a time uses the communicators
  std::mutex init;     ///< guards the first use

  /// "devices 0,1" (one process), "rank 1 of 2 on device 0", "ranks 0,1 of 4 on devices 0,1".
  std::string where() const;

  /// The fork event of `device` (the current device), created on first use.
  cudaEvent_t fork_event(int device);

  /// Throws NcclError when the communicators were aborted (they cannot be used again).
  void refuse_if_aborted() const;

  /// Creates the communicators, streams and events on first use (the first compile of a plan with
  /// a collective over them, connect or native_handle). Checks that the devices exist and that
  /// NCCL loads; joining waits for every rank of the world, at most `timeout`.
  void ensure();

  /// Joins the world: one non-blocking ncclCommInitRankConfig per local rank (grouped when there
  /// are several), then waits until every rank of the world has joined, at most `timeout`.
  void join_world(graphdsl::detail::DeviceScope& scope, std::vector<ncclComm_t>& made);

  /// Waits until a non-blocking call over the communicators is done, at most `timeout`; aborts
  /// them and throws NcclError naming `what` otherwise. Called with `capture` held.
  void settle(const std::string& what);

  /// ncclCommAbort of each (a no-op on nulls).
  static void abort(std::vector<ncclComm_t>& list) noexcept;

  /// Takes the communicators out for good (marks the clique aborted, so that nothing calls NCCL on
  /// them again) and returns them for the caller to abort. Called with `capture` held.
  std::vector<ncclComm_t> take_locked() noexcept;

  /// Aborts the communicators for good (their collectives stop waiting). Called with `capture` held.
  void abort_locked() noexcept;

  void release_streams() noexcept;

  void release() noexcept;

  ~Clique() { release(); }
};

}  // namespace graphdsl::nccl::detail
