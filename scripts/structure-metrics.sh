#!/usr/bin/env bash
# How well each node kind owns its data, measured (prints; never fails; no build, no GPU):
#   - kernel data named outside its home: files of src/ and include/ that name a kernel record type
#     or store (KernelData, KernelLinks, KernelAttributes, LaunchShape, KernelPlaceholder,
#     .kernels, kernel_links, kernel_attributes), its home being the kind files src/kinds/kernel*.{cpp,hpp},
#     src/plan/records/kernel*.{hpp,cpp} and the store table src/plan/records/stores.def;
#   - `kind == NodeKind::x` (or !=) tests outside src/kinds/;
#   - the plan's stores (src/plan/records/stores.def) and the record types defined under
#     src/plan/records/;
#   - the longest files of src/ and include/ (scripts/check-structure.sh caps them at 600 lines).
#
#   scripts/structure-metrics.sh [ROOT]
set -uo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$root" || exit 2

kernel_pattern='KernelData|KernelLinks|KernelAttributes|LaunchShape|KernelPlaceholder|\.kernels\b|kernel_links|kernel_attributes'
home='^(src/kinds/kernel[a-z_]*\.(cpp|hpp)|src/plan/records/kernel[a-z_]*\.(hpp|cpp)|src/plan/records/stores\.def)$'
kernel_files="$(grep -rlE "$kernel_pattern" src include | sort | grep -vE "$home")"
echo "kernel data named outside its home: $(grep -c . <<<"$kernel_files") files"
sed 's/^/  /' <<<"$kernel_files"

kind_tests="$(grep -rnE '(==|!=) *NodeKind::' src include | grep -v '^src/kinds/')"
echo "kind tests outside src/kinds/: $(grep -c . <<<"$kind_tests")"
cut -d: -f1 <<<"$kind_tests" | sort | uniq -c | sort -rn | sed 's/^/  /'

stores="$(grep -cE '^GRAPHDSL_STORE\(' src/plan/records/stores.def)"
records="$(grep -hoE '^(struct|enum class) [A-Za-z_]+' src/plan/records/*.hpp | wc -l)"
echo "plan stores in src/plan/records/stores.def: $stores; record types under src/plan/records/: $records"

echo "longest files of src/ and include/:"
find src include -type f -print0 | xargs -0 wc -l | grep -v ' total$' | sort -rn | head -5 | sed 's/^/  /'
