#!/usr/bin/env bash
# Install the Debian packages ddiosim builds and tests with, and nothing else.
# Idempotent: when every package is already installed it does nothing (no
# apt-get update, no network).  Runs `apt-get update` at most once.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libgsl-dev liblapacke-dev liblapack-dev libblas-dev
  libcjson-dev libcriterion-dev libpcap-dev
  tcpdump
)

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
