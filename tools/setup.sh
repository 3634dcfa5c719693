#!/usr/bin/env bash
# Installs the Debian packages heed needs to build and test, only those missing.
# Idempotent; run as root (or with sudo) on a fresh Debian 12 machine.
# OpenBLAS is pinned to its OpenMP variant (libopenblas-openmp-dev): heed's own loops use
# OpenMP too, so BLAS and heed share one thread pool and never oversubscribe the cores.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config ccache
  libopenblas-openmp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev
  libsentencepiece-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all packages present"
fi
