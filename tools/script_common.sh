# shellcheck shell=bash
# Shared by tools/demo, tools/check and tools/bench (sourced, not run).
# Installs missing Debian packages and configures + builds a CMake/Ninja build directory.

# The repository root, whatever the caller's working directory.
CLUSTERSIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# clang: the libFuzzer targets (tools/fuzz, the check's last stage).
CLUSTERSIM_PACKAGES=(cmake ninja-build g++ clang libboost-graph-dev libboost-program-options-dev
  libeigen3-dev libfmt-dev nlohmann-json3-dev doctest-dev)
# Only tools/check's: the browser check renders the HTML reports in headless Chromium, whose
# sans-serif is DejaVu Sans (the labels' measured sizes depend on the font); python3 runs
# tools/readme-check. The demo needs none of them.
CLUSTERSIM_CHECK_PACKAGES=(chromium fonts-dejavu-core python3)

# How build/ is configured: a warnings-as-errors Release unity build. tools/check builds every
# target there; tools/demo builds only the clustersim binary there, from the same configuration,
# so that a check after the demo (or the other way round) recompiles nothing the other built.
CLUSTERSIM_RELEASE_OPTIONS=(-DCMAKE_BUILD_TYPE=Release -DCLUSTERSIM_WERROR=ON -DCMAKE_UNITY_BUILD=ON
  -DCLUSTERSIM_PCH=OFF)

log() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }

# Installs those of CLUSTERSIM_PACKAGES, and of the extra packages named, that are missing; a
# no-op when all are there.
ensure_packages() {
  local wanted=("${CLUSTERSIM_PACKAGES[@]}" "$@")
  if ! command -v dpkg-query >/dev/null 2>&1; then
    log "not a Debian system: assuming ${wanted[*]} are installed"
    return 0
  fi
  local missing=() package
  for package in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$package")
    fi
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0

  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      log "missing packages ${missing[*]}, and neither root nor sudo to install them"
      return 1
    fi
  fi
  log "installing ${missing[*]}"
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
}

# configure_and_build <build dir> [cmake -D options...] [-- cmake --build options...]: incremental
# after the first run.
configure_and_build() {
  local dir="$1" configure=() build=()
  shift
  while (($#)) && [[ $1 != -- ]]; do configure+=("$1"); shift; done
  (($#)) && shift
  build=("$@")
  cmake -S "$CLUSTERSIM_ROOT" -B "$dir" -G Ninja "${configure[@]}" >/dev/null
  cmake --build "$dir" -j "$(nproc)" "${build[@]}"
}
