// src/exec/device_graph.cpp — Executable::device_graph(): the checked way from an executable to the
// handle device code launches it with (graphdsl/device_graph.hpp). No CUDA call: whether the
// executable was uploaded since it was compiled or changed is tracked by the executable itself
// (ExecImpl::upload: set by upload(), upload_on and host launches, made stale by update() and the
// setters), as CUDA gives no way to ask.
#include <string>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/executable.hpp"
#include "native/native.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl {

DeviceGraph Executable::device_graph() const {
  const detail::ExecImpl& x = impl();  // throws on an empty or moved-from executable
  const std::string graph = detail::quoted(detail::plan_name(x.plan.impl()));
  if ((x.flags & cudaGraphInstantiateFlagDeviceLaunch) == 0) {
    throw UsageError(
        fmt::format("graph {}: device_graph() needs an executable compiled for device launch "
                    "(cudaGraphInstantiateFlagDeviceLaunch); compile the plan with "
                    "InstantiateOptions().device_launch()",
                    graph));
  }
  if (x.upload != detail::ExecImpl::Upload::done) {
    const bool never = x.upload == detail::ExecImpl::Upload::never;
    throw UsageError(fmt::format(
        "graph {}: device_graph(): the executable {}; device launch runs the executable as last uploaded, so "
        "it must be uploaded after it is compiled and after every change: call upload(stream){} or launch it "
        "once from the host, before device code launches it",
        graph,
        never ? "has not been uploaded since it was compiled"
              : "was changed on the host (update() or a setter) since it was last uploaded",
        never ? ", compile it with InstantiateOptions().device_launch().upload_on(stream)," : ""));
  }
  return DeviceGraph(x.exec.get());
}

}  // namespace graphdsl
