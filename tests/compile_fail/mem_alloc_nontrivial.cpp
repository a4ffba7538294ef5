// Graph memory holds raw bytes: add_mem_alloc<T> needs a trivially copyable T.
// expect: graphdsl add_mem_alloc: T must be trivially copyable
#include <string>

#include <graphdsl/graph.hpp>

void misuse(graphdsl::Graph& g) { (void)g.add_mem_alloc<std::string>(4); }
