// src/native/device_rules.hpp — where nodes run: the compile-time device checks and the switch of the
// current device while nodes are created or patched (the placement rules that need no CUDA call and
// node_device are plan/placement.hpp, included here for the code that places nodes).
#pragma once

#include <cstdint>
#include <string>

#include "plan/graph_impl.hpp"
#include "plan/placement.hpp"

namespace graphdsl::detail {

/// The checks that need CUDA, for plans that use devices (uses_devices): every device named
/// exists, each peer copy's pointers are memory of the devices named for them and peer access
/// between the two is available (then enabled), every peer named by an allocation can access it.
/// @throws UsageError naming the node and the devices; CudaError when a query itself fails.
void check_devices(const GraphImpl& g);
/// The same checks of the nodes of `g` (a plan, or one nested in it: a child's), `count` devices
/// existing and `current` the current one (where unplaced nodes run).
void check_devices_in(const GraphImpl& g, int count, int current);
/// "this process sees N CUDA devices (0 to N-1)", for the refusals of the checks above.
std::string devices_seen(int count);
/// Whether `device` can access `peer`'s memory (cudaDeviceCanAccessPeer).
bool can_access_peer(int device, int peer);

/// Makes `device` current for the lifetime of the object and restores the previous device after
/// (no CUDA call when `device` is -1 or already current).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (device >= 0) use(device);  // inline: -1 (no switch) is the setters' hot path
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  ~DeviceScope() {
    if (current_ != home_) restore();
  }
  /// Switches to `device` (-1: back to the device current at construction).
  void use(int device);
  /// The device current at construction.
  int home() const noexcept { return home_; }

 private:
  /// Makes the home device current again (the destructor, after a switch).
  void restore() noexcept;

  int home_ = -1;
  int current_ = -1;
};

}  // namespace graphdsl::detail
