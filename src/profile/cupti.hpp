// src/profile/cupti.hpp — CUPTI, loaded at run time (dlopen on first use: nothing links libcupti),
// and the one checked path every CUPTI call of graphdsl goes through.
//
//   cupti()                         the loaded functions, or ProfilerError saying why there are none
//   GRAPHDSL_CUPTI(fn, args...)     calls cupti().fn, throws ProfilerError naming `fn` and its result
//
// The function types come from CUPTI's own headers (decltype(&::cuptiX)), so the ABI is the headers'.
#pragma once

#include <string>

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_result.h>

#include "graphdsl/profile.hpp"

namespace graphdsl::detail {

/// The CUPTI functions profile() uses. `error` is empty when every one was found.
struct CuptiApi {
  decltype(&::cuptiGetResultString) cuptiGetResultString = nullptr;
  decltype(&::cuptiSubscribe) cuptiSubscribe = nullptr;
#ifdef CUpti_SubscriberParams_STRUCT_SIZE
  decltype(&::cuptiSubscribe_v2) cuptiSubscribe_v2 = nullptr;  ///< optional: names the other profiler
#endif
  decltype(&::cuptiUnsubscribe) cuptiUnsubscribe = nullptr;
  decltype(&::cuptiEnableCallback) cuptiEnableCallback = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) cuptiActivityRegisterCallbacks = nullptr;
  decltype(&::cuptiActivityEnable) cuptiActivityEnable = nullptr;
  decltype(&::cuptiActivityDisable) cuptiActivityDisable = nullptr;
  decltype(&::cuptiActivityFlushAll) cuptiActivityFlushAll = nullptr;
  decltype(&::cuptiActivityGetNextRecord) cuptiActivityGetNextRecord = nullptr;
  decltype(&::cuptiGetGraphNodeId) cuptiGetGraphNodeId = nullptr;
  decltype(&::cuptiGetGraphId) cuptiGetGraphId = nullptr;
  std::string file;   ///< the library loaded (or tried last)
  std::string error;  ///< why CUPTI is not usable; empty when it is
};

/// CUPTI's functions, loaded once per process: GRAPHDSL_CUPTI_PATH if set, else libcupti.so.13,
/// then libcupti.so. Never throws; see CuptiApi::error.
const CuptiApi& cupti_api() noexcept;

/// cupti_api(), or ProfilerError (api "dlopen" or "dlsym") when CUPTI is not usable.
const CuptiApi& cupti();

/// Whether GRAPHDSL_PROFILE_TRACE is set: print every clone and record CUPTI reports to stderr (for
/// maintainers, when a driver numbers graph nodes otherwise than graphdsl expects).
bool trace_requested() noexcept;

/// `api` failed with `rc`: the message names the function, CUPTI's name of the result and what to
/// do about the common ones (another profiler holds CUPTI, insufficient privileges).
[[noreturn]] void throw_cupti(CUptiResult rc, const char* api, const std::string& detail = {});

}  // namespace graphdsl::detail

#define GRAPHDSL_CUPTI(fn, ...)                                                                        \
  do {                                                                                                 \
    const CUptiResult graphdsl_cupti_rc_ = ::graphdsl::detail::cupti().fn(__VA_ARGS__);                \
    if (graphdsl_cupti_rc_ != CUPTI_SUCCESS) ::graphdsl::detail::throw_cupti(graphdsl_cupti_rc_, #fn); \
  } while (false)
