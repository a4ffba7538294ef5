// tests/faults/fixture.cpp — the starting plan of the sweeps (fixture.hpp).
#include "fixture.hpp"

namespace faults {

Memory& memory() {
  static Memory m;
  return m;
}

std::unique_ptr<Fixture> make_fixture(unsigned fan, bool spare_condition) {
  Memory& m = memory();
  auto f = std::make_unique<Fixture>();
  gd::Graph& g = f->g;
  f->lr = g.parameter<float>(0.5f).name("lr");
  f->dst = g.parameter<float*>(m.y).name("dst");
  f->src = g.parameter<const float*>(m.x).name("src");
  if (spare_condition) f->cond = g.add_condition(1);
  f->loop = g.add_condition(1);
  f->alloc = g.add_mem_alloc<float>(256);
  f->alloc.node.name("alloc");
  f->spare = g.add_mem_alloc<int>(64);
  f->upload = g.add_memcpy(m.x, m.host, 256).name("upload");
  f->scale_x = g.add_kernel(scale, one_block, m.x, f->lr, 256).name("scale x").after(f->upload);
  g.add_memset(f->alloc.buffer, f->lr, 256).name("fill").after(f->alloc.node);
  const gd::Condition loop = f->loop;
  const gd::Parameter<float> lr = f->lr;
  f->repeat = g.add_while(loop,
                          [&](gd::Graph& body) {
                            auto k = body.add_kernel(scale, one_block, m.y, lr, 256).name("step");
                            body.add_kernel(set_flag, one_block, loop, m.flags).name("again?").after(k);
                          })
                  .name("repeat")
                  .after(f->scale_x);
  f->join = g.add_empty().name("join").after(f->repeat, g.node(4));
  g.add_mem_free(f->alloc.buffer).name("free").after(f->join);
  for (unsigned i = 0; i < fan; ++i) f->fan.push_back(g.add_empty());
  f->other.add_kernel(saxpy, one_block, m.x, m.y, 2.0f, 256).name("saxpy");
  f->other.add_empty().name("tail").after(f->other.node(0));
  return f;
}

}  // namespace faults
