#!/usr/bin/env bash
# The README's main command: install what is missing, build, and run the main job.
#   tools/quickstart.sh          full form
#   tools/quickstart.sh --quick  a few seconds of work (CI runs this so it cannot rot)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1

bash tools/setup.sh
cmake -S . -B build -G Ninja >/dev/null
ninja -C build

echo "heed is built: build/heed"
./build/heed --version
