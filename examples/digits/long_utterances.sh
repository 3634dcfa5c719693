#!/bin/sh
# Location-aware against content attention on utterances two to three times longer than any in
# training (docs/RESULTS.md#longer-utterances-than-any-in-training; Chorowski et al. 2015):
# two models of examples/digits/config.yaml trained side by side for 45 minutes, one thread
# each, on the 50,000 utterances of `heed data digits --levels recorded` (1 to 7 digits; the
# data of frontend.sh FSDD HEED recorded), one with content attention and one location-aware
# (10 filters of width 11); a dev set of 10 to 20 digits from the dev recordings chooses the
# attention window (--attention-window L,R) for each; then both are scored with and without
# their window on the official test split (1-7 digits) and on 500 test utterances of 10 to 20
# digits from the test recordings. Every decoding stops at 40 symbols (--max-len 40).
# Runs in the directory it is run from; writes digits-50k-recorded/ (2.4 GB), digits-long/,
# digits-long-dev/, digits-las-content/ and digits-las-location/ (with their training logs).
# Usage: sh examples/digits/long_utterances.sh FSDD_DIR [HEED]
set -eu
fsdd=${1:?usage: long_utterances.sh FSDD_DIR [HEED]}
heed=${2:-heed}
config=$(dirname "$0")/config.yaml
data=digits-50k-recorded
[ -f "$data/test.tsv" ] ||
  "$heed" data digits --fsdd "$fsdd" --out "$data" --count 50000 --levels recorded
long="--count 0 --min-digits 10 --max-digits 20 --levels recorded"
# shellcheck disable=SC2086 # $long is a list of options
[ -f digits-long/test.tsv ] || "$heed" data digits --fsdd "$fsdd" --out digits-long $long \
  --dev-count 0 --test-count 500 --seed 77
# shellcheck disable=SC2086
[ -f digits-long-dev/dev.tsv ] || "$heed" data digits --fsdd "$fsdd" --out digits-long-dev \
  $long --dev-count 300 --test-count 0 --seed 78

train() {  # MODEL [--set KEY=VALUE ...]: 45 minutes on one thread, unless trained already
  model=$1
  shift
  [ -f "$model/best.safetensors" ] && return 0
  "$heed" train "$config" --set "data.train_manifest=$data/train.tsv" \
    --set "data.dev_manifest=$data/dev.tsv" --set "output=$model" --set training.threads=1 \
    --set training.max_seconds=2700 --set training.validate_every=1000 "$@" > "$model.log" 2>&1
}
echo "== training both models side by side (45 minutes; logs in digits-las-*.log)"
train digits-las-content &
content=$!
train digits-las-location --set model.location_filters=10 --set model.location_width=11 &
location=$!
wait "$content" || { echo "content training failed: digits-las-content.log" >&2; exit 1; }
wait "$location" || { echo "location training failed: digits-las-location.log" >&2; exit 1; }

for model in digits-las-content digits-las-location; do
  echo "== $model: long dev utterances by window (digit error = WER)"
  for window in 2,4 3,6 4,8 6,12 8,16 12,24; do
    "$heed" eval --model "$model" --speech digits-long-dev/dev.tsv --max-len 40 \
      --attention-window "$window" > "$model-window.txt"
    printf '%s\t%s\n' "$window" "$(tail -1 "$model-window.txt")"
  done
done
window=6,12  # the best of the sweep above for both models in docs/RESULTS.md's runs
for model in digits-las-content digits-las-location; do
  for test in "$data/test.tsv" digits-long/test.tsv; do
    echo "== $model on $test, greedy"
    "$heed" eval --model "$model" --speech "$test" --max-len 40
    echo "== $model on $test, greedy, attention window $window"
    "$heed" eval --model "$model" --speech "$test" --max-len 40 --attention-window "$window"
  done
done
