// samples/bench/bench_shapes.hpp — the shapes section (bench_shapes.cu): one executable for a family
// of batch sizes (gd::ShapeFamily) against one executable per size, and device-side dispatch
// (gd::dispatch in a WHILE) against host-selected executables.
#pragma once

#include "bench_workload.hpp"

namespace bench {

/// shapes: for eight batch sizes of a 2,001-node decode-like step (samples/common/serving_step.cuh):
///   S1  device memory (cudaMemGetInfo delta, graph memory included) and host memory (malloc heap),
///       family vs 8 executables, with and without a graph allocation in the step (goal <= 1/4)
///   S2  build + instantiate of all sizes, family vs 8 executables (goal <= 1/3)
///   S3  switch cost when the size changes every step, for 5, 201 and 2,001 changed nodes: the family
///       (automatic, and each strategy forced) vs raw cudaGraphExecUpdate from prebuilt graphs and raw
///       per-node setters of the nodes that differ; which strategy the family chose
///   S4  replay when the size does not change, family vs a dedicated executable (goal 1.00 +- 0.01),
///       and a dedicated executable updated away and back vs a fresh one
///   S5  memory and switch cost against the number of sizes (1, 2, 4, 8), and against the number of
///       dedicated executables the LRU budget allows (0, 1, 2, 4, 8; skewed size distribution)
///   S6  device dispatch: us per step of K = 100 steps of changing sizes, one WHILE + dispatch launch
///       vs the host launching a dispatch graph per step vs host-selected executables (size known on
///       the host; size read back from the device each step), for bodies of 1 to 64 layers; the
///       crossover body time (goal >= 2x under 50 us)
void shapes_bench(Bench& bench);

}  // namespace bench
