#!/bin/sh
# Connected digits with a convolutional front end before the listener
# (docs/MODELS.md#a-convolutional-front-end): 50,000 training utterances of heed data digits
# (--levels LEVELS: equal, the default, or recorded; docs/DATA.md, "Levels"), then
# examples/digits/config.yaml with unstacked frames through two conv 3x3 + max-pool layers of 8
# and 16 channels, a pyramid of 2 after them (an annotation every 80 ms), joint CTC training
# (lambda 0.3) and half the recipe's rate (0.0015), SECONDS (default 6000: 100 minutes) on one
# thread, training seed SEED (default 1; the data's seed stays 1234); then the official
# split's scores (evaluate.sh). Runs in the directory it is run from; writes digits-50k-LEVELS/
# (2.4 GB), digits-las-frontend-LEVELS/ and digits-frontend-LEVELS-test.jsonl (with a SEED
# other than 1: digits-las-frontend-LEVELS-seedSEED/, digits-frontend-LEVELS-seedSEED-test.jsonl).
# With SPEAKER (george, jackson, nicolas, theo or yweweler), that speaker is never heard in
# training: the data (digits-50k-LEVELS-SPEAKER/) test on all of SPEAKER's recordings and train
# on the other four speakers' (heed data digits --test-speaker), and every name above gains
# -SPEAKER. docs/RESULTS.md#listen-attend-and-spell-on-spoken-digits.
# Usage: sh examples/digits/frontend.sh FSDD_DIR [HEED [LEVELS [SECONDS [SEED [SPEAKER]]]]]
set -eu
usage="usage: frontend.sh FSDD_DIR [HEED [equal|recorded [SECONDS [SEED [SPEAKER]]]]]"
fsdd=${1:?$usage}
heed=${2:-heed}
levels=${3:-equal}
seconds=${4:-6000}
seed=${5:-1}
speaker=${6:-}
config=$(dirname "$0")/config.yaml
data=digits-50k-$levels
run=frontend-$levels
[ "$seed" = 1 ] || run=$run-seed$seed
held_out=
if [ -n "$speaker" ]; then
  data=$data-$speaker
  run=$run-$speaker
  held_out="--test-speaker $speaker"
fi
model=digits-las-$run
# shellcheck disable=SC2086 # $held_out is empty or an option and its value
[ -f "$data/test.tsv" ] ||
  "$heed" data digits --fsdd "$fsdd" --out "$data" --count 50000 --levels "$levels" $held_out
[ -f "$model/best.safetensors" ] ||
  "$heed" train "$config" --set "data.train_manifest=$data/train.tsv" \
    --set "data.dev_manifest=$data/dev.tsv" --set data.max_dev_sentences=500 \
    --set "output=$model" --set training.lr=0.0015 --set training.threads=1 \
    --set "training.seed=$seed" --set "training.max_seconds=$seconds" \
    --set training.validate_every=1000 \
    --set model.ctc_weight=0.3 --set data.audio.stack=1 --set training.max_tokens=9000 \
    --set model.frontend_layers=2 --set model.frontend_channels=8 --set model.pyramid=2
sh "$(dirname "$0")/evaluate.sh" "$heed" "$model" "$data" "digits-$run-test.jsonl"
