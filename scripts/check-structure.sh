#!/usr/bin/env bash
# The structure checks (CONTRIBUTING.md and docs/architecture.md say why): seconds, no
# build, no GPU. Fails (exit 1), naming each offender, when
#   - `grep -rn "switch (.*kind" src` finds more than 2 lines (per-kind behaviour goes through the
#     node-kind table, src/kinds/, not through a switch on NodeKind);
#   - a file under src/ or include/ is over 600 lines;
#   - a function in src/ or include/graphdsl/ is over 80 lines (lizard, from PyPI:
#     `python3 -m pip install lizard`; scripts/deps.sh installs it when CI=true; without it, and
#     outside CI, this one check is skipped with a message);
#   - an include goes from a lower layer to a higher one (plan < native < exec < kinds, nccl, profile):
#     src/plan/ includes "native/", "exec/", "kinds/", "nccl/" or "profile/"; src/native/ includes
#     "exec/", "kinds/", "nccl/" or "profile/"; src/exec/ includes "kinds/", "nccl/" or "profile/";
#     src/profile/ includes "kinds/" or "nccl/"; include/graphdsl/graph.hpp
#     includes graphdsl/executable.hpp; a public header under include/ includes a file of src/;
#   - src/plan/ or src/native/ includes a public header of the executable's layer
#     (graphdsl/executable.hpp, prepared_update.hpp, cache.hpp, device_graph.hpp, device_node.hpp);
#   - a record type of a plan's store (src/plan/records/stores.def) is defined elsewhere than in its
#     owner kind's src/plan/records/<owner>.hpp;
#   - `#if CUDART_VERSION` appears outside include/graphdsl/detail/config.hpp (its feature macros);
#   - a file under src/native/ or src/exec/ names a data member of detail::GraphImpl (the plan's
#     storage, src/plan/graph_impl.hpp) as `.field` or `->field`, outside comments: those layers
#     reach a plan through the plan layer's functions (src/plan/plan_access.hpp and the others it
#     names). Members of other structs that share a field's name are allowed by the expression
#     that names them (the list below), nothing wider;
#   - a const_cast to a mutable detail::GraphImpl appears outside the four places that may have one
#     (check 8 says which): a plan changed through it would keep its content stamp.
# When all pass it prints one line per measure.
#
#   scripts/check-structure.sh [ROOT]     ROOT: the tree to check (default: this repository)
set -uo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$root" || exit 2
if [ ! -d src ] || [ ! -d include/graphdsl ]; then
  echo "check-structure: $root has no src/ and include/graphdsl/" >&2
  exit 2
fi

max_kind_switches=2
max_file_lines=600
max_function_lines=80
failures=0
summary=()
fail() {
  echo "check-structure: $*" >&2
  failures=$((failures + 1))
}
indent() { sed 's/^/  /' >&2; }

# 1. switch on a kind.
switches="$(grep -rn "switch (.*kind" src)"
count=0
[ -n "$switches" ] && count="$(printf '%s\n' "$switches" | wc -l)"
if [ "$count" -gt "$max_kind_switches" ]; then
  fail "$count lines of src/ switch on a kind (at most $max_kind_switches; per-kind behaviour goes" \
    "through the node-kind table, src/kinds/):"
  indent <<<"$switches"
else
  summary+=("switch on a kind: $count line(s) in src/ (at most $max_kind_switches)")
fi

# 2. File length.
files=0
failures_before=$failures
longest=""
longest_lines=0
while IFS= read -r -d '' file; do
  lines="$(wc -l <"$file")"
  files=$((files + 1))
  if [ "$lines" -gt "$max_file_lines" ]; then
    fail "$file has $lines lines (at most $max_file_lines)"
  fi
  if [ "$lines" -gt "$longest_lines" ]; then
    longest_lines=$lines
    longest=$file
  fi
done < <(find src include -type f -print0 | sort -z)
[ "$failures" -eq "$failures_before" ] && summary+=("file length: $files files under src/ and include/, the longest $longest ($longest_lines lines; at most $max_file_lines)")

# 3. Function length (lizard counts from a function's first line to its last).
lizard=()
if python3 -c "import lizard" >/dev/null 2>&1; then
  lizard=(python3 -m lizard)
elif command -v lizard >/dev/null 2>&1; then
  lizard=(lizard)
fi
if [ ${#lizard[@]} -eq 0 ]; then
  if [ "${CI:-}" = true ]; then
    fail "lizard not found (scripts/deps.sh installs it when CI=true: python3 -m pip install lizard)"
  else
    summary+=("function length: SKIPPED, lizard not found (python3 -m pip install lizard)")
  fi
else
  csv="$("${lizard[@]}" -l cpp -C 1000 -L "$max_function_lines" -t "$(nproc)" --csv src include/graphdsl)"
  rc=$?
  # Exit 1 only means warnings (functions over a threshold); the CSV holds every function.
  if [ "$rc" -gt 1 ] || [ -z "$csv" ]; then
    fail "lizard failed (exit $rc)"
  else
    # CSV columns: NLOC, CCN, token, PARAM, length, location, file, function, long_name, start, end.
    failures_before=$failures
    report="$(printf '%s\n' "$csv" | python3 -c '
import csv, sys
limit = int(sys.argv[1])
rows = [r for r in csv.reader(sys.stdin) if len(r) >= 11 and r[4].isdigit()]
over = sorted((r for r in rows if int(r[4]) > limit), key=lambda r: (r[6], int(r[9])))
for r in over:
    print("over %s:%s: %s is %s lines (at most %d)" % (r[6], r[9], r[7], r[4], limit))
if rows:
    top = max(rows, key=lambda r: int(r[4]))
    print("longest %d functions in src/ and include/graphdsl/, the longest %s (%s:%s, %s lines; at most %d)"
          % (len(rows), top[7], top[6], top[9], top[4], limit))
' "$max_function_lines")"
    while IFS= read -r line; do
      case "$line" in
        over\ *) fail "${line#over }" ;;
        longest\ *) longest="${line#longest }" ;;
      esac
    done <<<"$report"
    [ "$failures" -eq "$failures_before" ] && summary+=("function length: $longest")
  fi
fi

# 4. Layers: an include never goes from a lower layer to a higher one.
failures_before=$failures
upward() {  # upward <folder> <layer name> <higher folders, a regex alternative>
  local dir=$1 name=$2 higher=$3 hits
  [ -d "$dir" ] || return 0
  hits="$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]($higher)/" "$dir")"
  if [ -n "$hits" ]; then
    fail "$name includes a higher layer (plan < native < exec < kinds, nccl, profile):"
    indent <<<"$hits"
  fi
}
includes="$(grep -rhE '^[[:space:]]*#[[:space:]]*include' src include | wc -l)"
upward src/plan "src/plan/ (no CUDA call)" "native|exec|kinds|nccl|profile"
upward src/native "src/native/" "exec|kinds|nccl|profile"
upward src/exec "src/exec/" "kinds|nccl|profile"
upward src/profile "src/profile/" "kinds|nccl"
# The public headers of the executable's layer (its API, declared in include/graphdsl/) are
# included from src/exec/ and above only.
exec_headers='executable|prepared_update|cache|device_graph|device_node'
hits="$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]graphdsl/($exec_headers)\.hpp[\">]" src/plan src/native 2>/dev/null)"
if [ -n "$hits" ]; then
  fail "src/plan/ or src/native/ includes a public header of the executable's layer ($exec_headers):"
  indent <<<"$hits"
fi
if [ -f include/graphdsl/graph.hpp ]; then
  hits="$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]graphdsl/executable\.hpp[">]' \
    include/graphdsl/graph.hpp)"
  [ -n "$hits" ] && fail "include/graphdsl/graph.hpp:${hits%%:*}: includes graphdsl/executable.hpp" \
    "(the plan's header must not need the executable's; executable.hpp includes graph.hpp)"
fi
# A public header includes nothing of src/: neither a path through src/ nor one of its folders
# (src/ is a private include directory, not installed).
src_dirs="$(find src -mindepth 1 -maxdepth 1 -type d -printf '%f|' | sed 's/|$//')"
pattern="^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](([^\">]*/)?src/"
[ -n "$src_dirs" ] && pattern+="|($src_dirs)/"
pattern+=")"
hits="$(grep -rnE "$pattern" include)"
if [ -n "$hits" ]; then
  fail "a public header under include/ includes a private file of src/:"
  indent <<<"$hits"
fi
# The headers of the umbrella (all but cache.hpp, format.hpp and nccl.hpp, which a user includes
# on purpose) include none of the costliest standard headers (docs/performance.md, "Include cost").
heavy='functional|unordered_map|algorithm|iterator|memory|tuple'
hits="$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<($heavy)>" include/graphdsl |
  grep -vE '^include/graphdsl/(cache|format|nccl)\.hpp:')"
if [ -n "$hits" ]; then
  fail "a header of the umbrella includes <functional>, <unordered_map>, <algorithm>, <iterator>, <memory> or <tuple>" \
    "(each costs every user's translation unit; docs/performance.md, \"Include cost\"):"
  indent <<<"$hits"
fi
[ "$failures" -eq "$failures_before" ] && summary+=("layers: $includes includes in src/ and include/, none upward (plan < native < exec < kinds, nccl, profile; include/ never includes src/); the umbrella's headers include no <memory>, <tuple>, <functional>, <unordered_map>, <algorithm>, <iterator>")

# 5. Plan storage: src/native/ and src/exec/ name no GraphImpl field (the plan's storage is
# reached only through the plan layer's functions, src/plan/plan_access.hpp).
# The data members of GraphImpl; `id` and `name` are left out (PlanToken and ParamType have
# members of those names, read through handles): those layers use plan_id() and plan_name().
# The stores come from src/plan/records/stores.def; the rest are PlanStores' and GraphImpl's own.
stores_def=src/plan/records/stores.def
store_fields="$(sed -nE 's/^GRAPHDSL_STORE\([^,]+,[[:space:]]*([a-z_]+),.*/\1/p' "$stores_def" 2>/dev/null | paste -sd'|')"
graph_impl_fields="${store_fields:+$store_fields|}default_device|parent|token|sealed|depth|nested_nodes|held_kinds|removed_nodes"
graph_impl_fields+='|edge_count|copied_from|succs|param_order|long_edges'
# Members of other structs with those names, by the expressions that reach them: a Materialized's
# nodes (ExecImpl::native, Builder::materialize's `m`, update_whole_graph's `m`), a NestedNative's
# nodes and parent (an element of Materialized::nested or Builder::nested_, or `nested`, one of
# them), Counters::events, cudaExtent::depth.
allowed='(\bnative|\bm)\.nodes\b|\bnested_?(\[[^]]*\])?\.(nodes|parent)\b|\bcounters\(\)\.events\b|\bextent\.depth\b'
field_use="([^.]\\.|^\\.|->)($graph_impl_fields)\\b"  # not `...args` (a parameter pack)
failures_before=$failures
storage_dirs=()
for dir in src/native src/exec; do [ -d "$dir" ] && storage_dirs+=("$dir"); done
allowed_lines=0
if [ ${#storage_dirs[@]} -gt 0 ]; then
  # file:line:code with comments (from `//`) removed; a hit is such a line that still names a
  # field once the allowed expressions are removed.
  code="$(grep -rnE "$field_use" "${storage_dirs[@]}" | sed -E 's#[[:space:]]*//.*$##' | grep -E "$field_use")"
  hits=""
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    if sed -E "s/$allowed//g" <<<"$line" | grep -qE "$field_use"; then
      hits+="$line"$'\n'
    else
      allowed_lines=$((allowed_lines + 1))
    fi
  done <<<"$code"
  hits="${hits%$'\n'}"
  if [ -n "$hits" ]; then
    fail "src/native/ or src/exec/ names a field of detail::GraphImpl; use the plan layer's functions" \
      "(src/plan/plan_access.hpp, GraphImpl's members, plan/rules.hpp, ...):"
    indent <<<"$hits"
  fi
fi
[ "$failures" -eq "$failures_before" ] && summary+=("plan storage: src/native/ and src/exec/ name no field of GraphImpl ($allowed_lines line(s) name members of other structs of the same names)")

# 7. The toolkit version is tested in one place: include/graphdsl/detail/config.hpp names each
# feature (GRAPHDSL_HAS_*); code tests those macros, not CUDART_VERSION.
failures_before=$failures
hits="$(grep -rnE '^[[:space:]]*#[[:space:]]*(el)?if.*\bCUDA(RT)?_VERSION\b' src include | grep -v '^include/graphdsl/detail/config.hpp:')"
if [ -n "$hits" ]; then
  fail "a version check outside include/graphdsl/detail/config.hpp (test its GRAPHDSL_HAS_* feature macros instead):"
  indent <<<"$hits"
fi
[ "$failures" -eq "$failures_before" ] && summary+=("toolkit version: tested in include/graphdsl/detail/config.hpp only")

# 6. Record types: each element type of a store (src/plan/records/stores.def) that graphdsl defines
# in src/ is defined in src/plan/records/<owner>.hpp, and nowhere else; a record header makes no
# CUDA call (it includes nothing of native/ or the CUDA call path).
failures_before=$failures
records=0
if [ -f "$stores_def" ]; then
  while IFS=, read -r owner member element _; do
    owner="${owner// /}"
    element="$(sed -E 's/^[[:space:]]+|[[:space:]]+$//g' <<<"$element")"
    [[ "$element" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue  # std::, pointers, templates: not records
    defs="$(grep -rlE "^[[:space:]]*(struct|class|enum class)[[:space:]]+$element\b[^;]*\{" src)"
    [ -z "$defs" ] && continue  # a CUDA struct or a public type (include/graphdsl/)
    records=$((records + 1))
    home="src/plan/records/$owner.hpp"
    if [ "$defs" != "$home" ]; then
      fail "record type $element (store ${member// /}, owner $owner) is defined in $(paste -sd' ' <<<"$defs"), not only in $home"
    fi
  done < <(sed -nE 's/^GRAPHDSL_STORE\((.*)\)[[:space:]]*$/\1/p' "$stores_def")
  hits="$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(native|exec|kinds|nccl)/' src/plan/records)"
  if [ -n "$hits" ]; then
    fail "a record header (src/plan/records/) includes a layer above the plan's:"
    indent <<<"$hits"
  fi
else
  fail "$stores_def is missing"
fi
[ "$failures" -eq "$failures_before" ] && summary+=("records: $records record types of graphdsl's own, each defined in its owner's src/plan/records/<owner>.hpp only")

# 8. Content stamps: a plan is changed only through the accessors that clear its content stamp
# (Graph::impl(), live_plan, parameter_of: docs/architecture.md). A const_cast to a mutable
# GraphImpl bypasses them, so it is allowed only where the plan it reaches was given by one of them
# already or is a fresh copy: writing a parameter's value into the recorded plan (exec/parameters.cpp,
# from set_parameter's mutable plan), the read-only nested_slots overload (plan/plan_access.hpp),
# a nested plan of a plan being changed (plan/parameter.cpp), a child plan's fresh copy
# (plan/nested_buffers.cpp).
failures_before=$failures
casts_allowed='^(src/exec/parameters\.cpp|src/plan/plan_access\.hpp|src/plan/parameter\.cpp|src/plan/nested_buffers\.cpp):'
casts="$(grep -rnE 'const_cast<(detail::)?GraphImpl ?[&*]>|const_pointer_cast<(detail::)?GraphImpl>' src include)"
hits="$(grep -vE "$casts_allowed" <<<"$casts" | grep -v '^$')"
if [ -n "$hits" ]; then
  fail "a const_cast to a mutable GraphImpl outside the allowed places (it would change a plan without" \
    "clearing its content stamp; take the plan from Graph::impl(), a node handle or a Parameter):"
  indent <<<"$hits"
fi
[ "$failures" -eq "$failures_before" ] && summary+=("content stamps: $(grep -c . <<<"$casts") const_cast(s) to GraphImpl, all in the allowed places")

[ ${#summary[@]} -gt 0 ] && printf 'check-structure: %s\n' "${summary[@]}"
if [ "$failures" -ne 0 ]; then
  echo "check-structure: FAILED, $failures problem(s) (the rules: CONTRIBUTING.md, docs/architecture.md)" >&2
  exit 1
fi
