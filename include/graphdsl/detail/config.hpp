// graphdsl/detail/config.hpp — the one place that checks the CUDA toolkit version.
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <cuda_runtime_api.h>

#if !defined(CUDART_VERSION) || CUDART_VERSION < 12030
#error "graphdsl needs the CUDA toolkit 12.3 or newer (conditional nodes and cudaGraphInstantiateWithParams)"
#endif

#if CUDART_VERSION >= 13000
#define GRAPHDSL_CUDA_13 1
#else
#define GRAPHDSL_CUDA_13 0
#endif
