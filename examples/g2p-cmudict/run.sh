#!/usr/bin/env bash
# Grapheme-to-phoneme on CMUdict: prepare the split, train, and score the test set.
#   examples/g2p-cmudict/run.sh [WORKDIR] [--set KEY=VALUE ...]
# WORKDIR (default runs/g2p-cmudict) receives data/, model/ and the test outputs.
# Trains examples/g2p-cmudict/recipe.yaml (45 minutes; HEED_G2P_CONFIG names another config).
# Extra arguments go to `heed train` (e.g. --set training.threads=1).
# Stress: HEED_G2P_STRESS=keep keeps stress digits (default strip, as the benchmark).
# Beam width: HEED_G2P_BEAM (default 5). HEED_G2P_AVERAGE=N (default 3; 0 = off) also scores
# the average of the last N step checkpoints. HEED_G2P_RANKS=N (default 1) trains data-parallel
# in N processes of one thread each under mpirun (docs/DISTRIBUTED.md): on two cores, two ranks
# train the Transformer about 1.4x faster than one process of two threads (docs/PERFORMANCE.md).
# Last, heed show draws HEED_G2P_SHOW test words (default 8, spread over the test set; 0 = none)
# into WORKDIR/show: attention and saliency, and for a Transformer every layer's heads
# (sentence-NNNN-heads.png: encoder-decoder; -encoder-heads, -decoder-heads: self-attention).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
heed=${HEED:-$repo/build/heed}
work=${1:-runs/g2p-cmudict}
[ $# -gt 0 ] && shift
stress=${HEED_G2P_STRESS:-strip}
beam=${HEED_G2P_BEAM:-5}
average=${HEED_G2P_AVERAGE:-3}
config=${HEED_G2P_CONFIG:-$repo/examples/g2p-cmudict/recipe.yaml}
ranks=${HEED_G2P_RANKS:-1}
show=${HEED_G2P_SHOW:-8}
launch=()
threads=()
if [ "$ranks" -gt 1 ]; then
  launch=(mpirun -np "$ranks" --bind-to none)
  threads=(--set training.threads=1)
fi

mkdir -p "$work"
[ -f "$work/data/test.tgt" ] ||
  "$heed" data g2p --cmudict --letters-only --stress "$stress" --out "$work/data"

"${launch[@]}" "$heed" train "$config" "${threads[@]}" \
  --set "data.train_source=$work/data/train.src" --set "data.train_target=$work/data/train.tgt" \
  --set "data.dev_source=$work/data/dev.src" --set "data.dev_target=$work/data/dev.tgt" \
  --set "output=$work/model" "$@"

"$heed" translate --model "$work/model" --beam "$beam" --input "$work/data/test.src" \
  --output "$work/test.hyp"
echo "test set ($stress stress, beam $beam, best checkpoint):"
"$heed" score --metric g2p --ref "$work/data/test.tgt" --hyp "$work/test.hyp"
if [ "$average" -gt 0 ] && [ "$(ls "$work/model/checkpoints" 2>/dev/null | wc -l)" -ge "$average" ]; then
  "$heed" average --model "$work/model" --last "$average" --force --out "$work/averaged.safetensors"
  "$heed" translate --model "$work/model" --weights "$work/averaged.safetensors" --beam "$beam" \
    --input "$work/data/test.src" --output "$work/test.averaged.hyp"
  echo "test set ($stress stress, beam $beam, average of the last $average step checkpoints):"
  "$heed" score --metric g2p --ref "$work/data/test.tgt" --hyp "$work/test.averaged.hyp"
fi
weights=()
[ -f "$work/averaged.safetensors" ] && weights=(--weights "$work/averaged.safetensors")
if [ "$show" -gt 0 ]; then
  n=$(wc -l < "$work/data/test.src")
  awk -v every=$(( n / show > 0 ? n / show : 1 )) 'NR % every == 1' "$work/data/test.src" |
    head -n "$show" > "$work/show.src"
  "$heed" show --model "$work/model" "${weights[@]}" --input "$work/show.src" --out "$work/show"
fi
