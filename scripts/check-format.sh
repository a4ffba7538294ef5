#!/usr/bin/env bash
# The format check: every C++ and CUDA file of src/ and include/graphdsl/ is as clang-format formats
# it with the repository's .clang-format (`clang-format --dry-run --Werror`). Fails (exit 1) naming
# each file that is not, with the number of places clang-format would change. Seconds, no build.
#
#   scripts/check-format.sh [-v] [ROOT]   -v: print clang-format's diagnostics (line, column, code)
#                                          ROOT: the tree to check (default: this repository)
#   fix:  clang-format -i FILE...          (from the repository root, so that .clang-format applies)
#
# clang-format 14 (Debian's `clang-format` package; scripts/deps.sh installs it when CI=true) is
# what .clang-format was tuned with; other versions may format a few constructs differently.
# $CLANG_FORMAT picks another binary.
set -uo pipefail
verbose=0
if [ "${1:-}" = "-v" ]; then
  verbose=1
  shift
fi
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$root" || exit 2
if [ ! -f .clang-format ]; then
  echo "check-format: $root has no .clang-format" >&2
  exit 2
fi

format="${CLANG_FORMAT:-}"
if [ -z "$format" ]; then
  for candidate in clang-format clang-format-14; do
    if command -v "$candidate" >/dev/null 2>&1; then
      format=$candidate
      break
    fi
  done
fi
if [ -z "$format" ]; then
  echo "check-format: clang-format not found (Debian/Ubuntu: apt-get install clang-format; scripts/deps.sh" \
    "installs it when CI=true)" >&2
  exit 1
fi
version="$("$format" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1)"
if [ "${version%%.*}" != 14 ]; then
  echo "check-format: note: $format is version $version; .clang-format was tuned with clang-format 14" >&2
fi

files=()
while IFS= read -r -d '' file; do
  files+=("$file")
done < <(find src include/graphdsl -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' \
  -o -name '*.cuh' \) -print0 | sort -z)
if [ ${#files[@]} -eq 0 ]; then
  echo "check-format: no C++ files under src/ and include/graphdsl/" >&2
  exit 2
fi

output="$("$format" --style=file --dry-run --Werror "${files[@]}" 2>&1)"
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "check-format: ${#files[@]} files of src/ and include/graphdsl/ are formatted ($format $version, .clang-format)"
  exit 0
fi
offenders="$(printf '%s\n' "$output" | grep -E '^[^ ]+:[0-9]+:[0-9]+: (error|warning): code should be clang-formatted' |
  cut -d: -f1 | uniq -c)"
if [ -z "$offenders" ]; then  # clang-format itself failed (a bad .clang-format, an unreadable file, ...)
  printf '%s\n' "$output" >&2
  echo "check-format: $format failed (exit $rc)" >&2
  exit 1
fi
[ "$verbose" -eq 1 ] && printf '%s\n' "$output" >&2
count=0
while read -r places file; do
  echo "check-format: $file: $places places to reformat" >&2
  count=$((count + 1))
done <<<"$offenders"
echo "check-format: FAILED, $count of ${#files[@]} files are not formatted; see what would change with" \
  "\`$format --dry-run FILE\` (or $0 -v), fix with \`$format -i FILE...\` from the repository root" >&2
exit 1
