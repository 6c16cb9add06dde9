#!/usr/bin/env bash
# Install the Debian packages ddiosim builds and tests with, and nothing else.
# Idempotent: when every package is already installed it does nothing (no
# apt-get update, no network).  Runs `apt-get update` at most once.
#   --clang  also clang (CI builds everything with it too: `make build-clang`)
#   --fuzz   also clang and its runtime libraries (libFuzzer, ASan, UBSan),
#            needed only by `make fuzz`; `make run` / `make test` use gcc.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libgsl-dev liblapacke-dev liblapack-dev libblas-dev
  libcjson-dev libcriterion-dev libpcap-dev
  tcpdump gnuplot-nox
  libopenmpi-dev openmpi-bin
  python3
)
if [ "${1:-}" = "--clang" ]; then
  PACKAGES+=(clang)
elif [ "${1:-}" = "--fuzz" ]; then
  # Debian 12 names: clang (-> clang-14); libFuzzer and the sanitizer
  # runtimes for clang 14 are in libclang-rt-14-dev.
  PACKAGES+=(clang libclang-rt-14-dev)
elif [ $# -gt 0 ]; then
  echo "usage: install-deps.sh [--clang | --fuzz]" >&2
  exit 2
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: missing packages (${missing[*]}) and not root; install them and retry" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
