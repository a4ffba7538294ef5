// samples/bench/bench_adopt.cu — the adopt section: the decode step of samples/common/decode_step.cuh
// at two sizes, its re-capture loop run four ways and its alternating shape two ways, host time per
// step (medians of 100 steps, launch excluded) as ratios to raw CUDA's re-capture loop in the same run.
#include <cstdio>
#include <string>

#include "bench_adopt.hpp"
#include "bench_common.hpp"
#include "decode_step.cuh"

namespace bench {

void adopt_bench(Bench& bench) {
  std::printf("\nadopt: the re-capture loop of a decode step (us per step, medians of 100 steps, launch excluded;\n"
              "   ratio = graphdsl / raw re-capture + cudaGraphExecUpdate; raw set = the driver's setters on the\n"
              "   moving nodes with their handles kept; adopt/node = adopt() alone per node)\n");
  std::printf("  nodes moving |  raw loop  adopt+upd ratio |  set_arg ratio  raw set ratio | adopt/node |"
              "  alt raw  alt cache ratio\n");
  for (const int layers : {7, 32}) {
    const decode::Model m(layers);
    const decode::Results r = decode::run_ways(m, bench.s, 100);
    const double raw = sample::median(r.raw), alt = sample::median(r.alt_raw);
    auto ratio = [](const std::vector<double>& v, double base) { return sample::median(v) / base; };
    std::printf("  %5zu %6zu | %9.1f %10.1f %5.3f | %8.1f %5.3f %8.1f %5.3f | %7.3f us | %8.1f %10.1f %5.3f\n", r.nodes,
                r.moving, raw, sample::median(r.adopt_update), ratio(r.adopt_update, raw), sample::median(r.setter),
                ratio(r.setter, raw), sample::median(r.raw_setter), ratio(r.raw_setter, raw),
                sample::median(r.adopt_only) / static_cast<double>(r.nodes), alt, sample::median(r.alt_cache),
                ratio(r.alt_cache, alt));
    bench.expect(r.wrong == 0 && r.alt_wrong == 0, "adopt " + std::to_string(r.nodes) + " nodes",
                 std::to_string(r.wrong + r.alt_wrong) + " steps differ from the CPU reference");
  }
}

}  // namespace bench
