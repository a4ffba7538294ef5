// Shared parameters (Graph::parameter, graphdsl/parameter.hpp) on the host: declaration, the type
// and ownership rules with their exact messages, and how dumps, DOT, fingerprints and diffs show
// them. Executable::set needs a device: tests/gpu/parameter_test.cpp.
#include <cstdint>
#include <string>

#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {

const gd::Launch one_block{dim3(1), dim3(256)};

void scale_d(float*, double, int) {}
void fill_i(int*, int, int) {}

/// 'a' x *= lr ; 'b' y *= lr ; 'zero' z = lr (memset) ; 'c' x *= 3
gd::Graph lr_plan(unit::Buffers& b, float lr_value, const char* name = "train") {
  gd::Graph g(name);
  auto lr = g.parameter<float>(lr_value).name("lr");
  auto a = g.add_kernel(unit::scale, one_block, b.x, lr, 256).name("a");
  g.add_kernel(unit::scale, one_block, b.y, lr, 256).name("b").after(a);
  g.add_memset(b.z, lr, 256).name("zero");
  g.add_kernel(unit::scale, one_block, b.x, 3.0f, 256).name("c").after(a);
  return g;
}

}  // namespace

TEST_CASE("parameter declares a named, typed value on the plan", "[parameter]") {
  gd::Graph g("train");
  auto lr = g.parameter<float>(0.25f).name("lr");
  auto steps = g.parameter<int>(-3);
  CHECK(lr.valid());
  CHECK_FALSE(gd::Parameter<float>().valid());
  CHECK(lr.name() == "lr");
  CHECK(steps.name().empty());
  CHECK(lr.value() == 0.25f);
  CHECK(steps.value() == -3);
  CHECK(lr.id() != steps.id());
  CHECK(g.node_count() == 0);
  CHECK(g.dump() ==
        "graph 'train': 0 nodes, 0 edges\n"
        "  parameter #0 'lr': float = 0.25, 0 uses\n"
        "  parameter #1: int32 = -3, 0 uses\n");
}

TEST_CASE("a parameter stands for kernel arguments and memset values, shown by name in dumps", "[parameter]") {
  unit::Buffers b;
  CHECK_NO_CUDA_CALL(lr_plan(b, 0.25f));
  const gd::Graph g = lr_plan(b, 0.25f);
  CHECK(g.dump() ==
        "graph 'train': 4 nodes, 2 edges\n"
        "  parameter #0 'lr': float = 0.25, 3 uses\n"
        "  #0 kernel 'a': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), argument 2: lr=0.25\n"
        "  #1 kernel 'b': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), argument 2: lr=0.25; after 'a'\n"
        "  #2 memset 'zero': value lr=0.25 (float), 4-byte elements, 256 x 1\n"
        "  #3 kernel 'c': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B); after 'a'\n");
  const std::string dot = g.to_dot();
  CHECK(dot.find("n0 [label=\"a\\nkernel\\nlr=0.25\", shape=box];") != std::string::npos);
  CHECK(dot.find("n2 [label=\"zero\\nmemset\\nlr=0.25\", shape=cds];") != std::string::npos);
  CHECK(dot.find("n3 [label=\"c\\nkernel\", shape=box];") != std::string::npos);
}

TEST_CASE("a pointer parameter fits T* and const T* kernel parameters, and the race checker sees it", "[parameter]") {
  unit::Buffers b;
  gd::Graph g("ping");
  auto buf = g.parameter<float*>(b.x).name("buf");
  g.add_kernel(unit::saxpy, one_block, buf, buf, 2.0f, 256).name("self");
  g.add_kernel(unit::scale, one_block, buf, 0.5f, 256).name("other");
  CHECK(g.dump() ==
        "graph 'ping': 2 nodes, 0 edges\n"
        "  parameter #0 'buf': float* = (pointer), 3 uses\n"
        "  #0 kernel 'self': grid (1,1,1) block (256,1,1) shared 0 B, 4 args (24 B), argument 1: buf=(pointer), "
        "argument 2: buf=(pointer)\n"
        "  #1 kernel 'other': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), argument 1: buf=(pointer)\n");
  // Both kernels write b.x through the parameter and no edge orders them.
  const gd::RaceReport r = g.check_races();
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].first.node.name == "self");
  CHECK(r.races[0].second.node.name == "other");
}

TEST_CASE("a parameter of another type is refused with the node, the argument and the rule", "[parameter]") {
  unit::Buffers b;
  gd::Graph g("train");
  g.add_empty();
  auto lr = g.parameter<double>(0.5).name("lr");
  auto count = g.parameter<int>(3).name("count");
  const std::string before = g.dump();
  CHECK_USAGE_ERROR(g.add_kernel(unit::scale, one_block, b.x, lr, 256),
                    "graphdsl: add_kernel: argument 2 of kernel node #1 of graph 'train' is parameter 'lr' of type "
                    "double, but the kernel's parameter 2 is of type float: a parameter is passed as it is, never "
                    "converted, so its type must be the kernel parameter's type (a Parameter<U*> also fits a const U* "
                    "parameter)");
  CHECK_USAGE_ERROR(g.add_kernel(scale_d, one_block, b.x, count, 256),
                    "graphdsl: add_kernel: argument 2 of kernel node #1 of graph 'train' is parameter 'count' of type "
                    "int32, but the kernel's parameter 2 is of type double: a parameter is passed as it is, never "
                    "converted, so its type must be the kernel parameter's type (a Parameter<U*> also fits a const U* "
                    "parameter)");
  CHECK_USAGE_ERROR(g.add_memset(b.x, count, 256),
                    "graphdsl: add_memset: the value of memset node #1 of graph 'train' is parameter 'count' of type "
                    "int32, but the memset's element is of type float: a parameter is passed as it is, never "
                    "converted, so its type must be the memset's element type");
  auto cptr = g.parameter<const float*>(b.x).name("cptr");
  CHECK_USAGE_ERROR(g.add_kernel(unit::scale, one_block, cptr, 1.0f, 256),
                    "graphdsl: add_kernel: argument 1 of kernel node #1 of graph 'train' is parameter 'cptr' of type "
                    "const float*, but the kernel's parameter 1 is of type float*: a parameter is passed as it is, "
                    "never converted, so its type must be the kernel parameter's type (a Parameter<U*> also fits a "
                    "const U* parameter)");
  // The refused calls left the plan as it was: no node, no use, no argument bytes.
  CHECK(g.dump() ==
        "graph 'train': 1 nodes, 0 edges\n"
        "  parameter #0 'lr': double = 0.5, 0 uses\n"
        "  parameter #1 'count': int32 = 3, 0 uses\n"
        "  parameter #2 'cptr': const float* = (pointer), 0 uses\n"
        "  #0 empty\n");
  CHECK(before.find("cptr") == std::string::npos);
  CHECK(g.node_count() == 1);
  g.add_kernel(fill_i, one_block, b.flags, count, 64).name("fill");
  CHECK(g.dump().find("#1 kernel 'fill': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), argument 2: "
                      "count=3\n") != std::string::npos);
}

TEST_CASE("a parameter of another plan, an empty one, or one in a body or child plan is refused", "[parameter]") {
  unit::Buffers b;
  gd::Graph other("other");
  auto lr = other.parameter<float>(1.0f).name("lr");
  gd::Graph g("train");
  CHECK_USAGE_ERROR(g.add_kernel(unit::scale, one_block, b.x, lr, 256),
                    "graphdsl: add_kernel: argument 2 of kernel node #0 of graph 'train' is parameter 'lr' of graph "
                    "'other' (plan id " + std::to_string(other.id()) + "), not of graph 'train'; a parameter is used "
                    "in the plan that declares it (or a copy of that plan) and in the conditional bodies built inside "
                    "it; another plan embeds it with add_child");
  CHECK_USAGE_ERROR(g.add_memset(b.x, gd::Parameter<float>(), 256),
                    "graphdsl: add_memset: the value of memset node #0 of graph 'train' is an empty Parameter "
                    "(default-constructed); pass one made by Graph::parameter()");
  CHECK(g.node_count() == 0);

  // A copy of the declaring plan keeps its parameters: the handle works there too.
  gd::Graph copy = other;
  copy.add_kernel(unit::scale, one_block, b.x, lr, 256).name("k");
  CHECK(copy.dump().find("argument 2: lr=1\n") != std::string::npos);
  CHECK(other.node_count() == 0);

  // A conditional body cannot declare one (it uses the enclosing plan's), nor use another plan's.
  auto cond = g.add_condition(1);
  CHECK_USAGE_ERROR(g.add_while(cond, [&](gd::Graph& body) { (void)body.parameter<float>(1.0f); }),
                    "graphdsl: parameter<float>: graph 'while body' is a conditional body or a recorded plan; "
                    "parameters are declared on top-level plans (a body uses the parameters of the plans enclosing "
                    "it)");
  CHECK_USAGE_ERROR(g.add_while(cond, [&](gd::Graph& body) { body.add_kernel(unit::scale, one_block, b.x, lr, 256); }),
                    "graphdsl: add_kernel: argument 2 of kernel node #0 of graph 'while body' is parameter 'lr' of "
                    "graph 'other' (plan id " + std::to_string(other.id()) + "), not of graph 'while body' or a plan "
                    "enclosing it (a conditional body being built); a parameter is used in the plan that declares it "
                    "(or a copy of that plan) and in the conditional bodies built inside it; another plan embeds it "
                    "with add_child");
  CHECK(g.node_count() == 0);
}

TEST_CASE("a conditional body uses the parameters of the plans enclosing it, at any depth", "[parameter][conditional]") {
  unit::Buffers b;
  gd::Graph g("train");
  auto lr = g.parameter<float>(0.5f).name("lr");
  auto more = g.add_condition(1);
  auto inner = g.add_condition(0);
  g.add_while(more, [&](gd::Graph& body) {
     // A refused use inside the body leaves no trace of the parameter there.
     CHECK_THROWS_AS(body.add_kernel(scale_d, one_block, b.x, lr, 256), gd::UsageError);
     CHECK(body.dump().find("parameter") == std::string::npos);
     body.add_kernel(unit::scale, one_block, b.x, lr, 256).name("step");
     body.add_if(inner, [&](gd::Graph& then) { then.add_memset(b.z, lr, 256).name("fill"); }).name("maybe");
   }).name("loop");
  const std::string dump = g.dump();
  INFO(dump);
  CHECK(dump.find("  parameter #0 'lr': float = 0.5, 0 uses, used in 1 nested plan\n") != std::string::npos);
  CHECK(dump.find("    parameter #0 'lr': float = 0.5, 1 use, used in 1 nested plan (declared outside this plan)\n") !=
        std::string::npos);
  CHECK(dump.find("      parameter #0 'lr': float = 0.5, 1 use (declared outside this plan)\n") != std::string::npos);
  CHECK(dump.find("#0 kernel 'step': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B), argument 2: lr=0.5\n") !=
        std::string::npos);
  CHECK(dump.find("#0 memset 'fill': value lr=0.5 (float)") != std::string::npos);

  // Renaming reaches the nested entries; plans built the same way fingerprint equal, and a copy owns its bodies.
  lr.name("rate");
  CHECK(g.dump().find("argument 2: rate=0.5\n") != std::string::npos);
  CHECK(g.dump().find("value rate=0.5 (float)") != std::string::npos);
  gd::Graph copy = g;
  lr.name("lr");
  CHECK(copy.dump().find("argument 2: rate=0.5\n") != std::string::npos);
  CHECK(g.dump().find("argument 2: lr=0.5\n") != std::string::npos);
  CHECK(copy.fingerprint() == g.fingerprint());

  // A plan whose body uses a plain value where this one uses the parameter differs in structure.
  gd::Graph plain("train");
  (void)plain.parameter<float>(0.5f).name("lr");
  auto more2 = plain.add_condition(1);
  auto inner2 = plain.add_condition(0);
  plain.add_while(more2, [&](gd::Graph& body) {
     body.add_kernel(unit::scale, one_block, b.x, 0.5f, 256).name("step");
     body.add_if(inner2, [&](gd::Graph& then) { then.add_memset(b.z, 0.5f, 256).name("fill"); }).name("maybe");
   }).name("loop");
  CHECK(plain.fingerprint() != g.fingerprint());
  const gd::UpdateResult r = gd::diff(g, plain);
  INFO(r.to_string());
  CHECK(r.status == gd::UpdateStatus::topology_changed);
  CHECK(r.reason.find("parameter 'lr' is declared here and used in 1 nested plans in the executable, declared here "
                      "and used in 0 in the template") != std::string::npos);
}

TEST_CASE("a child plan's parameters become parameters of the plan that embeds it", "[parameter][child]") {
  unit::Buffers b;
  gd::Graph child("child");
  auto scale = child.parameter<float>(2.0f).name("scale");
  child.add_kernel(unit::scale, one_block, b.x, scale, 256).name("k");
  gd::Graph g("outer");
  auto lr = g.parameter<float>(1.0f).name("lr");
  g.add_kernel(unit::scale, one_block, b.y, lr, 256).name("top");
  g.add_child(child).name("sub");
  g.add_child(child).name("sub2");
  const std::string dump = g.dump();
  INFO(dump);
  CHECK(dump.find("  parameter #0 'lr': float = 1, 1 use\n") != std::string::npos);
  CHECK(dump.find("  parameter #1 'scale': float = 2, 0 uses, used in 2 nested plans (declared outside this plan)\n") !=
        std::string::npos);
  CHECK(dump.find("    parameter #0 'scale': float = 2, 1 use\n") != std::string::npos);
  // Still a value of the child plan's declaration.
  CHECK(scale.value() == 2.0f);
  CHECK_NOTHROW(g.validate());
}

TEST_CASE("a parameter handle outliving its plan, and setting one on an empty executable, are refused", "[parameter]") {
  gd::Parameter<float> lr;
  std::uint64_t plan_id = 0;
  {
    gd::Graph g("gone");
    lr = g.parameter<float>(1.0f).name("lr");
    plan_id = g.id();
  }
  CHECK_USAGE_ERROR(lr.name(),
                    "graphdsl: a parameter (id " + std::to_string(lr.id()) + ") of graph 'gone' (plan id " +
                        std::to_string(plan_id) + ") was used after its plan was destroyed; a Parameter handle is "
                        "usable only while its plan is alive");
  gd::Executable empty;
  CHECK_USAGE_ERROR(empty.set(lr, 2.0f), "graphdsl: use of an empty or moved-from Executable");
}

TEST_CASE("fingerprints count which arguments are parameters, not their values or names", "[parameter][update]") {
  unit::Buffers b;
  const gd::Graph p1 = lr_plan(b, 0.25f);
  const gd::Graph p2 = lr_plan(b, 0.5f, "other name");
  CHECK(p1.fingerprint() == p2.fingerprint());
  gd::Graph plain("train");  // the same nodes with plain values
  auto a = plain.add_kernel(unit::scale, one_block, b.x, 0.25f, 256).name("a");
  plain.add_kernel(unit::scale, one_block, b.y, 0.25f, 256).name("b").after(a);
  plain.add_memset(b.z, 0.25f, 256).name("zero");
  plain.add_kernel(unit::scale, one_block, b.x, 3.0f, 256).name("c").after(a);
  CHECK(plain.fingerprint() != p1.fingerprint());
}

TEST_CASE("diff lists the nodes a changed parameter feeds and names a parameter the template lacks",
          "[parameter][update]") {
  unit::Buffers b;
  const gd::Graph p1 = lr_plan(b, 0.25f);
  const gd::UpdateResult same = gd::diff(p1, lr_plan(b, 0.25f));
  CHECK(same);
  CHECK(same.changed.empty());
  const gd::UpdateResult r = gd::diff(p1, lr_plan(b, 0.5f));
  CHECK(r);
  CHECK(r.changed == std::vector<std::uint32_t>{0, 1, 2});
  CHECK(r.to_string() == "update possible: 3 nodes differ");

  gd::Graph plain("train");  // 'b' takes a plain value where the executable's takes lr
  auto lr = plain.parameter<float>(0.25f).name("lr");
  auto a = plain.add_kernel(unit::scale, one_block, b.x, lr, 256).name("a");
  plain.add_kernel(unit::scale, one_block, b.y, 0.25f, 256).name("b").after(a);
  plain.add_memset(b.z, lr, 256).name("zero");
  plain.add_kernel(unit::scale, one_block, b.x, 3.0f, 256).name("c").after(a);
  const gd::UpdateResult refused = gd::diff(p1, plain);
  CHECK(refused.status == gd::UpdateStatus::topology_changed);
  CHECK(refused.reason == "argument 2 of kernel node 'b' (#1) is parameter 'lr' in the executable but not in the template");
  REQUIRE(refused.node);
  CHECK(refused.node->name == "b");

  gd::Graph none("train");  // the same nodes with plain values: no parameter at all
  auto na = none.add_kernel(unit::scale, one_block, b.x, 0.25f, 256).name("a");
  none.add_kernel(unit::scale, one_block, b.y, 0.25f, 256).name("b").after(na);
  none.add_memset(b.z, 0.25f, 256).name("zero");
  none.add_kernel(unit::scale, one_block, b.x, 3.0f, 256).name("c").after(na);
  const gd::UpdateResult fewer = gd::diff(p1, none);
  CHECK(fewer.status == gd::UpdateStatus::topology_changed);
  CHECK(fewer.reason == "graph 'train' has 0 parameters in the template, 1 in the executable");
}

TEST_CASE("a pointer parameter stands for a memcpy's destination or source, by name in dumps and diffs",
          "[parameter]") {
  unit::Buffers b;
  gd::Graph g("ping");
  auto src = g.parameter<const float*>(b.x).name("src");
  auto dst = g.parameter<float*>(b.y).name("dst");
  CHECK_NO_CUDA_CALL(g.add_memcpy(b.z, src, 256));
  g.add_memcpy(dst, b.host_in, 256).name("in");
  g.add_memcpy(dst, src, 256).name("both");
  CHECK(g.dump() ==
        "graph 'ping': 3 nodes, 0 edges\n"
        "  parameter #0 'src': const float* = (pointer), 2 uses\n"
        "  parameter #1 'dst': float* = (pointer), 2 uses\n"
        "  #0 memcpy: 1024 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time), source is "
        "parameter src\n"
        "  #1 memcpy 'in': 1024 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time), "
        "destination is parameter dst\n"
        "  #2 memcpy 'both': 1024 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time), "
        "destination is parameter dst, source is parameter src\n");
  // The race checker sees the parameters' pointers: 'in' and 'both' write b.y unordered.
  const gd::RaceReport r = g.check_races();
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].first.node.name == "in");
  CHECK(r.races[0].second.node.name == "both");

  // Which endpoint is a parameter is structure: the fingerprint and diff tell them apart.
  gd::Graph d1("one");
  auto p1 = d1.parameter<float*>(b.x).name("p");
  d1.add_memcpy(p1, b.y, 256);
  gd::Graph d2("one");
  auto p2 = d2.parameter<float*>(b.x).name("p");
  d2.add_memcpy(b.x, p2, 256);
  CHECK(d1.fingerprint() != d2.fingerprint());
  const gd::UpdateResult r12 = gd::diff(d1, d2);
  CHECK(r12.status == gd::UpdateStatus::topology_changed);
  CHECK(r12.reason.find("the destination of memcpy node #0 is parameter 'p' in the executable but not in the "
                         "template") != std::string::npos);
}

TEST_CASE("a memcpy endpoint parameter of another plan or an empty one is refused before the node is added",
          "[parameter]") {
  unit::Buffers b;
  gd::Graph other("other");
  auto buf = other.parameter<float*>(b.x).name("buf");
  gd::Graph g("train");
  auto mine = g.parameter<float*>(b.y).name("mine");
  CHECK_USAGE_ERROR(
      g.add_memcpy(mine, buf, 256),
      "graphdsl: add_memcpy: the source of memcpy node #0 of graph 'train' is parameter 'buf' of graph "
      "'other' (plan id " +
          std::to_string(other.id()) +
          "), not of graph 'train'; a parameter is used "
          "in the plan that declares it (or a copy of that plan) and in the conditional bodies built inside it; "
          "another plan embeds it with add_child");
  CHECK_USAGE_ERROR(g.add_memcpy(gd::Parameter<float*>(), b.x, 256),
                    "graphdsl: add_memcpy: the destination of memcpy node #0 of graph 'train' is an empty Parameter "
                    "(default-constructed); pass one made by Graph::parameter()");
  CHECK(g.node_count() == 0);
  CHECK(g.dump() == "graph 'train': 0 nodes, 0 edges\n  parameter #0 'mine': float* = (pointer), 0 uses\n");
}
