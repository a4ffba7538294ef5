// src/exec/exec_access.hpp — an executable's state (ExecImpl) for the layers above exec: profile()
// (src/profile/) reads the materialized graph and the plan through it. Nothing here is on the
// launch path.
#pragma once

#include "graphdsl/executable.hpp"
#include "native/native.hpp"

namespace graphdsl::detail {

/// A friend of Executable: its state. @throws UsageError on an empty executable (Executable::impl).
struct ExecAccess {
  static ExecImpl& of(const Executable& e) { return e.impl(); }
};

}  // namespace graphdsl::detail
