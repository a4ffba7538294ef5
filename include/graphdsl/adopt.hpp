// graphdsl/adopt.hpp — plans from CUDA graphs built elsewhere: a captured (or hand-built)
// cudaGraph_t becomes a Graph with typed, named nodes that validates, dumps, draws, fingerprints,
// diffs and updates like one written with graphdsl's own add_* calls (docs/adopting.md).
//
//   cudaStream_t s = ...;                                   // a stream of your own (not the legacy one)
//   gd::Graph step = gd::adopt_capture(s, [&](cudaStream_t st) { decode_step(st, kv_pos); });
//   gd::Executable exec = step.instantiate();
//   ...
//   gd::UpdateResult r = exec.update(gd::adopt_capture(s, [&](cudaStream_t st) { decode_step(st, kv_pos + 1); }));
//   // r.changed names the kernels whose arguments moved; only those were patched
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "graphdsl/detail/function_ref.hpp"
#include "graphdsl/graph.hpp"

namespace graphdsl {

/// Returns a plan holding what `native` holds: one node per native node, in the order
/// cudaGraphGetNodes lists them (for a captured graph, the order of capture), and its edges with
/// their kinds. `native` is only read; it stays the caller's.
///
/// What each native node becomes:
/// - a kernel node: its function, grid, block, dynamic shared memory, launch attributes (cluster,
///   cooperative, priority, memory-synchronization domain) and argument bytes, laid out by the
///   function's parameter info (cuFuncGetParamInfo). It is named after the function (demangled,
///   without its parameter list), numbered from the second use on ("axpy", "axpy.2", ...). Its
///   arguments are raw bytes: Executable::set_kernel_arg sets one by position (of the parameter's
///   size), and node_cast<KernelNodeOf<decltype(kernel)>> gives a typed handle where the parameter
///   sizes match;
/// - memset, memcpy (1-D copies as add_memcpy_bytes, others as add_memcpy_3d), host (the function
///   and its user data), empty, event record and wait (the events are borrowed: Event::borrow),
///   and child nodes (the child graph adopted in turn), named after their kind ("memset",
///   "memset.2", ...).
/// Node kinds graphdsl cannot express as a copy (graph memory allocations and frees, whose
/// addresses the driver fixed when they were made; conditional nodes, whose handles the captured
/// kernels hold; external-semaphore and memory-operation nodes) are refused, naming the node.
///
/// @param native the graph to read (not changed, not destroyed)
/// @param name the plan's name (in messages, dumps and DOT output)
/// @throws UsageError naming the native node (its position and CUDA node type) and the reason when a
///         node cannot be adopted; CudaError when a CUDA query fails. Nothing is left behind.
Graph adopt(cudaGraph_t native, std::string name = "adopted");

/// Captures `work(stream)` on `stream` (cudaStreamBeginCapture in `mode`), adopts the captured graph
/// and destroys it: the plan of the work `work` issues. `stream` must be a stream of your own (the
/// legacy default stream cannot capture). If `work` throws, the capture is ended and its graph
/// destroyed before the exception goes on.
/// @param stream the stream to capture on
/// @param work what to capture: it issues its work on the stream it is given
/// @param mode the capture mode (cudaStreamBeginCapture's)
/// @param name the plan's name
/// @throws UsageError as adopt() does; CudaError when the capture fails (for example, `work` made a
///         call that capture does not allow).
Graph adopt_capture(cudaStream_t stream, detail::FunctionRef<void(cudaStream_t)> work,
                    cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal, std::string name = "adopted");

}  // namespace graphdsl
