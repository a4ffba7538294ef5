// src/plan/graph_build.hpp — what graph.cpp shares with the `make` sections of src/kinds/<kind>.cpp
// (the Graph::add_* of each node kind).
#pragma once

#include <cstdint>

namespace graphdsl::detail {

/// The device number of on_device / set_default_device / add_memcpy_peer, checked for its form
/// only (whether the device exists is checked when the plan is compiled).
/// @throws UsageError naming `what` for a number below -1 or above INT16_MAX.
std::int16_t device_number(int device, const char* what);

}  // namespace graphdsl::detail
