// graphdsl/profile.hpp — where a graph spends its device time, in the plan's own node names.
//
//   gd::Profile p = gd::profile(exec, stream, 10);  // 10 launches, traced through CUPTI
//   std::cout << gd::to_table(p);                   // name, kind, count, total/mean/min/max us, %
//   write("trace.json", gd::to_chrome_trace(p));    // chrome://tracing or ui.perfetto.dev
//   write("heat.dot", gd::to_dot(p));               // the plan coloured by time, critical path marked
//   write("names.json", gd::to_name_map(p));        // plan name <-> graph node id, for Nsight Systems
//
// profile() loads CUPTI at run time (dlopen: nothing links it), traces the kernel, memcpy and memset
// work of `launches` launches of the executable, and attributes each record to the plan node (of
// the top-level plan, a child plan or a conditional body) whose native node ran it, by the graph
// node id CUPTI puts in the record. Nothing changes in Executable::launch: all profiling state
// lives in the profile() call. A Profile is plain data, and the writers are pure functions of it
// (docs/profiling.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "graphdsl/error.hpp"
#include "graphdsl/node_kind.hpp"

namespace graphdsl {

class Executable;

/// CUPTI, the profiling interface profile() uses, is missing, unusable, held by another profiler
/// (Nsight Systems, Nsight Compute, another CUPTI subscriber), or one of its calls failed. Not a
/// CudaError: CUPTI's results are not cudaError_t values.
class ProfilerError : public Error {
 public:
  /// @param code    the CUptiResult (0 when no CUPTI call failed: the library could not be loaded)
  /// @param api     the CUPTI function that failed, or "dlopen"
  /// @param message the text after the "graphdsl: " prefix (the prefix is added here)
  ProfilerError(int code, std::string api, const std::string& message);
  /// The CUptiResult of the failed call (0 when the library could not be loaded).
  int code() const noexcept { return code_; }
  /// The CUPTI function that failed, e.g. "cuptiSubscribe", or "dlopen".
  const std::string& api() const noexcept { return api_; }

 private:
  int code_;
  std::string api_;
};

/// What kind of device work a trace record is.
enum class ProfileWork : std::uint8_t {
  kernel,  ///< a kernel (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
  memcpy,  ///< a memory copy (CUPTI_ACTIVITY_KIND_MEMCPY)
  memset,  ///< a memory set (CUPTI_ACTIVITY_KIND_MEMSET)
};

/// The name of a ProfileWork value: "kernel", "memcpy", "memset".
const char* to_string(ProfileWork work) noexcept;

/// One plan node of the profiled executable and the device time attributed to it.
struct ProfileNode {
  std::string path;                  ///< unique: "upload", "loop[0]/step" (body 0 of node 'loop'), "sub/#2" (unnamed)
  std::string name;                  ///< the node's own name; empty when it was never named
  NodeKind kind = NodeKind::empty;   ///< what the node does
  std::string graph;                 ///< the name of the plan that holds it
  std::uint32_t index = 0;           ///< its position in that plan
  std::int32_t parent = -1;          ///< the entry (in Profile::nodes) of the node embedding its plan; -1: top level
  std::uint32_t slot = 0;            ///< the body of that conditional node (0 for a child plan)
  std::vector<std::uint32_t> after;  ///< the entries of its predecessors in its plan
  std::vector<std::uint64_t> node_ids;  ///< CUPTI graph node ids of its native node(s), its own first
  std::uint64_t count = 0;              ///< records attributed to it (a WHILE body node: one per iteration)
  std::uint64_t total_ns = 0;           ///< their summed durations
  std::uint64_t min_ns = 0;             ///< the shortest (0 when count is 0)
  std::uint64_t max_ns = 0;             ///< the longest
};

/// One kernel, memcpy or memset CUPTI recorded, as a trace entry.
struct ProfileRecord {
  ProfileWork work = ProfileWork::kernel;  ///< what it is
  std::string what;                        ///< the kernel's name, or the copy's direction ("HtoD", ...)
  std::uint64_t start_ns = 0;              ///< CUPTI timestamps (ns)
  std::uint64_t end_ns = 0;                ///< end of the work (ns)
  std::uint32_t device = 0;                ///< device id
  std::uint32_t stream = 0;                ///< CUPTI's stream id (one trace track each)
  std::uint32_t correlation = 0;           ///< the launch's correlation id (one per cudaGraphLaunch)
  std::uint64_t graph_node_id = 0;         ///< the graph node id CUPTI reported
  std::int32_t node = -1;                  ///< the entry of Profile::nodes it is attributed to; -1: unattributed
};

/// The result of profile(): plain data, built by hand in tests.
struct Profile {
  std::string graph;                     ///< the profiled plan's name
  std::uint32_t launches = 0;            ///< how many launches were traced
  std::vector<ProfileNode> nodes;        ///< every node of the plan and of its nested plans, parents first
  std::vector<ProfileRecord> records;    ///< every record, in start order
  std::uint64_t unattributed = 0;        ///< records with no plan node (never guessed: see notes)
  std::vector<std::uint64_t> launch_ns;  ///< each launch's device time by cudaEvents around it
  std::vector<std::string> notes;        ///< what could not be mapped, and why
};

/// Launches `exec` `launches` times on `stream` (after synchronizing it) with CUPTI tracing its
/// kernels, copies and sets, synchronizes, and returns the device time of each plan node.
/// CUPTI is loaded on first use: GRAPHDSL_CUPTI_PATH names the library, else libcupti.so.13, then
/// libcupti.so are tried. Host callbacks of the launches run as usual; their exceptions are
/// re-thrown as by Executable::synchronize. Compile the executable after profiler_attach(): CUPTI's
/// records may name the executable's clones of the graph's nodes, which are known only then (a
/// record no node matches is counted in Profile::unattributed, never guessed).
/// @throws ProfilerError when CUPTI cannot be loaded, another profiler holds it, or a CUPTI call
///         fails; UsageError for an empty executable or `launches` < 1; CudaError from the launches.
Profile profile(Executable& exec, cudaStream_t stream, int launches = 1);

/// Subscribes graphdsl to CUPTI for the rest of the process (until profiler_detach()), so that the
/// executables compiled from now on have the graph node ids of their own nodes recorded:
/// cudaGraphInstantiate clones a graph into the executable, and CUPTI's records may name the
/// clones. Call it once, before instantiate(), where you mean to profile. It enables no tracing
/// (launches are unchanged until profile()) but holds CUPTI: Nsight tools cannot attach meanwhile.
/// Calling it again does nothing.
/// @throws ProfilerError when CUPTI cannot be loaded or another profiler holds it.
void profiler_attach();

/// Ends what profiler_attach() started (a profile() in progress keeps its own subscription).
void profiler_detach() noexcept;

/// The nodes of `exec` (Profile::nodes with their graph node ids; no records, no launch) for
/// to_name_map() and a Profile of no launches: CUPTI is loaded for cuptiGetGraphNodeId but not
/// subscribed, so this also works while Nsight Systems holds CUPTI (profile() then refuses).
/// @throws ProfilerError when CUPTI cannot be loaded; UsageError for an empty executable.
Profile profile_nodes(const Executable& exec);

/// Whether profile() can load CUPTI (loads it on the first call; never throws).
bool profiler_available() noexcept;

/// The sum of ProfileNode::total_ns over every node (the device time the records cover).
std::uint64_t attributed_ns(const Profile& p) noexcept;

/// A fixed-width table, one row per node in Profile::nodes order: path, kind, count, total, mean,
/// min and max microseconds and % of the launches' device time (Profile::launch_ns; the records'
/// span when empty). A child or conditional node shows the total of the nodes it holds, in brackets.
std::string to_table(const Profile& p);

/// The same as CSV: path,name,kind,graph,count,total_us,mean_us,min_us,max_us,percent (RFC 4180 quoting).
std::string to_csv(const Profile& p);

/// Chrome trace / Perfetto JSON ("traceEvents"): one complete event ("ph":"X") per record, named
/// after its plan node, on one track per (device, stream) CUPTI reported, timestamps in microseconds
/// from the first record.
std::string to_chrome_trace(const Profile& p);

/// The name map for Nsight Systems users: JSON with one object per node, its path, name, kind and
/// graph node ids (what an `nsys --cuda-graph-trace=node` report shows), so a report can be labelled.
std::string to_name_map(const Profile& p);

/// The plan's picture (Graphviz DOT) with each node filled by its time (white: none, red: the
/// slowest node), nested plans as dashed clusters (a child or conditional node shows, in brackets,
/// the time of what it holds), and the critical path (the longest chain of node times per launch
/// through each plan's edges, and inside the nested plans of the nodes on it) drawn bold.
std::string to_dot(const Profile& p);

}  // namespace graphdsl
