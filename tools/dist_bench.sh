#!/usr/bin/env bash
# Throughput of data-parallel training on this machine (docs/DISTRIBUTED.md#measured):
# one process with T threads against T ranks (mpirun) with one thread each, the same config
# and global batches, alternated for ROUNDS rounds; medians and their ratio.
#   tools/dist_bench.sh CONFIG.yaml [ROUNDS] [STEPS] [--set KEY=VALUE ...]
# Each run trains STEPS steps (default 60) and validates on 50 dev pairs after STEPS/2 and
# STEPS: the time between the two validations (history.jsonl "seconds") is STEPS/2 steps in
# the steady state, set-up (tokenizer training, data) excluded. The ranks' line "X ms per step
# waiting for the gradient sums" gives the all-reduce's exposed share of a step.
set -euo pipefail
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: $0 CONFIG.yaml [ROUNDS] [STEPS] [--set KEY=VALUE ...]" >&2; exit 2; }
config=$1; shift
rounds=3; steps=60
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then rounds=$1; shift; fi
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then steps=$1; shift; fi
threads=${HEED_DIST_THREADS:-2}
repo=$(cd "$(dirname "$0")/.." && pwd)
heed=${HEED:-$repo/build/heed}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
half=$((steps / 2))
common=(--set training.max_steps=$steps --set training.max_epochs=0 --set training.max_seconds=0
        --set training.validate_every=$half --set training.metric=loss
        --set data.max_dev_sentences=50 --set training.early_stopping=0 "$@")

# Seconds between the two validations of a finished run.
window() { grep -o '"seconds":[0-9.e+-]*' "$1/history.jsonl" | cut -d: -f2 | awk 'NR==1{a=$1} NR==2{print $1-a}'; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

: >"$work/alone.txt"; : >"$work/ranks.txt"; : >"$work/wait.txt"
for r in $(seq 1 "$rounds"); do
  "$heed" train "$config" --set output="$work/alone$r" --set training.threads=$threads "${common[@]}" \
    >"$work/alone$r.log" 2>&1 || { cat "$work/alone$r.log"; exit 1; }
  window "$work/alone$r" >>"$work/alone.txt"
  mpirun --oversubscribe -np $threads "$heed" train "$config" --set output="$work/ranks$r" \
    --set training.threads=1 "${common[@]}" >"$work/ranks$r.log" 2>&1 || { cat "$work/ranks$r.log"; exit 1; }
  window "$work/ranks$r" >>"$work/ranks.txt"
  grep -o '[0-9.]* ms per step waiting' "$work/ranks$r.log" | cut -d' ' -f1 >>"$work/wait.txt"
  echo "round $r: 1 x $threads threads $(tail -1 "$work/alone.txt") s, $threads x 1 thread $(tail -1 "$work/ranks.txt") s ($half steps)"
done
grep -m1 "data-parallel over" "$work/ranks1.log" || true
grep -m1 "model with" "$work/alone1.log" | sed 's/.*; //' || true
a=$(median <"$work/alone.txt"); b=$(median <"$work/ranks.txt"); w=$(median <"$work/wait.txt")
awk -v a="$a" -v b="$b" -v w="$w" -v n="$half" -v t="$threads" 'BEGIN {
  printf "median ms per step: 1 process x %d threads %.1f, %d ranks x 1 thread %.1f; ratio (ranks / process speed) %.2fx\n", t, 1000*a/n, t, 1000*b/n, a/b
  printf "all-reduce wait after the backward pass: %.2f ms per step (%.1f%% of the ranks'\'' step)\n", w, 100*w/(1000*b/n)
}'
