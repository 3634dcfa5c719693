#!/bin/sh
# Connected digits, the official split's longest run: 100,000 training utterances of heed data
# digits with each digit's speed perturbed between 0.9 and 1.1 (--speed), then
# examples/digits/config.yaml at half its learning rate (0.0015) for 100 minutes on one
# thread, then the string and digit error on the official test split (1,000 utterances of
# recordings 0-4) with their 95% bootstrap intervals, greedy and with a beam of 8, and the
# greedy errors by the SNR of each utterance's noise (evaluate.sh). Runs in the
# directory it is run from; writes digits-long-data/ (4.8 GB), digits-las-long/ and
# digits-long-test.jsonl. docs/RESULTS.md#listen-attend-and-spell-on-spoken-digits.
# Usage: sh examples/digits/long.sh FSDD_DIR [HEED]   (HEED: the heed binary, default heed)
set -eu
fsdd=${1:?usage: long.sh FSDD_DIR [HEED]}
heed=${2:-heed}
config=$(dirname "$0")/config.yaml
data=digits-long-data
model=digits-las-long
[ -f "$data/test.tsv" ] ||
  "$heed" data digits --fsdd "$fsdd" --out "$data" --count 100000 --speed 0.9,1.1 \
    --levels recorded  # the data of the published numbers (docs/DATA.md, "Levels")
[ -f "$model/best.safetensors" ] ||
  "$heed" train "$config" --set "data.train_manifest=$data/train.tsv" \
    --set "data.dev_manifest=$data/dev.tsv" --set "output=$model" \
    --set training.lr=0.0015 --set training.threads=1 --set training.max_seconds=6000 \
    --set training.validate_every=1000
sh "$(dirname "$0")/evaluate.sh" "$heed" "$model" "$data" digits-long-test.jsonl
