// samples/common/host_nccl.hpp — the NCCL calls the samples' baselines make from the host, looked
// up in the library graphdsl::nccl has loaded (the file named by GRAPHDSL_NCCL_LIBRARY, else
// libnccl.so.2; RTLD_NOLOAD: no second copy is loaded), so that the samples link no NCCL.
#pragma once

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nccl.h>

namespace sample {

struct HostNccl {
  decltype(&::ncclGroupStart) group_start = nullptr;
  decltype(&::ncclGroupEnd) group_end = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclCommGetAsyncError) async_error = nullptr;
  decltype(&::ncclGetErrorString) error_string = nullptr;

  HostNccl() {
    const char* env = std::getenv("GRAPHDSL_NCCL_LIBRARY");
    void* lib = dlopen(env != nullptr && *env != '\0' ? env : "libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) throw std::runtime_error("the NCCL library graphdsl loaded cannot be opened again");
    bind(lib, "ncclGroupStart", group_start);
    bind(lib, "ncclGroupEnd", group_end);
    bind(lib, "ncclAllReduce", all_reduce);
    bind(lib, "ncclCommGetAsyncError", async_error);
    bind(lib, "ncclGetErrorString", error_string);
  }

  void check(ncclResult_t rc, const char* call) const {
    if (rc != ncclSuccess) throw std::runtime_error(fmt::format("{} failed: {}", call, error_string(rc)));
  }

  /// For a non-blocking communicator (graphdsl's Communicators::join makes those): a call that
  /// returned ncclInProgress goes on in the background; wait until `comm` is done with it.
  void check_nonblocking(ncclResult_t rc, ncclComm_t comm, const char* call) const {
    while (rc == ncclInProgress) {
      check(async_error(comm, &rc), "ncclCommGetAsyncError");
      if (rc == ncclInProgress) std::this_thread::yield();
    }
    check(rc, call);
  }

 private:
  template <class F>
  static void bind(void* lib, const char* symbol, F& slot) {
    slot = reinterpret_cast<F>(dlsym(lib, symbol));
    if (slot == nullptr) throw std::runtime_error(fmt::format("{} not found in the NCCL library", symbol));
  }
};

}  // namespace sample
