// graphdsl/detail/config.hpp — the one place that checks the CUDA toolkit version.
//
// Internal: not part of graphdsl's API and left out of its reference (docs/api-overview.md);
// names here may change in any release.
#pragma once

#include <cuda_runtime_api.h>

#if !defined(CUDART_VERSION) || CUDART_VERSION < 12030
#error "graphdsl needs the CUDA toolkit 12.3 or newer (conditional nodes and cudaGraphInstantiateWithParams)"
#endif

// What the toolkit graphdsl is compiled with offers, one macro per feature (1 or 0); code tests these,
// never CUDART_VERSION itself.

/// CUDA 13.0: the runtime's graph calls take edge data (cudaGraphAddDependencies with cudaGraphEdgeData).
#if CUDART_VERSION >= 13000
#define GRAPHDSL_CUDA_13 1
#else
#define GRAPHDSL_CUDA_13 0
#endif

/// CUDA 12.4: device-updatable kernel nodes (cudaGraphDeviceNode_t, cudaGraphKernelNodeUpdatesApply).
#if CUDART_VERSION >= 12040
#define GRAPHDSL_HAS_DEVICE_NODES 1
#else
#define GRAPHDSL_HAS_DEVICE_NODES 0
#endif

/// CUDA 12.5: cudaGetDriverEntryPointByVersion (the driver's entry points, for the driver-first calls).
#if CUDART_VERSION >= 12050
#define GRAPHDSL_HAS_DRIVER_ENTRY 1
#else
#define GRAPHDSL_HAS_DRIVER_ENTRY 0
#endif

/// CUDA 12.8: IF-ELSE and SWITCH conditional nodes (cudaGraphCondTypeSwitch), cudaStreamGetDevice.
#if CUDART_VERSION >= 12080
#define GRAPHDSL_HAS_SWITCH 1
#else
#define GRAPHDSL_HAS_SWITCH 0
#endif
