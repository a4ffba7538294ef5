#!/usr/bin/env bash
# Include cost: how much longer nvcc takes to compile samples/quickstart/main.cu
# than the same program written with the raw CUDA graph API (scripts/include-cost/raw_quickstart.cu).
# Same flags for both (-O3 -DNDEBUG, C++17, one GPU architecture, -c, no ccache); RUNS runs each,
# alternating; prints the median wall and CPU (user+sys) seconds of each, their ratios and the
# preprocessed size of each file (nvcc -E, non-blank lines). docs/performance.md ("Include cost").
#
#   scripts/include-cost.sh            RUNS=5 ARCH=90 STD=17 by default
#   RUNS=3 ARCH=80 STD=20 scripts/include-cost.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
runs="${RUNS:-5}"
flags=(-O3 -DNDEBUG -std=c++"${STD:-17}" -arch=sm_"${ARCH:-90}" -I"$root/include")
graphdsl_src="$root/samples/quickstart/main.cu"
raw_src="$root/scripts/include-cost/raw_quickstart.cu"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Prints "<wall> <cpu>" seconds for one compile of $1.
compile_once() {
  local times
  times=$( { TIMEFORMAT='%R %U %S'; time nvcc "${flags[@]}" -c "$1" -o "$tmp/out.o" >/dev/null 2>"$tmp/err"; } 2>&1) ||
    { cat "$tmp/err" >&2; echo "include-cost: nvcc failed on $1" >&2; exit 1; }
  awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$times"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
pp_lines() { nvcc "${flags[@]}" -E "$1" 2>/dev/null | grep -v '^#' | grep -cv '^[[:space:]]*$'; }

echo "include-cost: nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), ${flags[*]:0:4}, $runs runs each"
compile_once "$raw_src" >/dev/null  # warm the file cache
: >"$tmp/g" && : >"$tmp/r"
for _ in $(seq "$runs"); do
  compile_once "$graphdsl_src" >>"$tmp/g"
  compile_once "$raw_src" >>"$tmp/r"
done
gw=$(cut -d' ' -f1 "$tmp/g" | median); gc=$(cut -d' ' -f2 "$tmp/g" | median)
rw=$(cut -d' ' -f1 "$tmp/r" | median); rc=$(cut -d' ' -f2 "$tmp/r" | median)
printf '%-28s %10s %10s %14s\n' "" "wall s" "cpu s" "preprocessed"
printf '%-28s %10.2f %10.2f %14s\n' "graphdsl quickstart" "$gw" "$gc" "$(pp_lines "$graphdsl_src")"
printf '%-28s %10.2f %10.2f %14s\n' "raw CUDA graph API" "$rw" "$rc" "$(pp_lines "$raw_src")"
awk -v gw="$gw" -v rw="$rw" -v gc="$gc" -v rc="$rc" \
  'BEGIN { printf "include-cost: ratio graphdsl / raw: %.2fx wall, %.2fx cpu (target <= 1.5x)\n", gw / rw, gc / rc }'
