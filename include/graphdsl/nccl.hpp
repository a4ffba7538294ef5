// graphdsl/nccl.hpp — NCCL collectives as nodes of a plan (link graphdsl::nccl).
//
//   gd::nccl::Communicators comms({0, 1});                     // one communicator per device
//   auto sum = gd::nccl::add_all_reduce<float>(g, comms, {{x0, x0}, {x1, x1}}, n).name("sum");
//
// A collective node is a captured node: when the plan is compiled, each rank's NCCL call is
// captured (NCCL's own graph-capture support) into the plan at the node's place, so the
// collective runs after the node's predecessors on every device and before its successors.
// The communicators come from one process (ncclCommInitAll), one per device.
//
// NCCL is optional: graphdsl::nccl exists when CMake found nccl.h, and the library itself is loaded
// at run time (libnccl.so.2, or the file named by the GRAPHDSL_NCCL_LIBRARY environment variable),
// so a program that never builds a collective does not need NCCL installed. available() says
// whether it loaded; everything else throws NcclError when it did not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "graphdsl/error.hpp"
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

/// One NCCL communicator per device, made together by one process (ncclCommInitAll), with the
/// streams and events graphdsl uses to capture collectives over them. Rank r is devices()[r].
/// Constructing one makes no CUDA or NCCL call (so plans with collectives can be built, printed
/// and compared without a GPU): the communicators are created on first use, when a plan holding a
/// collective over them is compiled or native_handle() is called — that is also when the devices
/// are checked and NCCL is loaded.
/// Shared ownership: plans with collective nodes (and their executables) keep the communicators
/// alive; the last owner finalizes and destroys them.
///
/// Thread-safety: const member functions may run concurrently; the first use and captures over
/// one Communicators are serialized internally.
class Communicators {
 public:
  /// Names one communicator per device in `devices` (distinct device numbers); nothing is created
  /// yet. @throws UsageError for an empty list, a repeated device or a negative number.
  explicit Communicators(std::vector<int> devices);
  /// The devices, in rank order.
  const std::vector<int>& devices() const noexcept;
  /// The number of ranks (devices).
  std::size_t size() const noexcept;
  /// The ncclComm_t of rank `rank` (cast it to ncclComm_t); creates the communicators if this is
  /// their first use. @throws UsageError if `rank` is out of range or a device does not exist;
  ///         NcclError when NCCL is not available or ncclCommInitAll fails; CudaError.
  void* native_handle(std::size_t rank) const;
  /// Internal: the shared state.
  const std::shared_ptr<detail::Clique>& state() const noexcept { return state_; }

 private:
  std::shared_ptr<detail::Clique> state_;
};

/// The buffers of one rank: what it sends and where it receives (may be the same for in-place
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

/// The general form: a captured node running `what` over `comms`, one RawBuffers per rank.
/// `count` is the element count of each rank's input (all_gather: each rank's share).
/// @throws UsageError (before any CUDA call) when the number of buffers differs from the number of
///         ranks, a pointer is null, `count` is 0 or `root` is not a rank; the buffers' devices
///         are checked when the plan is compiled.
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

/// All-gather: every rank's `recv` (size() * count elements) receives all ranks' `send` (`count`
/// elements each), in rank order.
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

}  // namespace graphdsl::nccl
