#!/bin/sh
# The test scores of a digits model, as every digits recipe reports them (the official split's,
# or a held-out speaker's): string and digit error on DATA/test.tsv with 95% bootstrap
# intervals, greedy (its transcripts kept in JSONL) and with a beam of 8, then the greedy
# errors by the SNR of each utterance's noise
# (snr_bands.sh; data made by an older heed data digits has no DATA/test.noise.tsv), and the
# pictures of the first 8 test utterances: each one's spectrogram with every digit's attention
# under it, in MODEL-show/ (utterance-NNNN.svg and .png, report.html; heed show --audio).
# Usage: sh examples/digits/evaluate.sh HEED MODEL DATA JSONL
set -eu
heed=${1:?usage: evaluate.sh HEED MODEL DATA JSONL}
model=${2:?usage: evaluate.sh HEED MODEL DATA JSONL}
data=${3:?usage: evaluate.sh HEED MODEL DATA JSONL}
jsonl=${4:?usage: evaluate.sh HEED MODEL DATA JSONL}
echo "== $data/test.tsv: greedy"
"$heed" eval --model "$model" --speech "$data/test.tsv" --output "$jsonl"
echo "== $data/test.tsv: beam 8"
"$heed" eval --model "$model" --speech "$data/test.tsv" --beam 8
echo "== $data/test.tsv: greedy, by the noise of each utterance"
if [ -f "$data/test.noise.tsv" ]; then
  sh "$(dirname "$0")/snr_bands.sh" "$data/test.noise.tsv" "$jsonl"
else
  echo "($data/ was made by an older heed data digits: no test.noise.tsv)"
fi
echo "== the first 8 test utterances drawn (greedy)"
head -8 "$data/test.tsv" > "$data/test-first8.tsv"
"$heed" show --model "$model" --audio "$data/test-first8.tsv" --out "$model-show" --beam 1
