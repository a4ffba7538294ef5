// samples/bench/bench_conditional.hpp — the conditional-node section of the benchmark sample.
#pragma once

/// C1: a WHILE loop of K iterations (graphdsl, raw CUDA conditional nodes, host-driven loop);
/// C2: IF-ELSE and SWITCH chosen on the device vs host-side selection of separate graphs.
/// Prints its tables; returns 0 when every result check passed (or there is no CUDA device), 1 otherwise.
int run_conditional_bench();
