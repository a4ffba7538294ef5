#!/usr/bin/env bash
# scripts/plot-shapes.sh — draws the shapes section's figure (docs/shapes.md) from the CSV that
# `bench shapes --csv FILE` writes.
#
#   scripts/plot-shapes.sh CSV [OUTDIR]      (OUTDIR default: the CSV's folder)
#
# Writes OUTDIR/bench-shapes.svg with gnuplot (Debian/Ubuntu: apt-get install gnuplot-nox), three
# panels from the rows of section "shapes" (their median_us column holds each figure's value):
#   memory against the number of sizes   family vs one executable per size, device and host MiB
#                                        (workload "sizes")
#   switch cost against the number of sizes   median us per switch (workload "sizes")
#   the LRU budget                       host MiB and mean switch us against the number of
#                                        executables of their own (workload "budget")
set -euo pipefail

csv=${1:?usage: scripts/plot-shapes.sh CSV [OUTDIR]}
out=${2:-$(dirname "$csv")}
if ! command -v gnuplot >/dev/null; then
  echo "plot-shapes: gnuplot not found (Debian/Ubuntu: apt-get install gnuplot-nox)" >&2
  exit 1
fi
if [[ $(head -1 "$csv") != section,workload,N,k,variant,median_us,* ]]; then
  echo "plot-shapes: $csv does not start with the bench's CSV header" >&2
  exit 1
fi
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# series FILE WORKLOAD VARIANT: "N value" lines of section shapes, sorted by N.
series() {
  awk -F, -v wl="$2" -v var="$3" 'NR > 1 && $1 == "shapes" && $2 == wl && $5 == var && $6 != "" { print $3, $6 }' \
    "$csv" | sort -g >"$tmp/$1"
  if [[ ! -s $tmp/$1 ]]; then
    echo "plot-shapes: no rows for shapes,$2,...,$3 in $csv" >&2
    exit 1
  fi
}
series fam-dev sizes "family device MiB"
series sep-dev sizes "separate device MiB"
series fam-host sizes "family host MiB"
series sep-host sizes "separate host MiB"
series switch sizes "switch us"
series budget-host budget "host MiB"
series budget-switch budget "switch us"

cat >"$tmp/shapes.gp" <<GP
set terminal svg size 1500,460 dynamic enhanced font 'sans,11'
set output '$out/bench-shapes.svg'
set grid
set key top left
set multiplot layout 1,3 title 'ShapeFamily against one executable per size (one run; CSV: $(basename "$csv"))'
set title 'memory against the number of sizes'
set xlabel 'batch sizes served'
set ylabel 'MiB'
set xtics (1, 2, 4, 8)
plot '$tmp/sep-dev' using 1:2 with linespoints lw 2 pt 4 title 'device, one executable per size', \
     '$tmp/fam-dev' using 1:2 with linespoints lw 2 pt 7 title 'device, family', \
     '$tmp/sep-host' using 1:2 with linespoints dt 2 pt 4 title 'host, one executable per size', \
     '$tmp/fam-host' using 1:2 with linespoints dt 2 pt 7 title 'host, family'
set title 'switch cost against the number of sizes'
set ylabel 'us per switch (median; one executable per size: 0)'
plot '$tmp/switch' using 1:2 with linespoints lw 2 pt 7 title 'family'
set title 'LRU budget: executables of their own'
set xlabel 'executables of their own (of 8 sizes)'
set xtics (0, 1, 2, 4, 8)
set ylabel 'host MiB'
set y2label 'mean switch us per step'
set y2tics
plot '$tmp/budget-host' using 1:2 axes x1y1 with linespoints lw 2 pt 7 title 'host MiB', \
     '$tmp/budget-switch' using 1:2 axes x1y2 with linespoints dt 2 pt 5 title 'switch us (right)'
unset multiplot
GP
gnuplot "$tmp/shapes.gp"
echo "plot-shapes: wrote $out/bench-shapes.svg"
