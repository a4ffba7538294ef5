// src/profile/cupti.cpp — loading CUPTI and translating its results (src/profile/cupti.hpp).
#include "profile/cupti.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <utility>

#include <fmt/format.h>

namespace graphdsl {

ProfilerError::ProfilerError(int code, std::string api, const std::string& message)
    : Error("graphdsl: " + message), code_(code), api_(std::move(api)) {}

namespace detail {
namespace {

template <class F>
void bind(void* lib, const char* symbol, F& slot, std::string& error, bool required = true) {
  slot = reinterpret_cast<F>(dlsym(lib, symbol));
  if (slot == nullptr && required && error.empty()) error = fmt::format("symbol {} not found", symbol);
}

/// dlopen of the first of the candidates that loads; `why` collects each failure.
void* open_cupti(std::string& file, std::string& why) {
  const char* env = std::getenv("GRAPHDSL_CUPTI_PATH");
  const bool named = env != nullptr && *env != '\0';
  const char* const defaults[] = {"libcupti.so.13", "libcupti.so"};
  for (std::size_t k = 0; k < (named ? 1u : 2u); ++k) {
    file = named ? env : defaults[k];
    void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) return lib;
    const char* e = dlerror();
    why += fmt::format("{}'{}': {}", why.empty() ? "" : "; ", file, e != nullptr ? e : "unknown reason");
  }
  return nullptr;
}

CuptiApi load() {
  CuptiApi a;
  std::string why;
  void* lib = open_cupti(a.file, why);
  if (lib == nullptr) {
    a.error = fmt::format(
        "CUPTI is not available: loading it failed ({}); install the CUDA toolkit's CUPTI "
        "(extras/CUPTI/lib64 or lib64/libcupti.so.13), put its folder on LD_LIBRARY_PATH or name the "
        "library in GRAPHDSL_CUPTI_PATH",
        why);
    return a;
  }
  bind(lib, "cuptiGetResultString", a.cuptiGetResultString, a.error);
  bind(lib, "cuptiSubscribe", a.cuptiSubscribe, a.error);
#ifdef CUpti_SubscriberParams_STRUCT_SIZE
  bind(lib, "cuptiSubscribe_v2", a.cuptiSubscribe_v2, a.error, false);
#endif
  bind(lib, "cuptiUnsubscribe", a.cuptiUnsubscribe, a.error);
  bind(lib, "cuptiEnableCallback", a.cuptiEnableCallback, a.error);
  bind(lib, "cuptiActivityRegisterCallbacks", a.cuptiActivityRegisterCallbacks, a.error);
  bind(lib, "cuptiActivityEnable", a.cuptiActivityEnable, a.error);
  bind(lib, "cuptiActivityDisable", a.cuptiActivityDisable, a.error);
  bind(lib, "cuptiActivityFlushAll", a.cuptiActivityFlushAll, a.error);
  bind(lib, "cuptiActivityGetNextRecord", a.cuptiActivityGetNextRecord, a.error);
  bind(lib, "cuptiGetGraphNodeId", a.cuptiGetGraphNodeId, a.error);
  bind(lib, "cuptiGetGraphId", a.cuptiGetGraphId, a.error);
  if (!a.error.empty()) {
    a.error = fmt::format("CUPTI is not usable: '{}': {} (a CUPTI older than CUDA 12.3's?)", a.file, a.error);
  }
  return a;
}

}  // namespace

bool trace_requested() noexcept {
  static const bool on = std::getenv("GRAPHDSL_PROFILE_TRACE") != nullptr;
  return on;
}

const CuptiApi& cupti_api() noexcept {
  static const CuptiApi loaded = [] {
    try {
      return load();
    } catch (...) {  // fmt's allocations: the only throwing part
      CuptiApi a;
      a.error = "CUPTI is not available: out of memory while loading it";
      return a;
    }
  }();
  return loaded;
}

const CuptiApi& cupti() {
  const CuptiApi& a = cupti_api();
  if (!a.error.empty()) throw ProfilerError(0, a.cuptiGetResultString == nullptr ? "dlopen" : "dlsym", a.error);
  return a;
}

void throw_cupti(CUptiResult rc, const char* api, const std::string& detail) {
  const char* name = nullptr;
  const CuptiApi& a = cupti_api();
  if (a.cuptiGetResultString == nullptr || a.cuptiGetResultString(rc, &name) != CUPTI_SUCCESS) name = nullptr;
  std::string hint;
  if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    hint =
        ": another profiler holds CUPTI (Nsight Systems, Nsight Compute, compute-sanitizer, cuda-gdb or "
        "another subscriber in this process); run without it, or use its own trace with the name map "
        "(graphdsl::to_name_map)";
  } else if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    hint = ": this user may not profile the GPU (NVreg_RestrictProfilingToAdminUsers)";
  }
  throw ProfilerError(static_cast<int>(rc), api,
                      fmt::format("{} failed: {} ({}){}{}{}", api, name != nullptr ? name : "CUPTI_ERROR",
                                  static_cast<int>(rc), detail.empty() ? "" : " ", detail, hint));
}

}  // namespace detail
}  // namespace graphdsl
