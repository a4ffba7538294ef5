// Only kernel, memset and memcpy nodes can be disabled (row 70: the driver says InvalidValue).
// expect: no matching (member )?function for call to .*set_enabled
#include <graphdsl/executable.hpp>

void misuse(graphdsl::Executable& exec, const graphdsl::HostNode& node) { exec.set_enabled(node, false); }
