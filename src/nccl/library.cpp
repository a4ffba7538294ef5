// src/nccl/library.cpp — loading NCCL (dlopen on first use), what graphdsl::nccl says about it
// (available, version), the names of its enums and the job's UniqueId.
#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include <fmt/format.h>
#include <nccl.h>

#include "graphdsl/nccl.hpp"
#include "nccl/nccl_internal.hpp"
#include "plan/names.hpp"

namespace graphdsl::nccl {

NcclError::NcclError(int code, const std::string& message) : Error("graphdsl: " + message), code_(code) {}

namespace detail {

namespace {

template <class F>
void bind(void* lib, const char* symbol, F& slot, std::string& error) {
  slot = reinterpret_cast<F>(dlsym(lib, symbol));
  if (slot == nullptr && error.empty()) error = fmt::format("symbol {} not found in the NCCL library", symbol);
}

}  // namespace

const Api& api() {
  static const Api loaded = [] {
    Api a;
    const char* env = std::getenv("GRAPHDSL_NCCL_LIBRARY");
    const std::string file = env != nullptr && *env != '\0' ? env : "libnccl.so.2";
    void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      a.error = fmt::format(
          "NCCL is not available: loading '{}' failed ({}); install NCCL (e.g. the libnccl2 "
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

std::string nccl_text(ncclResult_t rc) {
  return fmt::format("{} ({})", api().ncclGetErrorString(rc), static_cast<int>(rc));
}

}  // namespace detail

using detail::api;
using detail::loaded_api;

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

namespace {

constexpr const char* collective_names[] = {"all_reduce", "broadcast", "all_gather"};
static_assert(std::size(collective_names) == static_cast<std::size_t>(Collective::all_gather) + 1);

constexpr const char* reduce_op_names[] = {"sum", "prod", "max", "min", "avg"};
static_assert(std::size(reduce_op_names) == static_cast<std::size_t>(ReduceOp::avg) + 1);

constexpr const char* data_type_names[] = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "float32", "float64"};
static_assert(std::size(data_type_names) == static_cast<std::size_t>(DataType::float64) + 1);

constexpr const char* ownership_names[] = {"borrowed", "owned"};
static_assert(std::size(ownership_names) == static_cast<std::size_t>(Ownership::owned) + 1);

}  // namespace

const char* to_string(Collective c) noexcept { return graphdsl::detail::name_of(c, collective_names); }
const char* to_string(ReduceOp op) noexcept { return graphdsl::detail::name_of(op, reduce_op_names); }
const char* to_string(DataType t) noexcept { return graphdsl::detail::name_of(t, data_type_names); }
// Anything but `owned` was always printed "borrowed".
const char* to_string(Ownership o) noexcept { return graphdsl::detail::name_of(o, ownership_names, "borrowed"); }

UniqueId UniqueId::create() {
  loaded_api();
  ncclUniqueId native{};
  GRAPHDSL_NCCL(ncclGetUniqueId, "making the unique id of a job", &native);
  return from_bytes(native.internal, sizeof native.internal);
}

UniqueId UniqueId::from_bytes(const void* data, std::size_t length) {
  static_assert(size == NCCL_UNIQUE_ID_BYTES, "UniqueId::size must be NCCL_UNIQUE_ID_BYTES");
  if (data == nullptr || length != size) {
    throw UsageError(fmt::format("nccl::UniqueId::from_bytes: {} bytes given; a unique id has {}", data ? length : 0,
                                 size));
  }
  UniqueId id;
  std::memcpy(id.bytes_.data(), data, size);
  return id;
}

UniqueId UniqueId::from_hex(std::string_view hex) {
  if (hex.size() != 2 * size) {
    throw UsageError(
        fmt::format("nccl::UniqueId::from_hex: {} characters given; a unique id is {} hex digits (to_hex())",
                    hex.size(), 2 * size));
  }
  auto digit = [&](std::size_t i) {
    const char c = hex[i];
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw UsageError(fmt::format("nccl::UniqueId::from_hex: character {} ('{}') is not a hex digit", i,
                                 c >= 0x20 && c < 0x7f ? std::string(1, c)
                                                       : fmt::format("\\x{:02x}", static_cast<unsigned char>(c))));
  };
  UniqueId id;
  for (std::size_t i = 0; i < size; ++i)
    id.bytes_[i] = static_cast<unsigned char>(digit(2 * i) * 16 + digit(2 * i + 1));
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

}  // namespace graphdsl::nccl
