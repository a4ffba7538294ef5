// Memory-operations nodes (Graph::add_mem_ops: writes, waits and barriers, CUDA's batch memory
// operations) on the plan: how they are added, shown, compared and checked, without a GPU. On the
// device: tests/gpu/mem_op_test.cpp.
#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {
struct Words {
  alignas(8) std::uint32_t w32[4] = {};
  std::uint64_t w64[2] = {};
};

gd::Graph signal_plan(Words& w, std::uint32_t value) {
  gd::Graph g("signal");
  auto set = g.add_mem_ops({gd::MemOp::write(&w.w32[0], value), gd::MemOp::write(&w.w64[0], 0x100000003ull),
                            gd::MemOp::barrier()})
                 .name("set");
  g.add_mem_ops({gd::MemOp::wait(&w.w32[0], value, gd::MemOp::Until::equal)}).name("wait").after(set);
  return g;
}
}  // namespace

TEST_CASE("mem ops: a node of writes, waits and barriers is kept, shown and compared", "[mem_op]") {
  Words w;
  const auto calls = gd::debug::cuda_calls();
  const gd::Graph g = signal_plan(w, 41);
  CHECK_NOTHROW(g.validate());
  CHECK(g.node_count() == 2);
  CHECK(g.node(0).kind() == gd::NodeKind::mem_op);
  CHECK(std::string(gd::to_string(gd::NodeKind::mem_op)) == "mem_op");
  CHECK(g.dump() == "graph 'signal': 2 nodes, 1 edges\n"
                    "  #0 mem_op 'set': 3 operations: write32 41, write64 4294967299, barrier gpu\n"
                    "  #1 mem_op 'wait': 1 operation: wait32 until equal 41; after 'set'\n");
  CHECK_THAT(g.to_dot(), has_substr("mem_op"));
  // Values and comparisons are parameters (an update patches them); the number and the types of
  // the operations are the node's shape.
  CHECK(signal_plan(w, 7).fingerprint() == g.fingerprint());
  const gd::UpdateResult same = gd::diff(g, signal_plan(w, 41));
  CHECK(same.status == gd::UpdateStatus::success);
  CHECK(same.changed.empty());
  const gd::UpdateResult r = gd::diff(g, signal_plan(w, 7));
  CHECK(r.status == gd::UpdateStatus::success);
  CHECK(r.changed == std::vector<std::uint32_t>{0, 1});
  gd::Graph longer("signal");
  auto set = longer.add_mem_ops({gd::MemOp::write(&w.w32[0], 41u), gd::MemOp::write(&w.w64[0], 0x100000003ull)})
                 .name("set");
  longer.add_mem_ops({gd::MemOp::wait(&w.w32[0], 41u, gd::MemOp::Until::equal)}).name("wait").after(set);
  CHECK(longer.fingerprint() != g.fingerprint());
  const gd::UpdateResult shape = gd::diff(g, longer);
  CHECK(shape.status == gd::UpdateStatus::parameters_changed);
  CHECK(shape.reason == "mem_op node 'set' (#0): 3 operations in the executable, 2 in the template; CUDA cannot "
                        "change the number or the types of a node's memory operations in place");
  CHECK(gd::debug::cuda_calls() == calls);
}

TEST_CASE("mem ops: add_mem_ops and validate() refuse what CUDA would refuse or misread", "[mem_op]") {
  Words w;
  gd::Graph g("g");
  CHECK_USAGE_ERROR(g.add_mem_ops({}), "graphdsl: add_mem_ops: 0 operations; a memory-operations node runs 1 to 255");
  CHECK_USAGE_ERROR(g.add_mem_ops(std::vector<gd::MemOp>(256, gd::MemOp::barrier())),
                    "graphdsl: add_mem_ops: 256 operations; a memory-operations node runs 1 to 255");
  CHECK(g.node_count() == 0);
  auto check = [&](gd::MemOp op) {
    gd::Graph h("h");
    h.add_mem_ops({gd::MemOp::barrier(), op}).name("ops");
    return unit::usage_error_of([&] { h.validate(); });
  };
  CHECK(check(gd::MemOp::write(static_cast<std::uint32_t*>(nullptr), 1u)) ==
        "graphdsl: mem_op node 'ops' (#0): operation 1 (write32) has a null address");
  auto* odd = reinterpret_cast<std::uint64_t*>(&w.w32[1]);  // 4-byte aligned, not 8
  CHECK(check(gd::MemOp::wait(odd, 1ull)) ==
        "graphdsl: mem_op node 'ops' (#0): operation 1 (wait64) needs an 8-byte aligned address");
  gd::MemOp bad = gd::MemOp::wait(&w.w32[0], 1u);
  bad.until = static_cast<gd::MemOp::Until>(9);
  CHECK(check(bad) == "graphdsl: mem_op node 'ops' (#0): operation 1 (wait32): MemOp::Until 9 is not a comparison");
  bad = gd::MemOp::write(&w.w32[0], 1u);
  bad.value = 0x100000000ull;
  CHECK(check(bad) ==
        "graphdsl: mem_op node 'ops' (#0): operation 1 (write32): the value 4294967296 does not fit in 32 bits");
  bad.type = static_cast<gd::MemOp::Type>(12);
  CHECK(check(bad) == "graphdsl: mem_op node 'ops' (#0): operation 1: MemOp::Type 12 is not an operation");
  bad = gd::MemOp::barrier();
  bad.scope = static_cast<gd::MemOp::Scope>(5);
  CHECK(check(bad) == "graphdsl: mem_op node 'ops' (#0): operation 1 (barrier): MemOp::Scope 5 is not a scope");
}

TEST_CASE("mem ops: a conditional body cannot hold one (CUDA refuses it at compile time)", "[mem_op][conditional]") {
  Words w;
  gd::Graph g("outer");
  const gd::Condition c = g.add_condition(1);
  g.add_if(c, [&](gd::Graph& body) { body.add_mem_ops({gd::MemOp::write(&w.w32[0], 1u)}).name("poke"); }).name("if");
  const std::string e = unit::usage_error_of([&] { g.validate(); });
  CHECK_THAT(e, has_substr("mem_op node 'poke' (#0)"));
  CHECK_THAT(e, has_substr("mem_op nodes are not allowed in a conditional body"));
}

TEST_CASE("mem ops: check_races sees writes and waits as accesses of their words", "[mem_op][races]") {
  Words w;
  unit::Buffers b;
  gd::Graph g("g");
  g.add_mem_ops({gd::MemOp::write(&w.w32[0], 1u)}).name("set");
  g.add_mem_ops({gd::MemOp::wait(&w.w32[0], 1u)}).name("wait");
  g.add_mem_ops({gd::MemOp::write(&w.w32[2], 1u)}).name("other");  // another word: no race
  const gd::RaceReport r = g.check_races();
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].first.node.name == "set");
  CHECK(r.races[0].second.node.name == "wait");
}
