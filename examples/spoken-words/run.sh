#!/bin/sh
# Spoken words to phones, end to end, in the directory it is run from: the G2P split of CMUdict
# (heed data g2p, into g2p/), the words spoken by espeak-ng and flite (make_data.sh, into
# words/), listen, attend and spell trained for 20 minutes (config.yaml, into words-las/), the
# same model without attention for 20 minutes (no-attention.yaml, into words-noattn/), then the
# phone error rate of both on the three test splits: test words in the training voices, in the
# held-out flite voice (slt) and in the held-out espeak-ng accent (en-gb-scotland); last, the
# attention model's pictures of the first 8 words of each test split (heed show --audio: the
# spectrogram with each phone's attention under it) in words-las-show-SPLIT/.
# Usage: sh examples/spoken-words/run.sh [HEED]   (HEED: the heed binary, default heed)
# Needs espeak-ng and flite (apt-get install espeak-ng flite) and CMUdict (tools/setup.sh).
set -eu
heed=${1:-heed}
here=$(dirname "$0")
[ -f g2p/test.tgt ] || "$heed" data g2p --cmudict --letters-only --stress strip --out g2p
[ -f words/test-accent.tsv ] || sh "$here/make_data.sh" g2p words
[ -f words-las/best.safetensors ] || "$heed" train "$here/config.yaml"
[ -f words-noattn/best.safetensors ] || "$heed" train "$here/no-attention.yaml"
for model in words-las words-noattn; do
  for split in test-seen test-voice test-accent; do
    echo "== $model on $split (greedy; the word error is the phone error rate)"
    "$heed" eval --model "$model" --speech "words/$split.tsv" --output "$model-$split.jsonl"
  done
done
for split in test-seen test-voice test-accent; do
  head -8 "words/$split.tsv" > "words/$split-first8.tsv"
  "$heed" show --model words-las --audio "words/$split-first8.tsv" --out "words-las-show-$split" \
    --beam 1
done
