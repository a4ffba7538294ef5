// Allocation failures inside every Graph::add_* (each node kind, each argument form), and inside the
// plan side of Executable::set_kernel to another signature (plan/records/kernel_swap.cpp): the plan
// is left exactly as before the call (the strong guarantee), and stays usable.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "plan/graph_impl.hpp"
#include "sweep.hpp"

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds), where the two files' helpers would collide.
namespace node_faults {
namespace {

namespace gd = graphdsl;
using faults::Fixture;
using faults::one_block;

struct Operation {
  std::string what;
  std::function<void(Fixture&)> op;
  bool spare_condition = false;   ///< the fixture declares `cond` for the operation to use
  bool may_not_allocate = false;  ///< a single append that may fit in the store's capacity
};

void sweep_all(const std::vector<Operation>& ops) {
  for (const Operation& o : ops) {
    const bool spare = o.spare_condition;
    const std::uint64_t points = faults::sweep(
        o.what, [spare] { return faults::make_fixture(0, spare); }, [&o](std::unique_ptr<Fixture>& f) { o.op(*f); });
    INFO(o.what);
    if (!o.may_not_allocate) CHECK(points > 0);  // a sweep that failed no allocation tested nothing
  }
}

void with_host_witness(Fixture& f) {
  auto witness = std::make_shared<int>(0);
  try {
    f.g.add_host([witness] { ++*witness; });
  } catch (...) {
    CHECK(witness.use_count() == 1);  // the closure was not kept, nor leaked
    throw;
  }
}

void with_capture_witness(Fixture& f) {
  auto witness = std::make_shared<int>(0);
  try {
    f.g.add_captured([witness](cudaStream_t) { ++*witness; });
  } catch (...) {
    CHECK(witness.use_count() == 1);
    throw;
  }
}

/// add_child(Graph&&) of a copy of `other`: a failure leaves the moved plan as it was, and usable.
void with_moved_child(Fixture& f) {
  gd::Graph c = f.other;
  const std::string before = c.dump();
  try {
    f.g.add_child(std::move(c));
  } catch (...) {
    CHECK(c.dump() == before);  // NOLINT(bugprone-use-after-move): a failed add_child takes nothing
    throw;
  }
}

}  // namespace

TEST_CASE("an allocation failure inside add_kernel leaves the plan as it was", "[faults][kernel]") {
  faults::Memory& m = faults::memory();
  sweep_all({
      {"add_kernel(plain)", [&m](Fixture& f) { f.g.add_kernel(faults::saxpy, one_block, m.x, m.y, 2.0f, 256); }},
      {"add_kernel(Parameter)", [&m](Fixture& f) { f.g.add_kernel(faults::scale, one_block, m.y, f.lr, 256); }},
      {"add_kernel(pointer Parameter)",
       [](Fixture& f) { f.g.add_kernel(faults::saxpy, one_block, f.dst, f.dst, f.lr, 256); }},
      {"add_kernel(GraphBuffer)",
       [](Fixture& f) { f.g.add_kernel(faults::scale, one_block, f.alloc.buffer, 1.0f, 256); }},
      {"add_kernel(slice)",
       [](Fixture& f) { f.g.add_kernel(faults::scale, one_block, f.alloc.buffer.slice(64, 128), 1.0f, 128); }},
      {"add_kernel(Condition)", [&m](Fixture& f) { f.g.add_kernel(faults::set_flag, one_block, f.loop, m.flags); }},
      {"add_kernel(declared ranges)",
       [&m](Fixture& f) {
         f.g.add_kernel(faults::saxpy, one_block, gd::writes(m.x, 256), gd::reads(m.y, 256), f.lr, 256);
       }},
      {"add_kernel(launch attributes)",
       [&m](Fixture& f) {
         f.g.add_kernel(faults::scale, gd::Launch{dim3(2), dim3(64)}.with_cluster(dim3(2)), m.x, 1.0f, 256);
       }},
      {"add_set_condition", [&m](Fixture& f) { f.g.add_set_condition(f.loop, m.flags, gd::Compare::greater, 0); }},
  });
}

TEST_CASE("an allocation failure inside add_memset or add_memcpy leaves the plan as it was", "[faults][memory]") {
  faults::Memory& m = faults::memory();
  sweep_all({
      {"add_memset", [&m](Fixture& f) { f.g.add_memset(m.x, 0.0f, 256); }},
      {"add_memset(Parameter)", [&m](Fixture& f) { f.g.add_memset(m.y, f.lr, 256); }},
      {"add_memset(GraphBuffer)", [](Fixture& f) { f.g.add_memset(f.alloc.buffer, 1.0f, 256); }},
      {"add_memset(slice)", [](Fixture& f) { f.g.add_memset(f.alloc.buffer + 128, 1.0f, 128); }},
      {"add_memset_2d(GraphBuffer)",
       [](Fixture& f) { f.g.add_memset_2d(f.alloc.buffer.slice(8, 200), 64, 1.0f, 16, 4); }},
      {"add_memset_2d", [&m](Fixture& f) { f.g.add_memset_2d(m.x, 64, 1.0f, 16, 4); }},
      {"add_memset_raw", [&m](Fixture& f) { f.g.add_memset_raw(m.x, 7, 4, 16, 4, 64); }},
      {"add_memcpy", [&m](Fixture& f) { f.g.add_memcpy(m.y, m.host, 256); }},
      {"add_memcpy(Parameter dst)", [&m](Fixture& f) { f.g.add_memcpy(f.dst, m.host, 256); }},
      {"add_memcpy(Parameter src)", [&m](Fixture& f) { f.g.add_memcpy(m.host, f.src, 256); }},
      {"add_memcpy(Parameter dst, src)", [](Fixture& f) { f.g.add_memcpy(f.dst, f.src, 256); }},
      {"add_memcpy(GraphBuffer dst)", [&m](Fixture& f) { f.g.add_memcpy(f.alloc.buffer, m.host, 256); }},
      {"add_memcpy(GraphBuffer src)", [&m](Fixture& f) { f.g.add_memcpy(m.host, f.alloc.buffer, 256); }},
      {"add_memcpy(slice dst)", [&m](Fixture& f) { f.g.add_memcpy(f.alloc.buffer.slice(16, 64), m.host, 64); }},
      {"add_memcpy(GraphBuffer, GraphBuffer)",
       [](Fixture& f) { f.g.add_memcpy(f.alloc.buffer.slice(0, 128), f.alloc.buffer + 128, 128); }},
      {"add_memcpy_bytes", [&m](Fixture& f) { f.g.add_memcpy_bytes(m.y, m.x, 64); }},
      {"add_memcpy_2d", [&m](Fixture& f) { f.g.add_memcpy_2d(m.y, 64, m.x, 64, 32, 4); }},
      {"add_memcpy_3d",
       [&m](Fixture& f) {
         cudaMemcpy3DParms p{};
         p.srcPtr = cudaPitchedPtr{m.x, 64, 16, 4};
         p.dstPtr = cudaPitchedPtr{m.y, 64, 16, 4};
         p.extent = cudaExtent{64, 4, 1};
         p.kind = cudaMemcpyDefault;
         f.g.add_memcpy_3d(p);
       }},
      {"add_memcpy_peer", [&m](Fixture& f) { f.g.add_memcpy_peer(m.y, 0, m.x, 1, 64); }},
      {"add_memcpy_to_symbol", [&m](Fixture& f) { f.g.add_memcpy_to_symbol(m.symbol, m.x, 8, 4); }},
      {"add_memcpy_from_symbol", [&m](Fixture& f) { f.g.add_memcpy_from_symbol(m.y, m.symbol, 16); }},
      {"add_mem_alloc", [](Fixture& f) { f.g.add_mem_alloc<int>(64); }},
      {"add_mem_free", [](Fixture& f) { f.g.add_mem_free(f.spare.buffer); }},
  });
}

TEST_CASE("an allocation failure inside the add_* of the other node kinds leaves the plan as it was",
          "[faults][kinds]") {
  faults::Memory& m = faults::memory();
  sweep_all({
      {"add_host", with_host_witness},
      {"add_captured", with_capture_witness},
      {"add_child", [](Fixture& f) { f.g.add_child(f.other); }},
      {"add_child(itself)", [](Fixture& f) { f.g.add_child(f.g); }},
      {"add_child(Graph&&)", with_moved_child},
      {"add_child(Graph&&, plan with a parameter)",
       [](Fixture& f) {
         gd::Graph c = f.g;
         f.other.add_child(std::move(c));
       }},
      {"add_child(plan with a parameter)", [](Fixture& f) { f.other.add_child(f.g); }},
      {"add_child(plan using the parent's buffer)",
       [](Fixture& f) {
         gd::Graph c("uses buffer");
         c.add_memset(f.alloc.buffer.slice(8, 8), 2.0f, 8);
         gd::Graph inner("inner");
         inner.add_kernel(faults::scale, one_block, f.alloc.buffer, 1.0f, 256);
         c.add_child(inner);  // still open: resolved (nested copy and all) when `c` is added to f.g
         f.g.add_child(c);
       }},
      {"add_child(Graph&&, plan using the parent's buffer)",
       [](Fixture& f) {
         gd::Graph c("uses buffer");
         c.add_kernel(faults::scale, one_block, f.alloc.buffer, 1.0f, 256);
         f.g.add_child(std::move(c));
       }},
      {"add_mem_ops",
       [&m](Fixture& f) {
         f.g.add_mem_ops({gd::MemOp::write(&m.word, 1u), gd::MemOp::wait(&m.word, 1u)});
       }},
      {"add_semaphore_signal",
       [](Fixture& f) {
         f.g.add_semaphore_signal({{reinterpret_cast<cudaExternalSemaphore_t>(8), 1, 0}});
       }},
      {"add_semaphore_wait",
       [](Fixture& f) {
         f.g.add_semaphore_wait({{reinterpret_cast<cudaExternalSemaphore_t>(8), 1, 0, 0}});
       }},
      {"add_empty", [](Fixture& f) { f.g.add_empty(); }, false, true},
      {"add_event_record", [](Fixture& f) { f.g.add_event_record(gd::Event::create()); }},
      {"add_event_wait", [](Fixture& f) { f.g.add_event_wait(gd::Event::create()); }},
      {"add_condition", [](Fixture& f) { f.g.add_condition(3); }, false, true},
      {"parameter", [](Fixture& f) { f.g.parameter<double>(1.5); }, false, true},
  });
}

TEST_CASE("an allocation failure inside a conditional node's add_* leaves the plan as it was",
          "[faults][conditional]") {
  faults::Memory& m = faults::memory();
  const auto body = [&m](Fixture& f) {
    return [&m, &f](gd::Graph& b) {
      auto k = b.add_kernel(faults::scale, one_block, m.x, f.lr, 256).name("inner");
      b.add_memset(m.y, f.lr, 256).after(k);
    };
  };
  sweep_all({
      {"add_if", [body](Fixture& f) { f.g.add_if(f.cond, body(f)); }, true},
      {"add_if_else", [body](Fixture& f) { f.g.add_if_else(f.cond, body(f), body(f)); }, true},
      {"add_while",
       [&m](Fixture& f) {
         f.g.add_while(f.cond, [&](gd::Graph& b) { b.add_kernel(faults::set_flag, one_block, f.cond, m.flags); });
       },
       true},
      {"add_switch", [body](Fixture& f) { f.g.add_switch(f.cond, body(f), body(f), body(f)); }, true},
      {"add_while(body using the plan's buffer)",
       [&m](Fixture& f) {
         f.g.add_while(f.cond, [&](gd::Graph& b) {
           auto k = b.add_kernel(faults::scale, one_block, f.alloc.buffer, 1.0f, 256);
           b.add_memset(f.alloc.buffer.slice(0, 16), 0.0f, 16).after(k);
           b.add_kernel(faults::set_flag, one_block, f.cond, m.flags);
         });
       },
       true},
      {"add_conditional(nested)",
       [body](Fixture& f) {
         f.g.add_conditional(gd::ConditionalType::if_then, f.cond, 1, [&](unsigned, gd::Graph& b) {
           auto inner = b.add_condition(1);
           b.add_if(inner, body(f));
           b.add_child(f.other);
         });
       },
       true},
  });
}

namespace {
void wide(float*, const float*, float, float, int) {}

/// What Executable::set_kernel does to its recorded plan when it switches kernel node i of `g` to
/// node #0 of `one` (a kernel of another signature): the record swapped, the arena tidied.
void switch_kernel(gd::Graph& g, std::uint32_t i, const gd::Graph& one) {
  const gd::detail::GraphImpl& s = one.impl();
  const gd::detail::KernelData& k = gd::detail::kernel_of(s, 0);
  (void)gd::detail::swap_kernel(g.impl(), i, k.func, gd::detail::kernel_layout(s, 0), gd::detail::argument_block(s, k),
                                k.launch);
  gd::detail::tidy_arguments(g.impl());
}
}  // namespace

TEST_CASE("an allocation failure inside the plan side of set_kernel to another signature leaves the plan as it was",
          "[faults][set_kernel]") {
  faults::Memory& m = faults::memory();
  sweep_all({
      {"switch a kernel to a larger signature",
       [&m](Fixture& f) {
         gd::Graph one("setter");
         one.add_kernel(wide, one_block, m.y, m.x, 2.0f, 1.0f, 256);
         switch_kernel(f.other, 0, one);
       }},
      {"switch a kernel to a smaller signature",
       [&m](Fixture& f) {
         gd::Graph one("setter");
         one.add_kernel(faults::scale, one_block, m.y, 3.0f, 256);
         switch_kernel(f.other, 0, one);
       }},
  });
}

}  // namespace node_faults
