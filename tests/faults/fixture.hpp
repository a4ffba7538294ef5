// tests/faults/fixture.hpp — the plan every sweep starts from: a valid plan with a node of the
// common kinds, a parameter used by a kernel and a memset, a pointer parameter, a condition, a graph
// buffer, a conditional node whose body uses the parameter, a child plan, and `fan` extra empty
// nodes (for the long edge lists of after() and before()). Nothing here calls CUDA: "kernels" are
// host functions of kernel-like signature, "device memory" host arrays (tests/unit/unit_support.hpp).
#pragma once

#include <memory>
#include <vector>

#include <graphdsl/graphdsl.hpp>

namespace faults {

namespace gd = graphdsl;

inline void scale(float*, float, int) {}
inline void saxpy(float*, const float*, float, int) {}
inline void set_flag(cudaGraphConditionalHandle, const int*) {}

/// Stand-in device memory and symbols (addresses only; never read or written).
struct Memory {
  float x[256] = {};
  float y[256] = {};
  float host[256] = {};
  int flags[16] = {};
  std::uint32_t word = 0;
  float symbol[16] = {};
};
Memory& memory();

struct Fixture {
  gd::Graph g{"faults"};
  gd::Graph other{"other"};  ///< a second plan: the source of add_child, the target of assignments
  gd::Parameter<float> lr;
  gd::Parameter<float*> dst;
  gd::Parameter<const float*> src;  ///< used by no node
  gd::Condition cond;  ///< with make_fixture(..., true): declared for the conditional node an operation adds
  gd::Condition loop;  ///< used by the while node
  gd::Graph::Allocation<float> alloc;
  gd::Graph::Allocation<int> spare;  ///< used by no node and never freed (for add_mem_free)
  gd::MemcpyNode upload;
  gd::KernelNode<float*, float, int> scale_x;
  gd::ConditionalNode repeat;
  gd::EmptyNode join;
  std::vector<gd::Node> fan;  ///< extra empty nodes, unordered
};

/// The starting plan, with `fan` extra empty nodes, and with `cond` declared when `spare_condition`
/// (the plan is then valid only once a conditional node uses it).
std::unique_ptr<Fixture> make_fixture(unsigned fan = 0, bool spare_condition = false);

/// The plans the sweep checks.
inline std::vector<gd::Graph*> plans_of(std::unique_ptr<Fixture>& f) { return {&f->g, &f->other}; }

inline const gd::Launch one_block{dim3(1), dim3(256)};

}  // namespace faults
