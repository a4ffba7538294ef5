// graphdsl/nccl.hpp — NCCL collectives as nodes of a plan (link graphdsl::nccl).
//
//   gd::nccl::Communicators comms({0, 1});                     // one communicator per device
//   auto sum = gd::nccl::add_all_reduce<float>(g, comms, {{x0, x0}, {x1, x1}}, n).name("sum");
//
// A collective node is a captured node: when the plan is compiled, each rank's NCCL call is
// captured (NCCL's own graph-capture support) into the plan at the node's place, so the
// collective runs after the node's predecessors on every device and before its successors.
// The communicators come from one process (ncclCommInitAll, one per device), or from a job of many
// processes (one GPU each, or several): joined through a unique id the job's launcher hands to
// every process (Communicators::join), or made by the caller and adopted (Communicators::adopt):
//
//   gd::nccl::UniqueId id = rank == 0 ? gd::nccl::UniqueId::create() : /* rank 0's bytes */;
//   auto comms = gd::nccl::Communicators::join(id, /*world_size=*/2, /*rank=*/rank, /*device=*/0);
//   auto sum = gd::nccl::add_all_reduce<float>(g, comms, {{x, x}}, n).name("sum");  // this rank's buffers
//   exec.launch(stream);
//   gd::nccl::synchronize(exec, stream, std::chrono::seconds(30));  // bounded: NcclError, not a hang
//
// NCCL is optional: graphdsl::nccl exists when CMake found nccl.h, and the library itself is loaded
// at run time (libnccl.so.2, or the file named by the GRAPHDSL_NCCL_LIBRARY environment variable),
// so a program that never builds a collective does not need NCCL installed. available() says
// whether it loaded; everything else throws NcclError when it did not.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "graphdsl/error.hpp"
#include "graphdsl/executable.hpp"
#include "graphdsl/graph.hpp"

namespace graphdsl::nccl {

/// An NCCL call failed, or NCCL could not be loaded. Derives from graphdsl::Error.
class NcclError : public Error {
 public:
  /// @param code    the ncclResult_t (as an int; 0 when NCCL could not be loaded)
  /// @param message the text after the "graphdsl: " prefix
  NcclError(int code, const std::string& message);
  /// The ncclResult_t the call returned (0 when NCCL could not be loaded).
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// The reduction of all_reduce (ncclRedOp_t).
enum class ReduceOp { sum, prod, max, min, avg };
/// Element types of collectives (ncclDataType_t).
enum class DataType { int8, uint8, int32, uint32, int64, uint64, float32, float64 };

/// The DataType of T (int8_t, uint8_t, int32_t, uint32_t, int64_t, uint64_t, float, double).
template <class T>
constexpr DataType data_type_of() {
  using U = std::remove_cv_t<T>;
  static_assert(std::is_arithmetic_v<U> && (sizeof(U) == 1 || sizeof(U) == 4 || sizeof(U) == 8),
                "graphdsl nccl: the element type must be an 8-, 32- or 64-bit integer, float or double");
  if constexpr (std::is_floating_point_v<U>) {
    return sizeof(U) == 4 ? DataType::float32 : DataType::float64;
  } else if constexpr (sizeof(U) == 1) {
    return std::is_signed_v<U> ? DataType::int8 : DataType::uint8;
  } else if constexpr (sizeof(U) == 4) {
    return std::is_signed_v<U> ? DataType::int32 : DataType::uint32;
  } else {
    return std::is_signed_v<U> ? DataType::int64 : DataType::uint64;
  }
}

/// True when the NCCL library could be loaded (once per process). Never throws.
bool available() noexcept;
/// Why available() is false (the loader's message), or an empty string.
std::string unavailable_reason();
/// NCCL's version as ncclGetVersion reports it (e.g. 22803 for 2.28.3). @throws NcclError.
int version();

namespace detail {
struct Clique;
}

/// The bytes of an ncclUniqueId: made once per job (by rank 0, UniqueId::create) and handed by the
/// job's launcher to every process (a file, an environment variable, MPI: graphdsl takes the bytes,
/// it does not pick the transport). to_hex() / from_hex() give a text form for files and variables.
class UniqueId {
 public:
  /// NCCL_UNIQUE_ID_BYTES.
  static constexpr std::size_t size = 128;
  /// The id's bytes (ncclUniqueId::internal).
  using Bytes = std::array<unsigned char, size>;
  /// All zero (not a usable id; join() refuses it).
  UniqueId() noexcept : bytes_{} {}
  /// A new id (ncclGetUniqueId: it also starts the bootstrap root of the job in this process).
  /// @throws NcclError when NCCL is not available or the call fails.
  static UniqueId create();
  /// The id from its bytes. @throws UsageError unless `length` is UniqueId::size.
  static UniqueId from_bytes(const void* data, std::size_t length);
  /// The id from to_hex()'s text (256 hex digits). @throws UsageError naming what is wrong.
  static UniqueId from_hex(std::string_view hex);
  /// The id's bytes, to hand to the other processes.
  const Bytes& bytes() const noexcept { return bytes_; }
  /// 256 lowercase hex digits.
  std::string to_hex() const;
  /// False for the all-zero id of the default constructor.
  explicit operator bool() const noexcept;
  /// True when the bytes are the same.
  friend bool operator==(const UniqueId& a, const UniqueId& b) noexcept { return a.bytes_ == b.bytes_; }
  /// True when the bytes differ.
  friend bool operator!=(const UniqueId& a, const UniqueId& b) noexcept { return !(a == b); }

 private:
  Bytes bytes_;
};

/// Options of Communicators::join.
struct JoinOptions {
  /// How long joining waits for every rank of the world, and any later NCCL call over the
  /// communicators (capture, finalize) waits for NCCL: then NcclError, and the communicators are
  /// aborted. Communicators made by join are non-blocking (ncclConfig_t::blocking = 0) for this.
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

/// Whether Communicators::adopt takes ownership of the communicators it is given.
enum class Ownership {
  borrowed,  ///< the caller keeps them, and destroys them after every plan that uses them
  owned      ///< the last owner of the Communicators finalizes and destroys them
};

/// The NCCL communicators of this process's ranks (one per device), with the streams and events
/// graphdsl uses to capture collectives over them. Local rank i is on devices()[i] and is rank
/// ranks()[i] of a world of world_size() ranks; a collective takes one buffer pair per local rank.
/// Three ways to make one:
///  - Communicators({0, 1}): every rank in this process (ncclCommInitAll); world_size() == size().
///  - Communicators::join(id, world, rank, device): this process's rank(s) of a multi-process job.
///  - Communicators::adopt(comms): communicators the caller made (ncclCommInitRank[Config], Split).
/// Constructing the first two makes no CUDA or NCCL call (so plans with collectives can be built,
/// printed and compared without a GPU): the communicators are created on first use, when a plan
/// holding a collective over them is compiled, or connect() / native_handle() is called; that is
/// also when the devices are checked and NCCL is loaded. Every process of a job must then reach
/// that point (NCCL's initialization is collective), within JoinOptions::timeout for join.
/// Shared ownership: plans with collective nodes (and their executables) keep the communicators
/// alive; the last owner finalizes and destroys them (not adopted borrowed ones).
///
/// Thread-safety: const member functions may run concurrently; the first use and captures over
/// one Communicators are serialized internally.
class Communicators {
 public:
  /// Names one communicator per device in `devices` (distinct device numbers), all of them ranks
  /// of this process; nothing is created yet. @throws UsageError for an empty list, a repeated
  /// device or a negative number.
  explicit Communicators(std::vector<int> devices);
  /// This process's rank `rank` of a job of `world_size` ranks, on device `device`, joined through
  /// `id` (the same bytes in every process). Nothing is created yet (see connect()).
  /// @throws UsageError (no CUDA or NCCL call) for a zero id, world_size < 1, a rank outside
  ///         [0, world_size) or a negative device.
  static Communicators join(const UniqueId& id, int world_size, int rank, int device, const JoinOptions& options = {});
  /// The same for several ranks of this process, rank ranks[i] on devices[i] (distinct ranks,
  /// distinct devices). @throws UsageError as above, and for lists of different lengths.
  static Communicators join(const UniqueId& id, int world_size, std::vector<int> ranks, std::vector<int> devices,
                            const JoinOptions& options = {});
  /// Communicators the caller made (each an ncclComm_t cast to void*, one per device of this
  /// process, all of one world). Asks NCCL for each one's device, rank and world size.
  /// `ownership`: borrowed (default) leaves them to the caller, who destroys them only after every
  /// plan and executable using them; owned hands them over.
  /// @throws UsageError for an empty list, a null communicator, two on one device, or
  ///         communicators of worlds of different sizes; NcclError when NCCL is not available.
  static Communicators adopt(const std::vector<void*>& comms, Ownership ownership = Ownership::borrowed);
  /// The devices of this process's ranks, in local order.
  const std::vector<int>& devices() const noexcept;
  /// The number of this process's ranks (the buffer pairs a collective takes).
  std::size_t size() const noexcept;
  /// The rank in the world of each local rank (0, 1, ... for Communicators(devices)).
  const std::vector<int>& ranks() const noexcept;
  /// The number of ranks of the world, over all processes (size() for Communicators(devices)).
  int world_size() const noexcept;
  /// Creates the communicators now if they are not yet (joining the world: every process must call
  /// it, or compile a plan using them, within the timeout). @throws UsageError if a device does not
  /// exist; NcclError when NCCL is not available, initialization fails, or not every rank joined
  /// within JoinOptions::timeout (the communicators are then aborted; the next call tries again).
  void connect() const;
  /// The ncclComm_t of local rank `rank` (cast it to ncclComm_t); connects first.
  /// @throws UsageError if `rank` is out of range; as connect().
  void* native_handle(std::size_t rank) const;
  /// Internal: the shared state.
  const std::shared_ptr<detail::Clique>& state() const noexcept { return state_; }

 private:
  struct FromState {};
  Communicators(FromState, std::shared_ptr<detail::Clique> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::Clique> state_;
};

/// Waits until `stream` has run what was enqueued on it (e.g. `exec.launch(stream)`), for at most
/// `timeout`, watching the communicators of `exec`'s collective nodes for NCCL's asynchronous
/// errors; then rethrows a host node's error like Executable::synchronize. A collective whose peers
/// never arrive (a process that died or never launched) would otherwise wait forever: when the time
/// runs out or NCCL reports an error, this aborts those communicators (ncclCommAbort: their kernels
/// stop waiting; the communicators cannot be used again, by any plan), waits for the stream to drain
/// and throws NcclError naming the collective nodes. @throws UsageError for an empty executable.
void synchronize(Executable& exec, cudaStream_t stream, std::chrono::milliseconds timeout);

/// The buffers of one local rank: what it sends and where it receives (may be the same for in-place
/// all_reduce and broadcast). Both must be memory of the rank's device.
template <class T>
struct Buffers {
  const T* send = nullptr;  ///< the rank's input
  T* recv = nullptr;        ///< the rank's output
};

/// The collectives a node can run.
enum class Collective { all_reduce, broadcast, all_gather };

/// Untyped buffers of one rank (the typed functions below convert to it).
struct RawBuffers {
  const void* send = nullptr;  ///< the rank's input
  void* recv = nullptr;        ///< the rank's output
};

/// Typed buffers as RawBuffers.
template <class T>
std::vector<RawBuffers> raw(const std::vector<Buffers<T>>& ranks) {
  std::vector<RawBuffers> out;
  out.reserve(ranks.size());
  for (const Buffers<T>& b : ranks) out.push_back(RawBuffers{b.send, b.recv});
  return out;
}

/// The general form: a captured node running `what` over `comms`, one RawBuffers per local rank
/// (comms.size()). `count` is the element count of each rank's input (all_gather: each rank's
/// share); `root` is a rank of the world. Every process of a job adds the same collectives.
/// @throws UsageError (before any CUDA call) when the number of buffers differs from the number of
///         local ranks, a pointer is null, `count` is 0 or `root` is not a rank of the world; the
///         buffers' devices are checked when the plan is compiled.
CapturedNode add_collective(Graph& g, const Communicators& comms, Collective what, const std::vector<RawBuffers>& ranks,
                            std::size_t count, DataType type, ReduceOp op = ReduceOp::sum, int root = 0);

/// All-reduce: every rank's `recv` receives op over all ranks' `send` (`count` elements each).
template <class T>
CapturedNode add_all_reduce(Graph& g, const Communicators& comms, const std::vector<Buffers<T>>& ranks,
                            std::size_t count, ReduceOp op = ReduceOp::sum) {
  return add_collective(g, comms, Collective::all_reduce, raw(ranks), count, data_type_of<T>(), op);
}

/// Broadcast: every rank's `recv` receives rank `root`'s `send` (`count` elements).
template <class T>
CapturedNode add_broadcast(Graph& g, const Communicators& comms, const std::vector<Buffers<T>>& ranks,
                           std::size_t count, int root) {
  return add_collective(g, comms, Collective::broadcast, raw(ranks), count, data_type_of<T>(), ReduceOp::sum, root);
}

/// All-gather: every rank's `recv` (world_size() * count elements) receives all ranks' `send`
/// (`count` elements each), in rank order.
template <class T>
CapturedNode add_all_gather(Graph& g, const Communicators& comms, const std::vector<Buffers<T>>& ranks,
                            std::size_t count) {
  return add_collective(g, comms, Collective::all_gather, raw(ranks), count, data_type_of<T>());
}

/// "all_reduce", "broadcast", "all_gather".
const char* to_string(Collective c) noexcept;
/// "sum", "prod", "max", "min", "avg".
const char* to_string(ReduceOp op) noexcept;
/// "int8", ..., "float64".
const char* to_string(DataType t) noexcept;
/// "borrowed", "owned".
const char* to_string(Ownership o) noexcept;

}  // namespace graphdsl::nccl
