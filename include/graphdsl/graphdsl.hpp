// graphdsl/graphdsl.hpp — the umbrella header: includes every public header but format.hpp
// (fmt formatters: include <graphdsl/format.hpp> for them; it keeps fmt out of every other TU),
// cache.hpp (ExecutableCache: include <graphdsl/cache.hpp>; it keeps <functional> and
// <unordered_map> out of every other TU, docs/performance.md "Include cost") and nccl.hpp
// (graphdsl::nccl, a library of its own).
//
//   version.hpp     library version
//   error.hpp       Error, UsageError, CudaError
//   node_kind.hpp   NodeKind, NodeInfo
//   node.hpp        Node and the typed node handles
//   launch.hpp      Launch (grid, block, shared memory, priority)
//   event.hpp       Event (shared cudaEvent_t owner)
//   device_value.hpp DeviceValue<T> (a device scalar with a fixed address)
//   device_graph.hpp DeviceGraph (an executable launched from device code: fire-and-forget, tail, sibling)
//   device_node.hpp DeviceKernelNode<P...> (device handle of a device-updatable kernel node)
//   condition.hpp   Condition, ConditionalType, Compare
//   buffer.hpp      GraphBuffer<T>, MemAllocOptions (graph memory)
//   parameter.hpp   Parameter<T> (shared parameters), ParameterSet
//   graph.hpp       Graph (the plan)
//   executable.hpp  Executable, InstantiateOptions
//   adopt.hpp       adopt(), adopt_capture(): a captured cudaGraph_t as a plan
//   update.hpp      UpdateResult, UpdateStatus, UpdatePolicy, diff()
//   prepared_update.hpp PreparedUpdate (Executable::prepare_update: a template applied many times)
//   debug.hpp       live-object and CUDA-call counters
//   profile.hpp     profile(): per-node device times through CUPTI (loaded at run time), and
//                   the table, CSV, Chrome-trace, name-map and heat-map DOT writers
//   access.hpp, races.hpp  gd::reads / gd::writes, Graph::check_races() and its RaceReport
#pragma once

#include "graphdsl/adopt.hpp"
#include "graphdsl/buffer.hpp"
#include "graphdsl/condition.hpp"
#include "graphdsl/debug.hpp"
#include "graphdsl/device_graph.hpp"
#include "graphdsl/device_node.hpp"
#include "graphdsl/device_value.hpp"
#include "graphdsl/error.hpp"
#include "graphdsl/event.hpp"
#include "graphdsl/executable.hpp"
#include "graphdsl/graph.hpp"
#include "graphdsl/instantiate_options.hpp"
#include "graphdsl/launch.hpp"
#include "graphdsl/node.hpp"
#include "graphdsl/node_kind.hpp"
#include "graphdsl/node_params.hpp"
#include "graphdsl/parameter.hpp"
#include "graphdsl/prepared_update.hpp"
#include "graphdsl/profile.hpp"
#include "graphdsl/races.hpp"
#include "graphdsl/update.hpp"
#include "graphdsl/version.hpp"
