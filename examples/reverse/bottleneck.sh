#!/usr/bin/env bash
# The bottleneck that attention removes, on a synthetic task: reverse random strings of
# 1-60 symbols with a Bahdanau model and with the no-attention baseline of the same size,
# then score the test set by source length (sequence and symbol error rate, bootstrap 95%
# intervals) and draw both curves in one SVG.
#   examples/reverse/bottleneck.sh [WORKDIR] [--set KEY=VALUE ...]
# WORKDIR (default runs/reverse-bottleneck) receives data/, one model directory per kind,
# the test outputs, <kind>.json (scores by length) and bottleneck.svg.
# Extra arguments go to both `heed train` runs.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
heed=${HEED:-$repo/build/heed}
work=runs/reverse-bottleneck
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then work=$1; shift; fi
kinds=${HEED_KINDS:-bahdanau noattn}

mkdir -p "$work"
[ -f "$work/data/test.tgt" ] ||
  python3 "$repo/examples/reverse/make_data.py" "$work/data" --train 40000 --dev 500 \
    --test 3000 --min-len 1 --max-len 60 --spaced --seed 1
for kind in $kinds; do
  if [ ! -f "$work/$kind/done" ]; then
    "$heed" train "$repo/examples/reverse/config.yaml" \
      --set "data.train_source=$work/data/train.src" --set "data.train_target=$work/data/train.tgt" \
      --set "data.dev_source=$work/data/dev.src" --set "data.dev_target=$work/data/dev.tgt" \
      --set data.source.tokenizer=whitespace --set data.target.tokenizer=whitespace \
      --set model.kind=$kind --set model.emb_dim=64 --set model.enc_hidden=128 \
      --set model.dec_hidden=128 --set training.max_tokens=2000 --set training.max_steps=3000 \
      --set training.metric=g2p --set training.threads=1 --set "output=$work/$kind" "$@"
    touch "$work/$kind/done"
  fi
  "$heed" translate --model "$work/$kind" --beam 1 --max-len-a 0 --max-len-b 100 \
    --input "$work/data/test.src" --output "$work/$kind.test.hyp"
  echo "$kind:"
  "$heed" score --metric g2p --ref "$work/data/test.tgt" --hyp "$work/$kind.test.hyp" \
    --by-length "$work/data/test.src" --buckets 10,20,30,40,50 --label "$kind" \
    --json "$work/$kind.json"
  "$heed" score --metric g2p --ref "$work/data/test.tgt" --hyp "$work/$kind.test.hyp" \
    --by-length "$work/data/test.src" --buckets 10,20,30,40,50
done
plots=()
for kind in $kinds; do plots+=(--by-length "$work/$kind.json"); done
"$heed" plot "${plots[@]}" --out "$work/bottleneck.svg" --y-title "sequence error rate %" \
  --title "Reversal: sequence error rate by length (greedy, 95% bootstrap intervals)"
echo "wrote $work/bottleneck.svg"
