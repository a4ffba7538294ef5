// src/plan/token.cpp — the ownership primitives public headers declare and src/ defines: a plan's
// storage deleted where GraphImpl is complete (GraphImplDelete, for Graph's UniqueHandle), and
// the reference count of a plan's liveness token (SharedRef<PlanToken>, held by Parameters and
// conditional bodies; node handles hold none: plan/handles.hpp). No CUDA call.
#include <atomic>

#include "graphdsl/graph.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

void GraphImplDelete::destroy(GraphImpl* g) noexcept { delete g; }

void retain(PlanToken* p) noexcept { p->refs.fetch_add(1, std::memory_order_relaxed); }
void release(PlanToken* p) noexcept {
  if (p->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p;
}
long use_count(const PlanToken* p) noexcept { return p->refs.load(std::memory_order_relaxed); }

}  // namespace graphdsl::detail
