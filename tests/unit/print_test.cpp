// Graph::dump(), Graph::to_dot() and the fmt formatters of graphdsl/format.hpp. The expected texts
// follow src/plan/print.cpp and the describe sections of src/kinds/ and are asserted literally.
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "unit_support.hpp"

namespace gd = graphdsl;

namespace {

/// upload -> {scale_x, scale_y} -> join -> download -> done; join -> #6; {#6, done} -> tail (child)
gd::Graph make_pipeline(unit::Buffers& b) {
  gd::Graph g("pipeline");
  auto up = g.add_memcpy(b.x, b.host_in, 256).name("upload");
  auto sx = g.add_kernel(unit::scale, gd::Launch{dim3(1), dim3(256)}, b.x, 2.0f, 256).name("scale_x").after(up);
  auto sy = g.add_kernel(unit::scale, gd::Launch{dim3(1), dim3(256)}, b.y, 3.0f, 256).name("scale_y").after(up);
  auto join = g.add_kernel(unit::add, gd::Launch{dim3(2), dim3(128), 512, 3}, b.x, b.y, b.z, 256)
                  .name("join")
                  .after(sx, sy);
  auto down = g.add_memcpy(b.host_out, b.z, 256, cudaMemcpyDeviceToHost).name("download").after(join);
  auto done = g.add_host([] {}).name("done").after(down);
  auto fence = g.add_empty().after(join);

  gd::Graph sub("cleanup");
  auto clear = sub.add_memset(reinterpret_cast<std::uint16_t*>(b.flags), std::uint16_t{0xBEEF}, 32).name("clear");
  sub.add_kernel(unit::step, gd::Launch{}, b.flags).after(clear);
  g.add_child(sub).name("tail").after(fence, done);
  return g;
}

const char* const pipeline_dump =
    "graph 'pipeline': 8 nodes, 9 edges\n"
    "  #0 memcpy 'upload': 1024 x 1 x 1 bytes, cudaMemcpyDefault (direction inferred by CUDA at run time)\n"
    "  #1 kernel 'scale_x': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B); after 'upload'\n"
    "  #2 kernel 'scale_y': grid (1,1,1) block (256,1,1) shared 0 B, 3 args (16 B); after 'upload'\n"
    "  #3 kernel 'join': grid (2,1,1) block (128,1,1) shared 512 B, 4 args (28 B), priority 3; after 'scale_x', "
    "'scale_y'\n"
    "  #4 memcpy 'download': 1024 x 1 x 1 bytes, device-to-host; after 'join'\n"
    "  #5 host 'done': a callable; after 'download'\n"
    "  #6 empty; after 'join'\n"
    "  #7 child 'tail': graph 'cleanup', 2 nodes, 1 edges; after #6, 'done'\n"
    "      #0 memset 'clear': value 48879 (uint16), 2-byte elements, 32 x 1\n"
    "      #1 kernel: grid (1,1,1) block (1,1,1) shared 0 B, 1 args (8 B); after 'clear'\n";

const char* const pipeline_dot =
    "digraph \"pipeline\" {\n"
    "  rankdir=TB;\n"
    "  node [fontname=\"Helvetica\"];\n"
    "  n0 [label=\"upload\\nmemcpy\", shape=cds];\n"
    "  n1 [label=\"scale_x\\nkernel\", shape=box];\n"
    "  n2 [label=\"scale_y\\nkernel\", shape=box];\n"
    "  n3 [label=\"join\\nkernel\", shape=box];\n"
    "  n4 [label=\"download\\nmemcpy\", shape=cds];\n"
    "  n5 [label=\"done\\nhost\", shape=hexagon];\n"
    "  n6 [label=\"#6\\nempty\", shape=point];\n"
    "  n7 [label=\"tail\\nchild\", shape=box3d];\n"
    "  n0 -> n1;\n"
    "  n0 -> n2;\n"
    "  n1 -> n3;\n"
    "  n2 -> n3;\n"
    "  n3 -> n4;\n"
    "  n4 -> n5;\n"
    "  n3 -> n6;\n"
    "  n6 -> n7;\n"
    "  n5 -> n7;\n"
    "  subgraph cluster_n7 {\n"
    "    label=\"cleanup\";\n"
    "    style=dashed;\n"
    "    n7_0 [label=\"clear\\nmemset\", shape=cds];\n"
    "    n7_1 [label=\"#1\\nkernel\", shape=box];\n"
    "    n7_0 -> n7_1;\n"
    "  }\n"
    "  n7 -> n7_0 [style=dotted, arrowhead=none];\n"
    "}\n";

}  // namespace

TEST_CASE("dump() of a named pipeline with a child plan", "[print][dump]") {
  unit::Buffers b;
  const gd::Graph g = make_pipeline(b);
  CHECK_NO_CUDA_CALL(g.dump());
  CHECK(g.dump() == pipeline_dump);
}

TEST_CASE("to_dot() of a named pipeline with a child plan", "[print][dot]") {
  unit::Buffers b;
  const gd::Graph g = make_pipeline(b);
  CHECK_NO_CUDA_CALL(g.to_dot());
  CHECK(g.to_dot() == pipeline_dot);
}

TEST_CASE("dump() and to_dot() are deterministic and leave pointer values out", "[print][dump][dot]") {
  unit::Buffers b1;
  unit::Buffers b2;  // other addresses
  const gd::Graph g1 = make_pipeline(b1);
  const gd::Graph g2 = make_pipeline(b2);
  CHECK(g1.id() != g2.id());
  CHECK(g1.dump() == g2.dump());
  CHECK(g1.to_dot() == g2.to_dot());
  CHECK(g1.dump() == g1.dump());
  CHECK(gd::Graph(g1).dump() == g1.dump());
}

TEST_CASE("dump() of an empty plan is its header line", "[print][dump]") {
  CHECK(gd::Graph("nothing").dump() == "graph 'nothing': 0 nodes, 0 edges\n");
  CHECK(gd::Graph().to_dot() == "digraph \"graph\" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n}\n");
}

TEST_CASE("dump() shows typed memset values, 2-D shapes, copy directions and event nodes", "[print][dump]") {
  unit::Buffers b;
  gd::Graph g("details");
  g.add_memset(b.x, 1.0f, 8);
  g.add_memset_2d(reinterpret_cast<std::uint8_t*>(b.y), 64, std::uint8_t{0x7f}, 48, 3).name("rows");
  g.add_memcpy_2d(b.x, 128, b.y, 64, 64, 4, cudaMemcpyHostToDevice);
  g.add_memcpy_bytes(b.x, b.y, 3, cudaMemcpyHostToHost);
  g.add_memcpy_bytes(b.x, b.y, 5, cudaMemcpyDeviceToDevice);
  g.add_memcpy_bytes(b.x, b.y, 5, static_cast<cudaMemcpyKind>(6));
  g.add_event_record(gd::Event{}).name("rec");
  g.add_event_wait(gd::Event{});
  CHECK(g.dump() ==
        "graph 'details': 8 nodes, 0 edges\n"
        "  #0 memset: value 1 (float), 4-byte elements, 8 x 1\n"
        "  #1 memset 'rows': value 127 (uint8), 1-byte elements, 48 x 3, pitch 64 bytes\n"
        "  #2 memcpy: 64 x 4 x 1 bytes, host-to-device\n"
        "  #3 memcpy: 3 x 1 x 1 bytes, host-to-host\n"
        "  #4 memcpy: 5 x 1 x 1 bytes, device-to-device\n"
        "  #5 memcpy: 5 x 1 x 1 bytes, invalid\n"
        "  #6 event_record 'rec': empty Event\n"
        "  #7 event_wait: empty Event\n");
}

TEST_CASE("to_dot() escapes quotes and backslashes in node and graph names", "[print][dot]") {
  gd::Graph g("my \"plan\"");
  g.add_empty().name("say \"hi\"");
  g.add_kernel(unit::no_args, gd::Launch{}).name("C:\\path").after(g.node(0));
  gd::Graph sub("sub \"x\"");
  sub.add_host([] {});
  g.add_child(sub);
  CHECK(g.to_dot() ==
        "digraph \"my \\\"plan\\\"\" {\n"
        "  rankdir=TB;\n"
        "  node [fontname=\"Helvetica\"];\n"
        "  n0 [label=\"say \\\"hi\\\"\\nempty\", shape=point];\n"
        "  n1 [label=\"C:\\\\\\\\path\\nkernel\", shape=box];\n"  // the name's \\ escaped, then DOT-escaped
        "  n2 [label=\"#2\\nchild\", shape=box3d];\n"
        "  n0 -> n1;\n"
        "  subgraph cluster_n2 {\n"
        "    label=\"sub \\\"x\\\"\";\n"
        "    style=dashed;\n"
        "    n2_0 [label=\"#0\\nhost\", shape=hexagon];\n"
        "  }\n"
        "  n2 -> n2_0 [style=dotted, arrowhead=none];\n"
        "}\n");
  // dump() shows names escaped (docs/errors.md, "Names in messages"): the backslash doubled
  CHECK(g.dump() ==
        "graph 'my \"plan\"': 3 nodes, 1 edges\n"
        "  #0 empty 'say \"hi\"'\n"
        "  #1 kernel 'C:\\\\path': grid (1,1,1) block (1,1,1) shared 0 B, 0 args (0 B); after 'say \"hi\"'\n"
        "  #2 child: graph 'sub \"x\"', 1 nodes, 0 edges\n"
        "      #0 host: a callable\n");
}

TEST_CASE("nested child plans get nested clusters with prefixed ids", "[print][dot][child]") {
  gd::Graph leaf("leaf");
  leaf.add_empty();
  gd::Graph mid("mid");
  mid.add_child(leaf);
  gd::Graph top("top");
  top.add_empty();
  top.add_child(mid);
  CHECK(top.to_dot() ==
        "digraph \"top\" {\n"
        "  rankdir=TB;\n"
        "  node [fontname=\"Helvetica\"];\n"
        "  n0 [label=\"#0\\nempty\", shape=point];\n"
        "  n1 [label=\"#1\\nchild\", shape=box3d];\n"
        "  subgraph cluster_n1 {\n"
        "    label=\"mid\";\n"
        "    style=dashed;\n"
        "    n1_0 [label=\"#0\\nchild\", shape=box3d];\n"
        "    subgraph cluster_n1_0 {\n"
        "      label=\"leaf\";\n"
        "      style=dashed;\n"
        "      n1_0_0 [label=\"#0\\nempty\", shape=point];\n"
        "    }\n"
        "    n1_0 -> n1_0_0 [style=dotted, arrowhead=none];\n"
        "  }\n"
        "  n1 -> n1_0 [style=dotted, arrowhead=none];\n"
        "}\n");
  CHECK(top.dump() ==
        "graph 'top': 2 nodes, 0 edges\n"
        "  #0 empty\n"
        "  #1 child: graph 'mid', 1 nodes, 0 edges\n"
        "      #0 child: graph 'leaf', 1 nodes, 0 edges\n"
        "          #0 empty\n");
}

// ---- fmt formatters ----------------------------------------------------------------------------

TEST_CASE("fmt formats a Graph as its dump", "[print][fmt]") {
  unit::Buffers b;
  const gd::Graph g = make_pipeline(b);
  CHECK(fmt::format("{}", g) == pipeline_dump);
}

TEST_CASE("fmt formats node handles, NodeInfo, NodeKind and Launch", "[print][fmt]") {
  unit::Buffers b;
  gd::Graph g = make_pipeline(b);
  const auto join = *g.find("join");
  CHECK(fmt::format("{}", join) == "kernel node 'join' (#3)");
  CHECK(fmt::format("{}", g.node(6)) == "empty node #6");
  auto k = g.add_kernel(unit::scale, gd::Launch{}, b.x, 1.0f, 1).name("typed");
  CHECK(fmt::format("{}", k) == "kernel node 'typed' (#8)");  // a typed handle
  CHECK(fmt::format("{}", g.add_host([] {})) == "host node #9");
  CHECK(fmt::format("{}", join.info()) == "kernel node 'join' (#3)");
  CHECK(fmt::format("{}", gd::NodeKind::event_record) == "event_record");
  CHECK(fmt::format("[{:>8}]", gd::NodeKind::host) == "[    host]");  // string format specs apply
  CHECK(fmt::format("{}", gd::Launch{dim3(16), dim3(256)}) == "<<<(16,1,1), (256,1,1), 0>>>");
  CHECK(fmt::format("{}", gd::Launch{dim3(2, 3, 4), dim3(8, 8), 4096, 5}) == "<<<(2,3,4), (8,8,1), 4096>>>");
  CHECK(fmt::format("{}", g.launch_of(k)) == "<<<(1,1,1), (1,1,1), 0>>>");
}

TEST_CASE("fmt of an empty node handle says it is a handle", "[print][fmt]") {
  // format.hpp prints a default-constructed handle as "empty node", the same words that describe
  // a node of kind `empty` ("empty node #3"); the library's own error calls it "empty node handle".
  CHECK(fmt::format("{}", gd::Node{}) == "empty node handle");
  CHECK(fmt::format("{}", gd::EmptyNode{}) == "empty node handle");
}
