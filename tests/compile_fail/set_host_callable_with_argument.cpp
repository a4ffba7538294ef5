// Executable::set_host takes what add_host takes: a callable called with no arguments (row 27).
// expect: graphdsl set_host: the callable must be invocable with no arguments
#include <graphdsl/executable.hpp>

void misuse(graphdsl::Executable& exec, const graphdsl::HostNode& node) {
  exec.set_host(node, [](int) {});
}
