// src/native/device_rules.cpp — multi-device plans: the compile-time device checks (the placement rules
// that need no CUDA call are plan/placement.cpp) and the switch of the current device.
#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "native/kind_build.hpp"
#include "plan/placement.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl::detail {

std::string devices_seen(int count) {
  return count == 1 ? "this process sees 1 CUDA device (0)"
                    : fmt::format("this process sees {} CUDA devices (0 to {})", count, count - 1);
}

bool can_access_peer(int device, int peer) {
  int can = 0;
  GRAPHDSL_CHECK(cudaDeviceCanAccessPeer, &can, device, peer);
  return can != 0;
}

namespace {
int device_count() {
  int count = 0;
  GRAPHDSL_CHECK(cudaGetDeviceCount, &count);
  return count;
}

/// The device whose memory `ptr` is, or -1 for host or unregistered memory.
int device_of_pointer(const void* ptr) {
  cudaPointerAttributes a{};
  GRAPHDSL_CHECK(cudaPointerGetAttributes, &a, ptr);
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? a.device : -1;
}

/// Lets `device` access `peer`'s memory (idempotent).
void enable_peer_access(int device, int peer) {
  DeviceScope scope(device);
  const cudaError_t rc = cuda_try(cudaDeviceEnablePeerAccess, peer, 0u);
  if (rc != cudaSuccess && rc != cudaErrorPeerAccessAlreadyEnabled) throw_cuda(rc, "cudaDeviceEnablePeerAccess");
}

void check_pointer_device(const GraphImpl& g, std::uint32_t i, const void* ptr, int device, const char* which) {
  if (ptr == nullptr) return;  // a graph buffer, or refused by check_node
  const int actual = device_of_pointer(ptr);
  if (actual != device) {
    refuse_placement(g, i, {},
                     actual < 0
                         ? fmt::format("the {} of a peer copy named device {} is not device memory", which, device)
                         : fmt::format("the {} of a peer copy is memory of device {}, not of device {} as named", which,
                                       actual, device));
  }
}

}  // namespace

void check_devices_in(const GraphImpl& g, int count, int current) {
  for (std::uint32_t i = 0; i < node_count(g); ++i) {
    if (const int device = placed_device(g, i); device >= count)
      refuse_placement(g, i, {}, fmt::format("is placed on device {}, but {}", device, devices_seen(count)));
    // the kind's own checks: an allocation's peers, a child plan's nodes
    if (const auto check = build_ops(node_kind(g, i)).check_devices) check(g, i, count, current);
  }
  for (const PeerCopy& p : peer_copies_of(g)) {
    for (int d : {p.src_device, p.dst_device}) {
      if (d >= count)
        refuse_placement(g, p.node, {},
                         fmt::format("copies between device {} and device {}, but {}", p.src_device, p.dst_device,
                                     devices_seen(count)));
    }
    if (!can_access_peer(p.dst_device, p.src_device) || !can_access_peer(p.src_device, p.dst_device)) {
      refuse_placement(g, p.node, {},
                       fmt::format("peer access between device {} and device {} is not available "
                                   "(cudaDeviceCanAccessPeer); use add_memcpy, which the driver stages through "
                                   "host memory",
                                   p.src_device, p.dst_device));
    }
    const cudaMemcpy3DParms& c = memcpy_of(g, p.node);
    check_pointer_device(g, p.node, c.srcPtr.ptr, p.src_device, "source");
    check_pointer_device(g, p.node, c.dstPtr.ptr, p.dst_device, "destination");
    enable_peer_access(p.dst_device, p.src_device);
    enable_peer_access(p.src_device, p.dst_device);
  }
}

void check_devices(const GraphImpl& g) {
  int current = 0;
  GRAPHDSL_CHECK(cudaGetDevice, &current);
  check_devices_in(g, device_count(), current);
}

void DeviceScope::use(int device) {
  if (device < 0) device = home_;
  if (device == current_ || device < 0) return;
  if (home_ < 0) {
    GRAPHDSL_CHECK(cudaGetDevice, &home_);
    current_ = home_;
    if (device == current_) return;
  }
  GRAPHDSL_CHECK(cudaSetDevice, device);
  current_ = device;
}

void DeviceScope::restore() noexcept { (void)cuda_try(cudaSetDevice, home_); }

}  // namespace graphdsl::detail
