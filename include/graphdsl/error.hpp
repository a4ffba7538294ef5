// graphdsl/error.hpp — the error family.
//
//   graphdsl::Error        (std::runtime_error) every error graphdsl throws
//   ├── UsageError         misuse found while building or compiling a plan, before any CUDA call
//   └── CudaError          a CUDA call failed; carries the cudaError_t, the API name and the node
//
// Messages start with "graphdsl: " and name the plan node involved, e.g.
//   graphdsl: cudaGraphInstantiateWithParams failed: cudaErrorInvalidValue (invalid argument)
//             at kernel node 'saxpy' (#3)
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include "graphdsl/node_kind.hpp"

namespace graphdsl {

/// Base of every exception graphdsl throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Misuse of the API, detected on the host before any CUDA call is made.
/// The message names the node(s) and the rule that was broken.
class UsageError : public Error {
 public:
  /// @param message the text after the "graphdsl: " prefix (the prefix is added here).
  explicit UsageError(const std::string& message);
};

/// A CUDA runtime call failed. The sticky last error has already been cleared.
class CudaError : public Error {
 public:
  /// @param code   the cudaError_t the call returned
  /// @param api    the CUDA function name, e.g. "cudaGraphLaunch"
  /// @param node   the plan node the call was made for, if any
  /// @param detail extra text appended to the message (a hint, the instantiate result), may be empty
  CudaError(cudaError_t code, std::string api, std::optional<NodeInfo> node = std::nullopt, std::string detail = {});

  /// The cudaError_t the call returned.
  cudaError_t code() const noexcept { return code_; }
  /// The CUDA function that failed, e.g. "cudaGraphLaunch".
  const std::string& api() const noexcept { return api_; }
  /// The plan node the call was made for; empty when the call was not about one node.
  const std::optional<NodeInfo>& node() const noexcept { return node_; }

 private:
  cudaError_t code_;
  std::string api_;
  std::optional<NodeInfo> node_;
};

}  // namespace graphdsl
