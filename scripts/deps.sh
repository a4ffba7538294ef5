#!/usr/bin/env bash
# Installs what building graphdsl needs and is missing (Debian/Ubuntu packages): CMake, Ninja,
# fmt and Catch2; with CI=true also Doxygen, for the API reference CI builds (.ci/run), ccache, and
# what the structure and format checks need (clang-format; lizard from PyPI). The CUDA toolkit (12.3
# or newer) must already be installed.
set -euo pipefail

have_header() {
  local h
  for h in "$@"; do
    for d in /usr/include /usr/local/include; do [ -f "$d/$h" ] && return 0; done
  done
  return 1
}

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
have_header fmt/format.h || need+=(libfmt-dev)
have_header catch2/catch.hpp catch2/catch_all.hpp || need+=(catch2)
# CI only: the `docs` target (Doxygen, warnings as errors). The quick start does not need it.
# ccache lets the packaging tests' two rebuilds of the library reuse the main build's objects.
if [ "${CI:-}" = true ]; then
  command -v doxygen >/dev/null 2>&1 || need+=(doxygen)
  command -v ccache >/dev/null 2>&1 || need+=(ccache)
  # scripts/check-format.sh and scripts/check-structure.sh (CI's first stage).
  command -v clang-format >/dev/null 2>&1 || command -v clang-format-14 >/dev/null 2>&1 || need+=(clang-format)
fi

if [ ${#need[@]} -gt 0 ]; then
  echo "graphdsl: installing ${need[*]}"
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "graphdsl: please install ${need[*]} with your package manager" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends "${need[@]}" ||
    { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "${need[@]}"; }
fi

# lizard (function lengths, scripts/check-structure.sh) comes from PyPI, not from a Debian package.
if [ "${CI:-}" = true ] && command -v python3 >/dev/null 2>&1 && ! python3 -c "import lizard" >/dev/null 2>&1; then
  echo "graphdsl: installing lizard (python3 -m pip)"
  python3 -m pip install --quiet lizard || python3 -m pip install --quiet --user --break-system-packages lizard ||
    { echo "graphdsl: could not install lizard (python3 -m pip install lizard)" >&2; exit 1; }
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "graphdsl: the CUDA toolkit (nvcc, 12.3 or newer) was not found; install it first" >&2
  exit 1
fi
