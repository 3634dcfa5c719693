#!/bin/sh
# Connected digits from a speaker never heard in training (issue 30's held-out speaker): the
# utterances of heed data digits with SPEAKER's recordings as the whole test set and the
# other four speakers' as training and dev (50,000 training utterances, as the official
# split's longer run), examples/digits/config.yaml trained for 45 minutes on one thread, then
# the string and digit error on SPEAKER with their 95% bootstrap intervals, greedy. Runs in
# the directory it is run from; writes digits-SPEAKER/, digits-las-SPEAKER/ and
# digits-SPEAKER-test.jsonl.
# Usage: sh examples/digits/held_out_speaker.sh FSDD_DIR SPEAKER [HEED]
#   SPEAKER: george, jackson, nicolas, theo or yweweler; HEED: the heed binary (default heed)
set -eu
fsdd=${1:?usage: held_out_speaker.sh FSDD_DIR SPEAKER [HEED]}
speaker=${2:?usage: held_out_speaker.sh FSDD_DIR SPEAKER [HEED]}
heed=${3:-heed}
config=$(dirname "$0")/config.yaml
data=digits-$speaker
model=digits-las-$speaker
[ -f "$data/test.tsv" ] ||
  "$heed" data digits --fsdd "$fsdd" --out "$data" --count 50000 --test-speaker "$speaker" \
    --levels recorded  # the data of the published numbers (docs/DATA.md, "Levels")
[ -f "$model/best.safetensors" ] ||
  "$heed" train "$config" --set "data.train_manifest=$data/train.tsv" \
    --set "data.dev_manifest=$data/dev.tsv" --set "output=$model" \
    --set training.threads=1 --set training.max_seconds=2700 --set training.validate_every=1000
echo "== $speaker, never heard in training: greedy"
"$heed" eval --model "$model" --speech "$data/test.tsv" --output "$data-test.jsonl"
