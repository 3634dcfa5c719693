#!/usr/bin/env bash
# Builds heed's libFuzzer harnesses (tests/fuzz) with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer and runs each for SECONDS (default 30), one process each, as many
# at once as there are cores (HEED_FUZZ_JOBS), in build-fuzz/. Exit code 0 only when no
# harness found anything; findings (the input that crashed, hung, leaked or broke a property)
# land in build-fuzz/findings/.
#   tools/fuzz.sh [SECONDS] [HARNESS...]      e.g. tools/fuzz.sh 600 safetensors
# docs/RELIABILITY.md explains the harnesses and records the runs made.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true

# clang, its libFuzzer and sanitizer runtimes, and its OpenMP (Debian 12 packages; the rest
# of heed's dependencies come from tools/setup.sh).
packages=(clang libclang-rt-14-dev libomp-14-dev)
tools/install-missing.sh fuzz "${packages[@]}"

harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
  for f in tests/fuzz/*_fuzz.cpp; do
    n=$(basename "$f" _fuzz.cpp)
    harnesses+=("$n")
  done
fi

cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DHEED_FUZZ=ON \
  -DHEED_BUILD_TESTS=OFF -DHEED_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build-fuzz "${harnesses[@]/#/fuzz_}"

mkdir -p build-fuzz/findings
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# One harness: writes build-fuzz/fuzz_<name>.log and exits non-zero on a finding.
fuzz_one() {
  local n=$1 corpus=build-fuzz/corpus/$1 dict=()  # the corpus grows between runs; the committed seeds are read-only
  mkdir -p "$corpus"
  [ -f "tests/fuzz/$n.dict" ] && dict=(-dict="tests/fuzz/$n.dict")
  # -timeout: an input taking over 10 s is a hang; -rss_limit_mb: memory beyond 2 GB is a finding.
  build-fuzz/tests/fuzz/fuzz_"$n" "$corpus" "tests/fuzz/corpus/$n" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/findings/$n-" >"build-fuzz/fuzz_$n.log" 2>&1
}

# As many harnesses at once as there are cores (HEED_FUZZ_JOBS overrides), each one process.
jobs=${HEED_FUZZ_JOBS:-$(nproc)}
declare -A pid_of
status=0
summary=""
finish() {  # waits for harness $1 and adds its line to the summary
  local n=$1 result
  if wait "${pid_of[$n]}"; then
    result="0 findings"
  else
    result="FINDING (see build-fuzz/fuzz_$n.log and build-fuzz/findings/)"
    status=1
    tail -n 40 "build-fuzz/fuzz_$n.log"
  fi
  local execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build-fuzz/fuzz_$n.log" | tail -1)
  summary+=$(printf '%-14s %6s s %12s executions  %s' "$n" "$seconds" "${execs:-?}" "$result")$'\n'
}
running=()
for n in "${harnesses[@]}"; do
  echo "== fuzz_$n for $seconds s (log: build-fuzz/fuzz_$n.log)"
  fuzz_one "$n" &
  pid_of[$n]=$!
  running+=("$n")
  if ((${#running[@]} >= jobs)); then
    finish "${running[0]}"
    running=("${running[@]:1}")
  fi
done
for n in "${running[@]}"; do finish "$n"; done
echo "== fuzzing summary"
printf '%s' "$summary"
exit $status
