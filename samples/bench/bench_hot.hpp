// samples/bench/bench_hot.hpp — the hot-path figures (bench_hot.cu), each against raw CUDA
// in the same run, interleaved, medians with noise, heap allocations per call counted.
#pragma once

#include "bench_workload.hpp"

namespace bench {

/// setters: typed setters on one node and on every node of a chain of N (kernel args, launch,
/// memset, memcpy, enable) vs cudaGraphExec*SetParams / cudaGraphNodeSetEnabled.
void setters_bench(Bench& bench);
/// hupdate: update(plan) automatic / per_node / whole_graph, template prebuilt or built inside the
/// timing, vs raw cudaGraphExecUpdate (prebuilt, or built inside), k of N changed; the crossover.
void hot_update_bench(Bench& bench);
/// hbuild: build + instantiate (and destroy) vs raw; host heap per node of an instantiated graph.
void hot_build_bench(Bench& bench);
/// hreplay: 20 launches + synchronize, chain and fork-join, N = 100, 1000, 10000.
void hot_replay_bench(Bench& bench);
/// launch: Executable::launch vs cudaGraphLaunch on a 1-node graph, 10000 launches + synchronize.
void launch_bench(Bench& bench);

}  // namespace bench
