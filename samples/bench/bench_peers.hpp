// samples/bench/bench_peers.hpp — graphdsl, raw CUDA and the C++ peers (cuda-api-wrappers, Taskflow)
// on one workload, in one run (bench_peers.cu). The peers' sides (bench_peer_sides.cu) are compiled
// only where their public sources are found: configure with -DGRAPHDSL_BENCH_PEERS=<dir>.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench_workload.hpp"

namespace bench {

/// One library's way of building, setting and launching the workload: a chain or fork-join of N
/// step nodes (plan_of's shapes), node j = step(data, j, step_a, step_b) until set.
class PeerSide {
 public:
  virtual ~PeerSide() = default;
  virtual const char* name() const = 0;
  /// Builds the graph and instantiates it (what the build rows time); destroy() comes first.
  virtual void build(Shape shape, int n) = 0;
  /// Destroys the executable and the graph, if any (not timed).
  virtual void destroy() = 0;
  /// Sets node j's arguments in the executable to (data, j, step_a, b).
  virtual void set(int j, float b) = 0;
  virtual void launch(cudaStream_t s) = 0;
};

/// The peers' sides that this build has (bench_peer_sides.cu, with GRAPHDSL_BENCH_WITH_PEERS).
std::vector<std::unique_ptr<PeerSide>> peer_sides(float* data);
/// The peers' versions as the build was configured (GRAPHDSL_BENCH_PEERS_VERSIONS), or "".
std::string peer_versions();

/// peers: raw CUDA, graphdsl and the peers: build + instantiate per node (chain and fork-join,
/// N = 100, 1,000, 10,000), set one kernel node's arguments and every node's (N = 1,000, 10,000),
/// replay; interleaved, each figure a ratio to raw.
void peers_bench(Bench& bench);

}  // namespace bench
