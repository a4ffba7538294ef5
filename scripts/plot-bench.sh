#!/usr/bin/env bash
# scripts/plot-bench.sh — draws the benchmark's figures from the CSV `bench --csv FILE` writes.
#
#   scripts/plot-bench.sh [CSV] [OUTDIR]      (defaults: docs/pictures/bench.csv, docs/pictures)
#
# Writes, with gnuplot (Debian/Ubuntu: apt-get install gnuplot-nox):
#   bench-update.svg   update cost against the number of changed nodes k at N = 10000 (hupdate rows):
#                      automatic, per_node, whole_graph, raw cudaGraphExecUpdate (templates prebuilt),
#                      update(prepared), and the "template built inside" variants (automatic, raw,
#                      prepared); chain and fork-join side by side
#   bench-build.svg    plan + instantiate vs raw add + instantiate against N (hbuild rows)
#   bench-replay.svg   20 launches + synchronize against N (hreplay rows)
# The CMake target `bench-plots` runs it on the committed CSV. Every plot is log-log; each series
# is one variant's medians as the bench printed them (one run: the CSV of one process).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
csv=${1:-$here/docs/pictures/bench.csv}
out=${2:-$here/docs/pictures}

if ! command -v gnuplot >/dev/null; then
  echo "plot-bench: gnuplot not found (Debian/Ubuntu: apt-get install gnuplot-nox)" >&2
  exit 1
fi
if [[ ! -f $csv ]]; then
  echo "plot-bench: $csv not found; write it with: build/samples/bench --csv $csv" >&2
  exit 1
fi
if [[ $(head -1 "$csv") != section,workload,N,k,variant,median_us,* ]]; then
  echo "plot-bench: $csv does not start with the bench's CSV header" >&2
  exit 1
fi
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# series FILE SECTION WORKLOAD N VARIANT XCOL: "x median_us" lines, sorted by x (N empty: any N).
series() {
  awk -F, -v sec="$2" -v wl="$3" -v n="$4" -v var="$5" -v xc="$6" \
    'NR > 1 && $1 == sec && $2 == wl && (n == "" || $3 == n) && $5 == var && $6 != "" { print $xc, $6 }' \
    "$csv" | sort -g >"$tmp/$1"
}

# plotline FILE TITLE STYLE: one gnuplot plot clause, or nothing when the series is empty.
plotline() {
  [[ -s $tmp/$1 ]] && printf "'%s' using 1:2 with linespoints title '%s' %s, " "$tmp/$1" "$2" "$3"
  return 0
}

update_panel() {  # $1 workload, $2 file prefix
  local p=$2
  series "$p-auto" hupdate "$1" 10000 "graphdsl update automatic" 4
  series "$p-per" hupdate "$1" 10000 "graphdsl update per_node" 4
  series "$p-whole" hupdate "$1" 10000 "graphdsl update whole_graph" 4
  series "$p-raw" hupdate "$1" 10000 "raw cudaGraphExecUpdate" 4
  series "$p-bauto" hupdate "$1" 10000 "graphdsl build+update automatic" 4
  series "$p-braw" hupdate "$1" 10000 "raw build+cudaGraphExecUpdate" 4
  series "$p-prep" hupdate "$1" 10000 "graphdsl update prepared" 4
  series "$p-bprep" hupdate "$1" 10000 "graphdsl build+prepare+update prepared" 4
  local clauses
  clauses=$(plotline "$p-auto" "automatic" "lw 2 pt 7"; plotline "$p-per" "per\\_node" "dt 2 pt 5"
    plotline "$p-whole" "whole\\_graph" "dt 2 pt 9"; plotline "$p-raw" "raw cudaGraphExecUpdate" "lw 2 pt 4"
    plotline "$p-bauto" "automatic, template built" "dt 3 pt 6"
    plotline "$p-braw" "raw, template built" "dt 3 pt 8"
    plotline "$p-prep" "update(prepared)" "lw 2 pt 13"
    plotline "$p-bprep" "prepare + update(prepared), template built" "dt 3 pt 12")
  if [[ -z $clauses ]]; then
    echo "set title '$1, N = 10000: no hupdate rows in the CSV'; unset key; plot [1:10][1:10] NaN notitle"
  else
    echo "set title '$1, N = 10000'; plot ${clauses%, }"
  fi
}

cat >"$tmp/update.gp" <<EOF
set terminal svg size 1100,480 dynamic enhanced font 'sans,11'
set output '$out/bench-update.svg'
set datafile separator whitespace
set logscale xy
set xlabel 'changed nodes k (of N = 10000)'
set ylabel 'us per update (median)'
set grid
set key below maxrows 2
set multiplot layout 1,2 title 'update(plan) against raw cudaGraphExecUpdate (one run; CSV: $(basename "$csv"))'
$(update_panel "chain step" chain)
$(update_panel "fork-join step" fj)
unset multiplot
EOF

# vs_n OUT SECTION TITLE YLABEL GD_VARIANT RAW_VARIANT
vs_n() {
  local clauses=""
  for wl in "chain step" "fork-join step"; do
    local f=${wl%% *}
    series "$1-$f-gd" "$2" "$wl" "" "$5" 3
    series "$1-$f-raw" "$2" "$wl" "" "$6" 3
    clauses+=$(plotline "$1-$f-gd" "graphdsl, ${wl% step}" "lw 2 pt 7"; plotline "$1-$f-raw" "raw, ${wl% step}" "dt 2 pt 4")
  done
  cat >"$tmp/$1.gp" <<EOF
set terminal svg size 640,480 dynamic enhanced font 'sans,11'
set output '$out/bench-$1.svg'
set logscale xy
set xlabel 'nodes N'
set ylabel '$4'
set grid
set key below maxrows 2
set title '$3 (one run; CSV: $(basename "$csv"))'
EOF
  if [[ -z $clauses ]]; then
    echo "unset key; plot [1:10][1:10] NaN notitle" >>"$tmp/$1.gp"
  else
    echo "plot ${clauses%, }" >>"$tmp/$1.gp"
  fi
}

vs_n build hbuild "build + instantiate against N" "us (median)" "graphdsl build+instantiate" "raw build+instantiate"
vs_n replay hreplay "replay: 20 launches + synchronize" "us per launch (median)" "graphdsl 20 launches+sync" \
  "raw 20 launches+sync"

for gp in update build replay; do
  gnuplot "$tmp/$gp.gp"
  echo "plot-bench: wrote $out/bench-$gp.svg"
done
