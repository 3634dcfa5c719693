#!/bin/sh
# Issue 16's comparison on Fashion-MNIST (docs/RESULTS.md#recurrent-attention-model-on-fashion-mnist):
# on translated and on cluttered 60x60 sets, the recurrent attention model (ram.yaml), the same
# model with random glimpse locations (ram-random.yaml), a fully connected network with more
# parameters (fc.yaml) and a small CNN (cnn.yaml), each trained for at most 29 minutes, then
# tested on the sets made from the official test images; OUT_DIR/results.md gets the table
# (test error with its 95% bootstrap interval; ram and ram-random twice: following the
# policy's mean locations, and with 16 sampled paths averaged), and OUT_DIR/<set>/show-ram/
# the RAM's glimpse paths on the first 12 test images (heed show, gallery.html).
#
# Usage: examples/fashion-ram/run.sh OUT_DIR [--quick] [--sets LIST] [--models LIST]
#                                    [--seconds S] [--threads N] [--source DIR] [--heed BIN]
#   --quick        small sets and 15 s per model: a smoke test of the whole recipe (minutes)
#   --seconds S    each model's training time budget in seconds (default 1740, 29 minutes;
#                  the learning rate decays to 0 over it)
#   --sets LIST    which sets, comma-separated (default translated,cluttered)
#   --models LIST  which models, comma-separated (default ram,ram-random,fc,cnn)
#   --threads N    threads per training and evaluation (default 2)
#   --source DIR   Fashion-MNIST's gzipped IDX files (default /usr/share/datasets/fashion-mnist)
#   --heed BIN     the heed binary (default: heed on PATH)
#
# On a 2-core machine two runs can go side by side, one thread each, in the same OUT_DIR:
#   run.sh OUT --sets translated --threads 1 &  run.sh OUT --sets cluttered --threads 1
# or, one set at a time, a model and its ablation together:
#   run.sh OUT --sets translated --models ram,fc --threads 1 &
#   run.sh OUT --sets translated --models ram-random,cnn --threads 1
# Each finished model leaves OUT_DIR/<set>/<model>.row, its line of the table; a run skips the
# models that have one (delete it to train on and evaluate again), and every run writes
# results.md from all the rows there are, so the last one to finish writes the whole table.
#
# The training canvases are drawn by heed train itself (data.generate, docs/CONFIG.md#data):
# every item of Fashion-MNIST's training set placed anew at each epoch, so that no model can
# learn one fixed set of placements by heart. The dev set, which picks each model's best
# checkpoint, is generated from the training images with another seed (2000 images), so the
# test images decide nothing.
set -eu

usage() {
  echo "usage: $0 OUT_DIR [--quick] [--sets LIST] [--models LIST] [--seconds S] [--threads N] [--source DIR] [--heed BIN]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
out=$1
shift
quick=0
source=/usr/share/datasets/fashion-mnist
heed=heed
sets="translated cluttered"
all_models="ram ram-random fc cnn"
models=$all_models
threads=2
budget=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --sets) [ $# -ge 2 ] || usage; sets=$(echo "$2" | tr ',' ' '); shift ;;
    --models) [ $# -ge 2 ] || usage; models=$(echo "$2" | tr ',' ' '); shift ;;
    --seconds) [ $# -ge 2 ] || usage; budget=$2; shift ;;
    --threads) [ $# -ge 2 ] || usage; threads=$2; shift ;;
    --source) [ $# -ge 2 ] || usage; source=$2; shift ;;
    --heed) [ $# -ge 2 ] || usage; heed=$2; shift ;;
    *) usage ;;
  esac
  shift
done
for kind in $sets; do
  case $kind in
    translated|cluttered) ;;
    *) echo "$0: --sets: '$kind' is not a set (translated, cluttered)" >&2; exit 2 ;;
  esac
done
for model in $models; do
  case " $all_models " in
    *" $model "*) ;;
    *) echo "$0: --models: '$model' is not a model ($all_models)" >&2; exit 2 ;;
  esac
done
case $threads in
  ''|*[!0-9]*|0) echo "$0: --threads: '$threads' is not a positive number" >&2; exit 2 ;;
esac
case ${budget:-1} in
  *[!0-9]*|0) echo "$0: --seconds: '$budget' is not a positive number of seconds" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
if [ $quick = 1 ]; then
  count=2000 test_count=500 dev_count=300 seconds=15 validate_every=40
else
  count=60000 test_count=10000 dev_count=2000 seconds=1740 validate_every=1000
fi
paths=16
seconds=${budget:-$seconds}
mkdir -p "$out"

# error_of EVAL_FILE: "ERROR|LOW-HIGH" from the first line of heed eval's report.
error_of() {
  line=$(head -n 1 "$1")
  echo "$(echo "$line" | sed -n 's/^test error \([0-9.]*\)%.*/\1/p')|$(echo "$line" |
    sed -n 's/.*bootstrap interval \([0-9.]*\)-\([0-9.]*\)%.*/\1-\2/p')"
}

# paths_row: for ram and ram-random, the same trained model tested again with the class
# probabilities of $paths sampled paths averaged (heed eval --paths; docs/cli/eval.md), a
# row of its own beside the mean-location row; made once, from the model's row.
paths_row() {
  case $model in ram|ram-random) ;; *) return 0 ;; esac
  [ -f "$d/$model.row" ] && [ ! -f "$d/$model-paths.row" ] || return 0
  "$heed" eval --model "$d/$model" --images "$d/data/test-images-idx3-ubyte.gz" --paths $paths \
    --threads $threads > "$d/$model-paths.eval.txt"
  head -n 1 "$d/$model-paths.eval.txt" >&2
  e=$(error_of "$d/$model-paths.eval.txt")
  echo "$(sed -n 's/^| \([^|]*\) | [^|]* | \([^|]*\) | \([^|]*\) | \([^|]*\) |.*/| \1 | '"$model, $paths paths averaged"' | \2 | \3 | \4 |/p' "$d/$model.row") ${e%%|*} | ${e#*|} |" \
    > "$d/$model-paths.row.part"
  mv "$d/$model-paths.row.part" "$d/$model-paths.row"
}

for kind in $sets; do
  d=$out/$kind
  # The test set (data/train* is one image: heed train draws the training set)
  [ -f "$d/data/test.tgt" ] ||
    "$heed" data images --kind $kind --count 1 --test-count $test_count --source "$source" \
      --out "$d/data"
  [ -f "$d/dev/train.tgt" ] ||
    "$heed" data images --kind $kind --count $dev_count --test-count 1 --seed 4321 \
      --source "$source" --out "$d/dev"
  for model in $models; do
    if [ -f "$d/$model.row" ]; then
      echo "== $kind: $model: done before ($d/$model.row)" >&2
      paths_row
      continue
    fi
    echo "== $kind: $model" >&2
    start=$(date +%s)
    "$heed" train "$here/$model.yaml" \
      --set data.generate.kind=$kind --set data.generate.source="$source" \
      --set data.generate.count=$count \
      --set data.dev_images="$d/dev/train-images-idx3-ubyte.gz" \
      --set data.dev_target="$d/dev/train.tgt" \
      --set training.max_seconds=$seconds --set training.validate_every=$validate_every \
      --set training.threads=$threads --set output="$d/$model" > "$d/$model.train.log" 2>&1 ||
      { tail -n 20 "$d/$model.train.log" >&2; exit 1; }
    took=$(($(date +%s) - start))
    "$heed" eval --model "$d/$model" --images "$d/data/test-images-idx3-ubyte.gz" \
      --threads $threads > "$d/$model.eval.txt"
    head -n 1 "$d/$model.eval.txt" >&2
    params=$("$heed" info --model "$d/$model" | sed -n 's/^ *total *\([0-9,]*\)$/\1/p')
    e=$(error_of "$d/$model.eval.txt")
    echo "| $kind | $model | $params | $threads | $took | ${e%%|*} | ${e#*|} |" > "$d/$model.row.part"
    mv "$d/$model.row.part" "$d/$model.row"
    paths_row
  done
  # Where the RAM looks: its glimpse paths on the first 12 test images (gallery.html), once
  # its row is there (a run of other --models leaves it to the run that trains ram).
  [ ! -f "$d/ram.row" ] || [ -f "$d/show-ram/gallery.html" ] ||
    "$heed" show --model "$d/ram" --images "$d/data/test-images-idx3-ubyte.gz" \
      --max-images 12 --out "$d/show-ram" > "$d/show-ram.log" 2>&1 ||
    { tail -n 20 "$d/show-ram.log" >&2; exit 1; }
done

results=$out/results.md
{
  echo "# RAM against its baselines on Fashion-MNIST"
  echo
  echo "examples/fashion-ram/run.sh$( [ $quick = 1 ] && echo ' --quick'), table written $(date -u '+%Y-%m-%d %H:%M UTC'), $("$heed" --version 2>/dev/null | head -n 1)"
  echo "$count training images an epoch (data.generate: each item placed anew every epoch), $test_count test images (from the official test set), dev $dev_count; at most $seconds s of training per model."
  echo
  echo "| set | model | parameters | threads | training (s) | test error % | 95% bootstrap interval |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for kind in translated cluttered; do
    for model in $all_models; do
      [ ! -f "$out/$kind/$model.row" ] || cat "$out/$kind/$model.row"
      [ ! -f "$out/$kind/$model-paths.row" ] || cat "$out/$kind/$model-paths.row"
    done
  done
  echo
  echo "Per model: OUT_DIR/<set>/<model>.train.log (training), <model>.eval.txt (per-class accuracy);"
  echo "RAM's glimpse paths on 12 test images: OUT_DIR/<set>/show-ram/gallery.html."
} > "$results.part"
mv "$results.part" "$results"
cat "$results"
