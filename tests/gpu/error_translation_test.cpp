// tests/gpu/error_translation_test.cpp — the misuse catalogue's MAT rows (errors only the driver can
// find, at node creation, capture, instantiate, launch or a per-node setter) as one table of cases.
//
// Each case provokes one failure through graphdsl and checks the CudaError it gets: the cudaError_t
// the driver returned (as measured on an H200), the CUDA API named, the user's node named in the
// message, and text the message must hold (the node's context in child plans and bodies, a hint).
// Then the context must still be usable: no sticky error left, graphdsl's live counters back where
// they were, and a fresh plan compiles, launches and computes the right values. No case makes a
// kernel fault, so none leaves the context unusable on purpose; still, each runs in a child process
// (this program again), so that a driver crash or hang fails that case and not the suite.
//
// Sections are named "row <catalogue row>: <misuse>"; at exit the suite prints
//   GPU error translation: N cases over M catalogue rows
// counting the cases that passed every check (failed and skipped cases are listed after it).
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_support.hpp"

using namespace gpu_test;

extern char** environ;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where N and Buffers would collide with other files'.
namespace error_translation_test {

namespace {

constexpr int N = 256;

/// A host function with add_scalar's signature: not a __global__ kernel.
void not_a_kernel(float* x, float v, int n) {
  for (int i = 0; i < n; ++i) x[i] += v;
}

// ---- the table ---------------------------------------------------------------------------------

/// What a case's CudaError must carry.
struct Expected {
  cudaError_t code;
  const char* api;
  const char* node;  ///< the user's node name; nullptr: a whole-graph failure (no node; the graph is named)
  gd::NodeKind kind;
  std::vector<std::string> text;  ///< substrings of what()
};

/// A raw CUDA event owned for one case.
struct RawEvent {
  RawEvent() { GPU_REQUIRE(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
  ~RawEvent() { (void)cudaEventDestroy(e); }
  RawEvent(const RawEvent&) = delete;
  RawEvent& operator=(const RawEvent&) = delete;
  cudaEvent_t e = nullptr;
};

/// What a case may use; made fresh for each case.
struct Env {
  DeviceBuffer<float> d{N};
  DeviceBuffer<float> spare{16};
  Stream side;
  RawEvent event;
};

struct Case {
  const char* phase;  ///< materialize, capture, instantiate, launch or setter
  int row;            ///< the misuse catalogue row
  const char* what;
  Expected expected;
  std::function<void(Env&)> provoke;  ///< must throw the CudaError
  std::function<const char*()> unavailable = nullptr;  ///< why the case cannot run here, or nullptr
};

// ---- what cases share --------------------------------------------------------------------------

int device_attribute(cudaDeviceAttr attr) {
  int v = 0;
  GPU_REQUIRE(cudaDeviceGetAttribute(&v, attr, 0));
  return v;
}

const char* if_pageable_access() {
  return device_attribute(cudaDevAttrPageableMemoryAccess) != 0
             ? "the device can address pageable memory (cudaDevAttrPageableMemoryAccess = 1), so the driver accepts it"
             : nullptr;
}

/// A plan 'fill' -> captured 'cap' (fn, in `mode`) -> 'after', compiled: the capture fails at 'cap'.
void compile_capturing(Env& env, const std::function<void(cudaStream_t)>& fn,
                       cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal) {
  gd::Graph g("capturing");
  auto fill = g.add_memset(env.d.get(), 1.0f, N).name("fill");
  auto cap = g.add_captured([&](cudaStream_t s) { fn(s); }, mode).name("cap").after(fill);
  g.add_kernel(add_scalar, gd::cover(N), env.d.get(), 1.0f, N).name("after").after(cap);
  (void)g.instantiate();
}

/// The kernel launched in captured functions (work the capture records before failing).
void launch_add(float* x, cudaStream_t s) { launch_kernel(add_scalar, 1, N, 0, s, x, 1.0f, N); }

/// A case that compiles a plan whose captured node 'cap' launches a kernel, then makes `misuse`.
std::function<void(Env&)> launch_then(const std::function<void(cudaStream_t, Env&)>& misuse,
                                      cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal) {
  return [misuse, mode](Env& env) {
    compile_capturing(
        env,
        [&](cudaStream_t s) {
          launch_add(env.d.get(), s);
          misuse(s, env);
        },
        mode);
  };
}

/// Compiles a plan 'fill' (x = 2) -> kernel 'k' (x += 1.5), then applies `change` to the
/// executable; when that throws, checks that the executable still runs its old parameters and
/// re-throws.
void change_executable(Env& env, const std::function<void(gd::Executable&, const gd::MemsetNode&,
                                                            const gd::KernelNode<float*, float, int>&)>& change) {
  gd::Graph g("patched");
  auto fill = g.add_memset(env.d.get(), 2.0f, N).name("fill");
  auto k = g.add_kernel(add_scalar, gd::cover(N), env.d.get(), 1.5f, N).name("k").after(fill);
  gd::Executable exec = g.instantiate();
  try {
    change(exec, fill, k);
  } catch (const gd::CudaError&) {
    exec.launch();
    exec.synchronize();
    require_equal(env.d.download(), std::vector<float>(N, 3.5f), "the executable kept its old parameters");
    throw;
  }
}

void CUDART_CB stream_callback(cudaStream_t, cudaError_t, void*) {}
void CUDART_CB host_fn(void*) {}

/// A captured function that allocates with cudaMallocAsync, uses the memory and (if `free`) frees it;
/// `*out` receives the address.
std::function<void(cudaStream_t)> allocating(void** out, bool free) {
  return [out, free](cudaStream_t s) {
    if (cudaMallocAsync(out, N * sizeof(float), s) != cudaSuccess) return;  // the capture reports it
    launch_kernel(add_scalar, 1, N, 0, s, static_cast<float*>(*out), 1.0f, N);
    if (free) (void)cudaFreeAsync(*out, s);
  };
}

/// Compiles a plan whose conditional node (IF or WHILE, condition 0) is named `conditional` and
/// holds a captured node that launches a kernel, then makes `call`.
void compile_body_capture(Env& env, gd::ConditionalType type, const char* conditional,
                          const std::function<void(cudaStream_t, Env&)>& call) {
  gd::Graph g("body_capture");
  auto c = g.add_condition(0);
  g.add_conditional(type, c, 1, [&](unsigned, gd::Graph& body) {
     body.add_captured([&](cudaStream_t s) {
           launch_add(env.d.get(), s);
           call(s, env);
         }).name("in_body");
   }).name(conditional);
  (void)g.instantiate();
}

/// Launches `exec` twice; when the second launch throws, frees the allocation the first one left
/// at `*kept` (and trims graph memory) and re-throws. The free is graphdsl's own
/// (Executable::free_graph_memory: a stream-ordered cudaFreeAsync, then a synchronization), not a
/// cudaFree: compute-sanitizer's leak check reported the allocation made by the first launch as
/// leaked after a cudaFree of it.
void relaunch(gd::Executable& exec, void* const* kept) {
  exec.launch();
  exec.synchronize();
  try {
    exec.launch();
  } catch (const gd::CudaError&) {
    (void)kept;
    exec.free_graph_memory();
    exec.synchronize();
    GPU_REQUIRE(cudaDeviceGraphMemTrim(0));
    throw;
  }
}

const Expected invalidated_at_cap{cudaErrorStreamCaptureInvalidated, "cudaStreamEndCapture", "cap", gd::NodeKind::captured,
                                  {"the capture was invalidated inside the captured function"}};

const std::vector<Case>& cases() {
  static const std::vector<Case> table = {
      // ---- node creation (cudaGraphAdd*Node during instantiate) ----------------------------------
      {"materialize", 12, "a host function as the kernel of a node in a WHILE body",
       {cudaErrorInvalidResourceHandle, "cudaGraphAddKernelNode", "body_kernel", gd::NodeKind::kernel,
        {"in body 0 (", "of conditional node 'loop' (#0) of graph 'r12_while'", "not a __global__ kernel"}},
       [](Env& env) {
         gd::Graph g("r12_while");
         auto c = g.add_condition(0);
         g.add_while(c, [&](gd::Graph& body) {
            body.add_kernel(not_a_kernel, gd::Launch{1, 32}, env.d.get(), 1.0f, N).name("body_kernel");
          }).name("loop");
         (void)g.instantiate();
       }},
      {"materialize", 12, "a host function as the kernel of a node in body 2 of a SWITCH",
       {cudaErrorInvalidResourceHandle, "cudaGraphAddKernelNode", "case_two", gd::NodeKind::kernel,
        {"in body 2 (", "of conditional node 'dispatch' (#1) of graph 'r12_switch'"}},
       [](Env& env) {
         gd::Graph g("r12_switch");
         auto c = g.add_condition(7);
         auto first = g.add_memset(env.d.get(), 1.0f, N).name("fill");
         g.add_switch(
              c, [&](gd::Graph& b) { b.add_empty().name("case_zero"); },
              [&](gd::Graph& b) { b.add_kernel(add_scalar, gd::cover(N), env.d.get(), 1.0f, N).name("case_one"); },
              [&](gd::Graph& b) { b.add_kernel(not_a_kernel, gd::cover(N), env.d.get(), 2.0f, N).name("case_two"); })
             .name("dispatch")
             .after(first);
         (void)g.instantiate();
       }},
      {"materialize", 12, "a host function as the kernel of a node in a child plan nested in a child plan",
       {cudaErrorInvalidResourceHandle, "cudaGraphAddKernelNode", "deep", gd::NodeKind::kernel,
        {"in child node 'inner_node' (#1) of graph 'mid'", "in child node 'outer_node' (#0) of graph 'r12_nested'"}},
       [](Env& env) {
         gd::Graph inner("inner");
         inner.add_kernel(not_a_kernel, gd::cover(N), env.d.get(), 1.0f, N).name("deep");
         gd::Graph mid("mid");
         auto ok = mid.add_memset(env.d.get(), 1.0f, N).name("mid_fill");
         mid.add_child(inner).name("inner_node").after(ok);
         gd::Graph g("r12_nested");
         g.add_child(mid).name("outer_node");
         (void)g.instantiate();
       }},
      {"materialize", 12, "a host function as the kernel of the else body of an IF-ELSE",
       {cudaErrorInvalidResourceHandle, "cudaGraphAddKernelNode", "otherwise", gd::NodeKind::kernel,
        {"in body 1 (", "of conditional node 'branch' (#0) of graph 'r12_if_else'"}},
       [](Env& env) {
         gd::Graph g("r12_if_else");
         auto c = g.add_condition(1);
         g.add_if_else(
              c, [&](gd::Graph& b) { b.add_kernel(add_scalar, gd::cover(N), env.d.get(), 1.0f, N).name("then"); },
              [&](gd::Graph& b) { b.add_kernel(not_a_kernel, gd::cover(N), env.d.get(), 1.0f, N).name("otherwise"); })
             .name("branch");
         (void)g.instantiate();
       }},
      {"materialize", 12, "a host function as the kernel of a node in an IF body nested in a WHILE body",
       {cudaErrorInvalidResourceHandle, "cudaGraphAddKernelNode", "inner_kernel", gd::NodeKind::kernel,
        {"of conditional node 'inner_if' (#1) of graph", "of conditional node 'outer_loop' (#0) of graph 'r12_nested_bodies'"}},
       [](Env& env) {
         gd::Graph g("r12_nested_bodies");
         auto loop = g.add_condition(0);
         g.add_while(loop, [&](gd::Graph& body) {
            auto maybe = body.add_condition(1);
            auto first = body.add_kernel(add_scalar, gd::cover(N), env.d.get(), 1.0f, N).name("step");
            body.add_if(maybe, [&](gd::Graph& inner) {
                  inner.add_kernel(not_a_kernel, gd::cover(N), env.d.get(), 1.0f, N).name("inner_kernel");
                })
                .name("inner_if")
                .after(first);
          }).name("outer_loop");
         (void)g.instantiate();
       }},
      {"materialize", 14, "128 threads for a kernel declared __launch_bounds__(64)",
       {cudaErrorInvalidValue, "cudaGraphAddKernelNode", "bounded", gd::NodeKind::kernel, {"kernel node 'bounded' (#0)"}},
       [](Env& env) {
         gd::Graph g("r14_bounds");
         g.add_kernel(bounded_add, gd::Launch{2, 128}, env.d.get(), 1.0f, N).name("bounded");
         (void)g.instantiate();
       }},
      {"materialize", 15, "dynamic shared memory above the device's opt-in maximum, the kernel's limit raised to it",
       {cudaErrorInvalidValue, "cudaGraphAddKernelNode", "too_much_smem", gd::NodeKind::kernel, {"dynamic shared memory"}},
       [](Env& env) {
         const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
         GPU_REQUIRE(cudaFuncSetAttribute(reinterpret_cast<const void*>(smem_add_raised), cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
         gd::Graph g("r15_optin");
         g.add_kernel(smem_add_raised, gd::Launch{1, N, static_cast<unsigned>(optin) + 4096u}, env.d.get(), 1.0f, N)
             .name("too_much_smem");
         (void)g.instantiate();
       }},
      {"materialize", 15, "64 KiB of dynamic shared memory without raising the limit, in a child plan",
       {cudaErrorInvalidValue, "cudaGraphAddKernelNode", "smem_in_child", gd::NodeKind::kernel,
        {"in child node 'sub' (#0) of graph 'r15_child'", "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536)"}},
       [](Env& env) {
         gd::Graph child("child");
         child.add_kernel(smem_add, gd::Launch{1, N, 64u * 1024u}, env.d.get(), 1.0f, N).name("smem_in_child");
         gd::Graph g("r15_child");
         g.add_child(child).name("sub");
         (void)g.instantiate();
       }},
      {"materialize", 15, "100 KiB of dynamic shared memory without raising the limit, in an IF body",
       {cudaErrorInvalidValue, "cudaGraphAddKernelNode", "smem_in_if", gd::NodeKind::kernel,
        {"in body 0 (", "of conditional node 'maybe' (#0) of graph 'r15_if'", "cudaFuncSetAttribute"}},
       [](Env& env) {
         gd::Graph g("r15_if");
         auto c = g.add_condition(1);
         g.add_if(c, [&](gd::Graph& b) {
            b.add_kernel(smem_add, gd::Launch{1, N, 100u * 1024u}, env.d.get(), 1.0f, N).name("smem_in_if");
          }).name("maybe");
         (void)g.instantiate();
       }},
      {"materialize", 21, "a 1-D memset node into pageable host memory",
       {cudaErrorInvalidValue, "cudaGraphAddMemsetNode", "to_host", gd::NodeKind::memset,
        {"the destination must be device memory"}},
       [](Env& env) {
         std::vector<std::uint32_t> host(N, 5u);
         gd::Graph g("r21_pageable");
         auto ok = g.add_memset(env.d.get(), 1.0f, N).name("to_device");
         g.add_memset(host.data(), 7u, host.size()).name("to_host").after(ok);
         (void)g.instantiate();
       },
       if_pageable_access},
      {"materialize", 21, "a 2-D memset node into pageable host memory",
       {cudaErrorInvalidValue, "cudaGraphAddMemsetNode", "rows_to_host", gd::NodeKind::memset,
        {"memset node 'rows_to_host' (#0)"}},
       [](Env&) {
         std::vector<std::uint16_t> host(16 * 32, 5u);
         gd::Graph g("r21_pageable_2d");
         g.add_memset_2d(host.data(), 16 * sizeof(std::uint16_t), std::uint16_t{9}, 16, 32).name("rows_to_host");
         (void)g.instantiate();
       },
       if_pageable_access},
      {"materialize", 21, "a memset node into pageable host memory in a WHILE body",
       {cudaErrorInvalidValue, "cudaGraphAddMemsetNode", "body_memset", gd::NodeKind::memset,
        {"of conditional node 'loop' (#0) of graph 'r21_body'", "the destination must be device memory"}},
       [](Env&) {
         std::vector<float> host(N, 1.0f);
         gd::Graph g("r21_body");
         auto c = g.add_condition(0);
         g.add_while(c, [&](gd::Graph& b) { b.add_memset(host.data(), 3.0f, host.size()).name("body_memset"); }).name("loop");
         (void)g.instantiate();
       },
       if_pageable_access},
      {"materialize", 21, "a memset node into pageable host memory in a child plan",
       {cudaErrorInvalidValue, "cudaGraphAddMemsetNode", "child_memset", gd::NodeKind::memset,
        {"in child node 'sub' (#1) of graph 'r21_child'", "the destination must be device memory"}},
       [](Env& env) {
         std::vector<float> host(N, 1.0f);
         gd::Graph child("child");
         child.add_memset(host.data(), 3.0f, host.size()).name("child_memset");
         gd::Graph g("r21_child");
         auto ok = g.add_memset(env.d.get(), 1.0f, N).name("fill");
         g.add_child(child).name("sub").after(ok);
         (void)g.instantiate();
       },
       if_pageable_access},
      {"materialize", 42, "a mem_alloc node of 1 PiB",
       {cudaErrorMemoryAllocation, "cudaGraphAddMemAllocNode", "huge", gd::NodeKind::mem_alloc, {"mem_alloc node 'huge' (#0)"}},
       [](Env&) {
         gd::Graph g("r42_huge");
         auto a = g.add_mem_alloc<unsigned char>(std::size_t{1} << 50);
         a.node.name("huge");
         g.add_mem_free(a.buffer).name("release").after(a.node);
         (void)g.instantiate();
       }},
      {"materialize", 37, "a child plan whose captured function allocates and frees (graph allocations in a child)",
       {cudaErrorNotSupported, "cudaGraphAddChildGraphNode", "sub", gd::NodeKind::child, {"child node 'sub' (#1)"}},
       [](Env& env) {
         void* p = nullptr;
         gd::Graph child("scratch_user");
         child.add_captured(allocating(&p, true)).name("scratch");
         gd::Graph g("r37_child");
         auto ok = g.add_memset(env.d.get(), 1.0f, N).name("fill");
         g.add_child(child).name("sub").after(ok);
         (void)g.instantiate();
       }},
      {"materialize", 37, "a child plan whose captured function allocates and never frees",
       {cudaErrorNotSupported, "cudaGraphAddChildGraphNode", "sub", gd::NodeKind::child, {"child node 'sub' (#0)"}},
       [](Env&) {
         void* p = nullptr;
         gd::Graph child("keeper");
         child.add_captured(allocating(&p, false)).name("keeps");
         gd::Graph g("r37_unfreed");
         g.add_child(child).name("sub");
         (void)g.instantiate();
       }},
      {"materialize", 37, "the same one level deeper: the child's own child allocates",
       {cudaErrorNotSupported, "cudaGraphAddChildGraphNode", "sub", gd::NodeKind::child,
        {"child node 'sub' (#0) in child node 'mid' (#0) of graph 'r37_nested'"}},
       [](Env&) {
         void* p = nullptr;
         gd::Graph child("scratch_user");
         child.add_captured(allocating(&p, true)).name("scratch");
         gd::Graph mid("mid_plan");
         mid.add_child(child).name("sub");
         gd::Graph g("r37_nested");
         g.add_child(mid).name("mid");
         (void)g.instantiate();
       }},

      // ---- stream capture into the graph (cudaStreamEndCapture at the captured node) --------------
      {"capture", 87, "cudaMalloc in the captured function, global mode", invalidated_at_cap,
       [](Env& env) {
         compile_capturing(
             env,
             [&](cudaStream_t s) {
               void* p = nullptr;
               if (cudaMalloc(&p, 1024) == cudaSuccess) (void)cudaFree(p);
               launch_add(env.d.get(), s);
             },
             cudaStreamCaptureModeGlobal);
       }},
      {"capture", 87, "cudaFree in the captured function, thread-local mode", invalidated_at_cap,
       launch_then([](cudaStream_t, Env& env) { (void)cudaFree(env.spare.get()); })},  // refused: freed later
      {"capture", 87, "cudaDeviceSynchronize in the captured function", invalidated_at_cap,
       launch_then([](cudaStream_t, Env&) { (void)cudaDeviceSynchronize(); })},
      {"capture", 87, "cudaMalloc in a captured node of a child plan",
       {cudaErrorStreamCaptureInvalidated, "cudaStreamEndCapture", "inner_cap", gd::NodeKind::captured,
        {"captured node 'inner_cap' (#0) in child node 'sub' (#1) of graph 'r87_child'", "cudaMallocAsync"}},
       [](Env& env) {
         gd::Graph child("child");
         child.add_captured([&](cudaStream_t s) {
                void* p = nullptr;
                if (cudaMalloc(&p, 1024) == cudaSuccess) (void)cudaFree(p);
                launch_add(env.d.get(), s);
              }).name("inner_cap");
         gd::Graph g("r87_child");
         auto ok = g.add_memset(env.d.get(), 1.0f, N).name("fill");
         g.add_child(child).name("sub").after(ok);
         (void)g.instantiate();
       }},
      {"capture", 91, "cudaStreamQuery on the capturing stream", invalidated_at_cap,
       launch_then([](cudaStream_t s, Env&) { (void)cudaStreamQuery(s); })},
      {"capture", 91, "cudaStreamSynchronize on the capturing stream", invalidated_at_cap,
       launch_then([](cudaStream_t s, Env&) { (void)cudaStreamSynchronize(s); })},
      {"capture", 97, "cudaStreamAddCallback on the capturing stream", invalidated_at_cap,
       launch_then([](cudaStream_t s, Env&) { (void)cudaStreamAddCallback(s, stream_callback, nullptr, 0); })},
      {"capture", 95, "work forked to two streams, one joined back and one not",
       {cudaErrorStreamCaptureUnjoined, "cudaStreamEndCapture", "cap", gd::NodeKind::captured,
        {"captured node 'cap' (#1)", "did not join it back"}},
       [](Env& env) {
         Stream joined, left;
         RawEvent fork, join;
         compile_capturing(env, [&](cudaStream_t s) {
           GPU_REQUIRE(cudaEventRecord(fork.e, s));
           GPU_REQUIRE(cudaStreamWaitEvent(joined, fork.e, 0));
           GPU_REQUIRE(cudaStreamWaitEvent(left, fork.e, 0));
           launch_add(env.d.get(), joined);
           launch_add(env.d.get(), left);
           GPU_REQUIRE(cudaEventRecord(join.e, joined));
           GPU_REQUIRE(cudaStreamWaitEvent(s, join.e, 0));
         });
       }},
      {"capture", 35, "waiting on an event recorded outside the capture", invalidated_at_cap,
       [](Env& env) {
         GPU_REQUIRE(cudaEventRecord(env.event.e, env.side));
         GPU_REQUIRE(cudaStreamSynchronize(env.side));
         compile_capturing(env, [&](cudaStream_t s) {
           (void)cudaStreamWaitEvent(s, env.event.e, 0);
           launch_add(env.d.get(), s);
         });
       }},
      {"capture", 36, "cudaEventQuery on an event recorded inside the capture", invalidated_at_cap,
       launch_then([](cudaStream_t s, Env& env) {
         GPU_REQUIRE(cudaEventRecord(env.event.e, s));
         (void)cudaEventQuery(env.event.e);
       })},
      {"capture", 36, "cudaEventSynchronize on an event recorded inside the capture", invalidated_at_cap,
       launch_then([](cudaStream_t s, Env& env) {
         GPU_REQUIRE(cudaEventRecord(env.event.e, s));
         (void)cudaEventSynchronize(env.event.e);
       })},
      {"capture", 89, "cudaDeviceSynchronize on another thread during a thread-local capture", invalidated_at_cap,
       launch_then([](cudaStream_t, Env&) { std::thread([] { (void)cudaDeviceSynchronize(); }).join(); })},
      {"capture", 88, "cudaMalloc on another thread during a global-mode capture", invalidated_at_cap,
       launch_then(
           [](cudaStream_t, Env&) {
             std::thread([] {
               void* p = nullptr;
               if (cudaMalloc(&p, 1024) == cudaSuccess) (void)cudaFree(p);
             }).join();
           },
           cudaStreamCaptureModeGlobal)},
      {"capture", 96, "joining a second capture into this one", invalidated_at_cap,
       launch_then([](cudaStream_t s, Env& env) {
         GPU_REQUIRE(cudaStreamBeginCapture(env.side, cudaStreamCaptureModeThreadLocal));
         launch_add(env.d.get(), env.side);
         (void)cudaEventRecord(env.event.e, env.side);
         (void)cudaStreamWaitEvent(s, env.event.e, 0);
         cudaGraph_t lost = nullptr;
         (void)cudaStreamEndCapture(env.side, &lost);
         if (lost != nullptr) (void)cudaGraphDestroy(lost);
       })},
      {"capture", 94, "cudaStreamEndCapture called by another thread",
       {cudaErrorIllegalState, "cudaStreamEndCapture", "cap", gd::NodeKind::captured, {"captured node 'cap' (#1)"}},
       launch_then([](cudaStream_t s, Env&) {
         std::thread([s] {
           cudaGraph_t g = nullptr;
           (void)cudaStreamEndCapture(s, &g);
         }).join();
       })},
      {"capture", 86, "the captured function ends the capture itself",
       {cudaErrorIllegalState, "cudaStreamEndCapture", "cap", gd::NodeKind::captured, {"captured node 'cap' (#1)"}},
       launch_then([](cudaStream_t s, Env&) {
         cudaGraph_t g = nullptr;
         (void)cudaStreamEndCapture(s, &g);
       })},

      // ---- instantiate (cudaGraphInstantiateWithParams: the node CUDA reports, placed in the plan) --
      {"instantiate", 57, "a captured host function (cudaLaunchHostFunc) in an IF body",
       {cudaErrorInvalidValue, "cudaGraphInstantiateWithParams", "maybe", gd::NodeKind::conditional,
        {"cudaGraphInstantiateNodeOperationNotSupported"}},
       [](Env& env) {
         compile_body_capture(env, gd::ConditionalType::if_then, "maybe",
                              [](cudaStream_t s, Env&) { (void)cudaLaunchHostFunc(s, host_fn, nullptr); });
       }},
      {"instantiate", 57, "a captured external event record in a WHILE body",
       {cudaErrorInvalidValue, "cudaGraphInstantiateWithParams", "loop", gd::NodeKind::conditional,
        {"cudaGraphInstantiateNodeOperationNotSupported"}},
       [](Env& env) {
         compile_body_capture(env, gd::ConditionalType::while_loop, "loop", [](cudaStream_t s, Env& e) {
           (void)cudaEventRecordWithFlags(e.event.e, s, cudaEventRecordExternal);
         });
       }},
      {"instantiate", 57, "a captured external event wait in body 1 of a SWITCH",
       {cudaErrorInvalidValue, "cudaGraphInstantiateWithParams", "dispatch", gd::NodeKind::conditional,
        {"cudaGraphInstantiateNodeOperationNotSupported"}},
       [](Env& env) {
         RawEvent e;
         GPU_REQUIRE(cudaEventRecord(e.e, nullptr));
         gd::Graph g("r57_wait");
         auto c = g.add_condition(5);
         auto ok = g.add_memset(env.d.get(), 1.0f, N).name("fill");
         g.add_switch(
              c, [&](gd::Graph& b) { b.add_empty().name("idle"); },
              [&](gd::Graph& b) {
                b.add_captured([&](cudaStream_t s) {
                   (void)cudaStreamWaitEvent(s, e.e, cudaEventWaitExternal);
                   launch_add(env.d.get(), s);
                 }).name("waits");
              })
             .name("dispatch")
             .after(ok);
         (void)g.instantiate();
       }},
      // Captures in a body go into a graph of their own, embedded as a child node: CUDA refuses a
      // child graph holding memory nodes in a body when it is added, so the captured node is named.
      {"instantiate", 57, "a captured cudaMallocAsync/cudaFreeAsync pair in a WHILE body",
       {cudaErrorNotSupported, "cudaGraphAddChildGraphNode", "scratch", gd::NodeKind::captured,
        {"in body 0 (while body) of conditional node 'loop' (#0) of graph 'r57_alloc'"}},
       [](Env&) {
         void* p = nullptr;
         gd::Graph g("r57_alloc");
         auto c = g.add_condition(0);
         g.add_while(c, [&](gd::Graph& b) { b.add_captured(allocating(&p, true)).name("scratch"); }).name("loop");
         (void)g.instantiate();
       }},
      {"instantiate", 65, "device_launch with a memcpy node from pageable host memory",
       {cudaErrorInvalidValue, "cudaGraphInstantiateWithParams", "upload", gd::NodeKind::memcpy,
        {"memcpy node 'upload' (#1)", "instantiate result"}},
       [](Env& env) {
         std::vector<float> host(N, 4.0f);
         gd::Graph g("r65_pageable");
         auto k = g.add_kernel(add_scalar, gd::cover(N), env.d.get(), 1.0f, N).name("k");
         g.add_memcpy(env.d.get(), host.data(), N).name("upload").after(k);
         (void)g.instantiate(gd::InstantiateOptions{}.device_launch());
       }},
      {"instantiate", 65, "device_launch with a memcpy node to pageable host memory inside a child plan",
       {cudaErrorInvalidValue, "cudaGraphInstantiateWithParams", "sub", gd::NodeKind::child,
        {"child node 'sub' (#0)", "instantiate result"}},
       [](Env& env) {
         std::vector<float> host(N, 4.0f);
         gd::Graph child("download_plan");
         child.add_memcpy(host.data(), env.d.get(), N).name("download");
         gd::Graph g("r65_child");
         g.add_child(child).name("sub");
         (void)g.instantiate(gd::InstantiateOptions{}.device_launch());
       }},
      // ---- launch (cudaGraphLaunch / cudaGraphUpload) ---------------------------------------------
      // ---- per-node setters on an executable (the executable keeps its old parameters) ------------
      {"setter", 12, "set_kernel to a host function",
       {cudaErrorInvalidResourceHandle, "cudaGraphExecKernelNodeSetParams", "k", gd::NodeKind::kernel, {"kernel node 'k' (#1)"}},
       [](Env& env) {
         change_executable(env, [&](gd::Executable& exec, const gd::MemsetNode&, const gd::KernelNode<float*, float, int>& k) {
           exec.set_kernel(k, not_a_kernel, gd::cover(N), env.d.get(), 1.0f, N);
         });
       }},
      {"setter", 15, "set_launch with 100 KiB of dynamic shared memory",
       {cudaErrorInvalidValue, "cudaGraphExecKernelNodeSetParams", "k", gd::NodeKind::kernel, {"kernel node 'k' (#1)"}},
       [](Env& env) {
         change_executable(env, [](gd::Executable& exec, const gd::MemsetNode&, const gd::KernelNode<float*, float, int>& k) {
           exec.set_launch(k, gd::Launch{1, N, 100u * 1024u});
         });
       }},
      {"setter", 14, "set_kernel to a __launch_bounds__(64) kernel with 128 threads",
       {cudaErrorInvalidValue, "cudaGraphExecKernelNodeSetParams", "k", gd::NodeKind::kernel, {"kernel node 'k' (#1)"}},
       [](Env& env) {
         change_executable(env, [&](gd::Executable& exec, const gd::MemsetNode&, const gd::KernelNode<float*, float, int>& k) {
           exec.set_kernel(k, bounded_add, gd::Launch{2, 128}, env.d.get(), 1.0f, N);
         });
       }},
      {"setter", 21, "set_memset into pageable host memory",
       {cudaErrorInvalidValue, "cudaGraphExecMemsetNodeSetParams", "fill", gd::NodeKind::memset, {"memset node 'fill' (#0)"}},
       [](Env& env) {
         std::vector<float> host(N, 1.0f);
         change_executable(env, [&](gd::Executable& exec, const gd::MemsetNode& fill, const gd::KernelNode<float*, float, int>&) {
           exec.set_memset(fill, host.data(), 9.0f, host.size());
         });
       },
       if_pageable_access},
  };
  return table;
}

// ---- running a case ----------------------------------------------------------------------------
// Each case runs in a child process (this program again, with GRAPHDSL_MAT_CASE=<index>), so that a
// driver crash or hang fails that case alone: the parent waits up to kCaseSeconds, then kills it.

constexpr int kCaseSeconds = 20;
constexpr const char* kCaseVariable = "GRAPHDSL_MAT_CASE";

/// Counts what ran and prints the figure when the program ends (so it works with any reporter).
struct Tally {
  int ran = 0;
  int passed = 0;
  std::set<int> rows;
  std::vector<std::string> failed, skipped;
  ~Tally() {
    if (ran == 0 && skipped.empty()) return;
    std::printf("GPU error translation: %d cases over %zu catalogue rows\n", passed, rows.size());
    for (const std::string& s : skipped) std::printf("  skipped: %s\n", s.c_str());
    for (const std::string& f : failed) std::printf("  FAILED: %s\n", f.c_str());
    std::fflush(stdout);
  }
};

Tally& tally() {
  static Tally t;
  return t;
}

std::string title(const Case& c) { return "row " + std::to_string(c.row) + ": " + c.what; }

/// CHECKs `ok` with its label; returns it.
bool check(bool ok, const std::string& label) {
  INFO(label);
  CHECK(ok);
  return ok;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Checks what a CudaError carries against the case's expectation.
bool check_translation(const Expected& want, const gd::CudaError& e) {
  const std::string what = e.what();
  INFO(what);
  bool ok = check(e.code() == want.code, std::string("code ") + cudaGetErrorName(e.code()) + ", expected " +
                                             cudaGetErrorName(want.code));
  ok &= check(e.api() == want.api, "api " + e.api() + ", expected " + want.api);
  ok &= check(contains(what, std::string("graphdsl: ") + want.api + " failed: " + cudaGetErrorName(want.code) + " (" +
                                 cudaGetErrorString(want.code) + ")"),
              "the message starts with the API and the error");
  if (want.node != nullptr) {
    ok &= check(e.node().has_value(), std::string("a node is named (expected '") + want.node + "')");
    if (e.node()) {
      ok &= check(e.node()->name == want.node, "node '" + e.node()->name + "', expected '" + want.node + "'");
      ok &= check(e.node()->kind == want.kind, std::string("node kind ") + gd::to_string(e.node()->kind) +
                                                   ", expected " + gd::to_string(want.kind));
      ok &= check(contains(what, " at " + e.node()->describe()), "the message names the node as " + e.node()->describe());
    }
  } else {
    ok &= check(!e.node().has_value(), "no node is named for a whole-graph failure");
  }
  for (const std::string& t : want.text) ok &= check(contains(what, t), "the message holds: " + t);
  return ok;
}

/// A fresh plan compiles, launches and computes the right values.
void require_plans_still_run() {
  auto gen = rng(700);
  const std::vector<float> x = random_floats(N, gen);
  DeviceBuffer<float> d(x);
  gd::Graph g("after_failure");
  auto first = g.add_kernel(add_scalar, gd::cover(N), d.get(), 2.5f, N).name("add");
  g.add_kernel(add_scalar, gd::cover(N), d.get(), -0.125f, N).name("add_again").after(first);
  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();
  std::vector<float> want(x);
  for (float& v : want) v += 2.375f;
  require_equal(d.download(), want, "a plan compiled after the failure");
}

/// In the child process: provokes the case's failure and checks the error and the context after it.
void run_case(const Case& c) {
  (void)cudaGetLastError();
  const gd::debug::LiveCounts base = settled_baseline();
  bool translated = false;
  std::string seen = "no error: the driver accepted it";
  {
    Env env;
    try {
      c.provoke(env);
    } catch (const gd::CudaError& e) {
      seen = std::string(cudaGetErrorName(e.code())) + " from " + e.api() + " at " +
             (e.node() ? e.node()->describe() : std::string("no node")) + ": " + e.what();
      translated = check_translation(c.expected, e);
    }
  }
  std::printf("[%s] %s -> %s\n", c.phase, title(c).c_str(), seen.c_str());
  std::fflush(stdout);
  INFO(seen);
  CHECK(translated);
  CHECK(cudaPeekAtLastError() == cudaSuccess);  // graphdsl cleared the sticky last error
  require_counts_back_to(base);                  // nothing half-built is left
  require_plans_still_run();
  require_device_healthy();
}

/// In the parent: runs case `index` in a child process; returns why it failed (empty: it passed).
std::string run_in_child(std::size_t index, const char* phase) {
  std::string exe = "/proc/self/exe";
  std::string filter = std::string("[mat][") + phase + "]";
  std::string reporter = "--reporter";
  std::string compact = "compact";
  std::vector<char*> argv{&exe[0], &filter[0], &reporter[0], &compact[0], nullptr};
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, kCaseVariable, std::strlen(kCaseVariable)) != 0) env.emplace_back(*e);
  }
  env.push_back(std::string(kCaseVariable) + "=" + std::to_string(index));
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(&e[0]);
  envp.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  if (const int rc = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), envp.data()); rc != 0) {
    return std::string("could not start the child process: ") + std::strerror(rc);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kCaseSeconds);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      (void)waitpid(pid, &status, 0);
      return "the case did not finish within " + std::to_string(kCaseSeconds) + " s (killed)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFSIGNALED(status)) return std::string("the case's process died: ") + strsignal(WTERMSIG(status));
  if (WEXITSTATUS(status) != 0) return "the case failed (see its report above)";
  return {};
}

void run_phase(const char* phase) {
  const std::vector<Case>& all = cases();
  if (const char* only = std::getenv(kCaseVariable)) {  // the child: one case, no sections
    const std::size_t i = std::strtoul(only, nullptr, 10);
    REQUIRE(i < all.size());
    if (std::string(all[i].phase) == phase) run_case(all[i]);
    return;
  }
  Tally& t = tally();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Case& c = all[i];
    if (std::string(c.phase) != phase) continue;
    DYNAMIC_SECTION(title(c)) {
      const char* why = c.unavailable ? c.unavailable() : nullptr;
      if (why != nullptr) {
        WARN(title(c) << ": skipped, " << why);
        t.skipped.push_back(title(c) + " (" + why + ")");
      } else {
        ++t.ran;
        const std::string failure = run_in_child(i, phase);
        INFO(title(c) << ": " << failure);
        CHECK(failure.empty());
        if (failure.empty()) {
          ++t.passed;
          t.rows.insert(c.row);
        } else {
          t.failed.push_back(title(c) + ": " + failure);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("MAT rows, node creation: the failing node is named, in its child plan or body",
          "[gpu][error][catalogue][mat][materialize]") {
  run_phase("materialize");
}

TEST_CASE("MAT rows, stream capture: the captured node is named and the capture's end reported",
          "[gpu][error][catalogue][mat][capture]") {
  run_phase("capture");
}

TEST_CASE("MAT rows, instantiate: the node CUDA reports is placed in the plan", "[gpu][error][catalogue][mat][instantiate]") {
  run_phase("instantiate");
}

TEST_CASE("MAT rows, launch: the graph, and a captured allocation still live, are named",
          "[gpu][error][catalogue][mat][launch][captured-alloc]") {
  run_phase("launch");
}

TEST_CASE("MAT rows, per-node setters: the node is named and the executable keeps its parameters",
          "[gpu][error][catalogue][mat][setter]") {
  run_phase("setter");
}

}  // namespace error_translation_test
