#!/usr/bin/env bash
# Installs the Debian packages heed needs to build and test, only those missing.
# Idempotent; run as root (or with sudo) on a fresh Debian 12 machine.
# OpenBLAS is pinned to its OpenMP variant (libopenblas-openmp-dev), and Debian's oneDNN
# (libdnnl-dev, float GEMMs and decoding's packed weights) is an OpenMP build too: heed's own
# loops use OpenMP, so the libraries and heed share one thread pool and never oversubscribe.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config ccache
  libopenblas-openmp-dev libdnnl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev
  libsentencepiece-dev libxxhash-dev librandom123-dev zlib1g-dev libstemmer-dev libcpp-httplib-dev libcairo2-dev libpango1.0-dev fonts-dejavu-core fonts-wqy-microhei
  libopenmpi-dev openmpi-bin
  libsndfile1-dev libsoxr-dev libkissfft-dev
  dataset-fashion-mnist
  help2man dpkg-dev file
  pybind11-dev python3-dev python3-numpy python3-pytest
)

"$(dirname "${BASH_SOURCE[0]}")/install-missing.sh" setup "${packages[@]}"

# The CMU Pronouncing Dictionary for `heed data g2p --cmudict` (docs/cli/data.md): the npm
# package pinned (version and integrity hash) by tools/cmudict/package-lock.json, installed
# under /usr/local/share/heed/cmudict/npm and exported once to plain WORD<TAB>PHONES lines
# (cmudict.txt), so heed reads text, not JavaScript. Redone only when the pinned version changes.
cmudict_dir=/usr/local/share/heed/cmudict
cmudict_pin="$(dirname "${BASH_SOURCE[0]}")/cmudict"
cmudict_version=$(sed -n 's/.*"cmu-pronouncing-dictionary": "\(.*\)".*/\1/p' "$cmudict_pin/package.json")
if [ -s "$cmudict_dir/cmudict.txt" ] && [ "$(cat "$cmudict_dir/VERSION" 2>/dev/null)" = "$cmudict_version" ]; then
  echo "setup: CMU Pronouncing Dictionary $cmudict_version present"
else
  echo "setup: installing the CMU Pronouncing Dictionary $cmudict_version into $cmudict_dir"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  fi
  "${sudo_cmd[@]}" mkdir -p "$cmudict_dir/npm"
  "${sudo_cmd[@]}" cp "$cmudict_pin/package.json" "$cmudict_pin/package-lock.json" "$cmudict_dir/npm/"
  "${sudo_cmd[@]}" npm ci --prefix "$cmudict_dir/npm" --ignore-scripts --no-audit --no-fund --loglevel=error
  cmudict_tmp=$(mktemp)
  (cd "$cmudict_dir/npm" && node --input-type=module -e "
    import {dictionary} from 'cmu-pronouncing-dictionary';
    process.stdout.write(Object.entries(dictionary).map(([w, p]) => w + '\t' + p + '\n').join(''));") \
    >"$cmudict_tmp"
  [ "$(wc -l <"$cmudict_tmp")" -gt 100000 ] || { echo "setup: CMUdict export too small" >&2; exit 1; }
  "${sudo_cmd[@]}" install -m 644 "$cmudict_tmp" "$cmudict_dir/cmudict.txt"
  rm -f "$cmudict_tmp"
  echo "$cmudict_version" | "${sudo_cmd[@]}" tee "$cmudict_dir/VERSION" >/dev/null
fi
