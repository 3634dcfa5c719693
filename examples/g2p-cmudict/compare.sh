#!/usr/bin/env bash
# Compares the attention models and the no-attention baseline on the CMUdict split under one
# training budget: Bahdanau, Luong (dot, general, concat) and noattn. Each is trained with
# examples/g2p-cmudict/config.yaml plus its own model keys plus the extra arguments, decoded
# with beam 5, and scored on the test split overall and by word length (letters, bootstrap
# 95% intervals); prints a Markdown table and writes WORKDIR/by_length.svg.
#   examples/g2p-cmudict/compare.sh [WORKDIR] [--set KEY=VALUE ...]
# e.g. examples/g2p-cmudict/compare.sh runs/g2p-compare --set training.max_steps=1000
# The Luong encoders are bi-LSTMs of 128 per direction so that their 256-wide annotations
# match the 256-wide decoder, as the dot score needs. HEED_SYSTEMS picks a subset.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
heed=${HEED:-$repo/build/heed}
work=runs/g2p-compare
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then work=$1; shift; fi
systems=${HEED_SYSTEMS:-bahdanau luong-dot luong-general luong-concat noattn}
stress=${HEED_G2P_STRESS:-strip}

model_keys() {
  case $1 in
    bahdanau) echo "--set model.kind=bahdanau" ;;
    luong-*) echo "--set model.kind=luong --set model.score=${1#luong-} --set model.enc_hidden=128" ;;
    noattn) echo "--set model.kind=noattn" ;;
    *) echo "unknown system $1" >&2; exit 2 ;;
  esac
}

mkdir -p "$work"
[ -f "$work/data/test.tgt" ] ||
  "$heed" data g2p --cmudict --letters-only --stress "$stress" --out "$work/data"
rows=()
plots=()
for s in $systems; do
  if [ ! -f "$work/$s/done" ]; then
    start=$(date +%s)
    # shellcheck disable=SC2046
    "$heed" train "$repo/examples/g2p-cmudict/config.yaml" $(model_keys "$s") \
      --set "data.train_source=$work/data/train.src" --set "data.train_target=$work/data/train.tgt" \
      --set "data.dev_source=$work/data/dev.src" --set "data.dev_target=$work/data/dev.tgt" \
      --set "output=$work/$s" "$@"
    echo $(( $(date +%s) - start )) > "$work/$s/done"
  fi
  "$heed" translate --model "$work/$s" --beam 5 --input "$work/data/test.src" --output "$work/$s.test.hyp"
  read -r wer per < <("$heed" score --metric g2p --score-only --ref "$work/data/test.tgt" --hyp "$work/$s.test.hyp")
  by_length=(--by-length "$work/data/test.src" --length-unit chars --buckets 4,6,8,10,12)
  "$heed" score --metric g2p --ref "$work/data/test.tgt" --hyp "$work/$s.test.hyp" \
    "${by_length[@]}" --label "$s" --json "$work/$s.json" > /dev/null
  "$heed" score --metric g2p --ref "$work/data/test.tgt" --hyp "$work/$s.test.hyp" \
    "${by_length[@]}" > "$work/$s.by_length.txt"
  info=$("$heed" info --model "$work/$s")
  params=$(awk '$1 == "total" {print $2}' <<<"$info")
  steps=$(sed -n 's/^training: \([0-9,]*\) steps.*/\1/p' <<<"$info")
  rows+=("| $s | ${params:-?} | ${steps:-?} | $(cat "$work/$s/done") s | $wer | $per |")
  plots+=(--by-length "$work/$s.json")
done
echo "| system | parameters | steps | training | test WER % | test PER % |"
echo "| --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
for s in $systems; do echo "$s by word length:"; cat "$work/$s.by_length.txt"; done
"$heed" plot "${plots[@]}" --out "$work/by_length.svg" --title "CMUdict test WER by word length (beam 5)"
echo "wrote $work/by_length.svg"
