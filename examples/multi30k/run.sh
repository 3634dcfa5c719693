#!/usr/bin/env bash
# English -> German on Multi30k: train, translate both Flickr test sets, score.
#   examples/multi30k/run.sh DATA_DIR [WORKDIR] [--set KEY=VALUE ...]
# DATA_DIR holds the raw Multi30k task-1 files (train/val/test_2016_flickr/test_2017_flickr
# .en and .de); they are read in place, never copied. WORKDIR (default runs/multi30k)
# receives model/ and the test outputs. Extra arguments go to `heed train`
# (e.g. --set training.threads=1 --set model.kind=noattn).
# HEED_MT_CONFIG names another config (default examples/multi30k/config.yaml; the
# Transformer: examples/multi30k/transformer.yaml). Beam width: HEED_MT_BEAM (default 5); its
# length normalisation: HEED_MT_ALPHA (heed translate --alpha, default 0: raw log-probability).
# The last step checkpoints are averaged (HEED_MT_AVERAGE, default 3; 0 = decode with the best
# checkpoint). Last, heed show draws the first HEED_MT_SHOW sentences of test_2016_flickr
# (default 8; 0 = none) into WORKDIR/show with the weights decoded: attention and saliency, and
# for a Transformer every layer's heads (sentence-NNNN-heads.png: encoder-decoder attention;
# -encoder-heads, -decoder-heads: the self-attentions).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
heed=${HEED:-$repo/build/heed}
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 DATA_DIR [WORKDIR] [--set KEY=VALUE ...]" >&2
  echo "DATA_DIR: the folder with train.en, train.de, val.*, test_2016_flickr.*, test_2017_flickr.*" >&2
  exit 2
fi
data=$1; shift
work=runs/multi30k
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then work=$1; shift; fi
config=${HEED_MT_CONFIG:-$repo/examples/multi30k/config.yaml}
beam=${HEED_MT_BEAM:-5}
alpha=${HEED_MT_ALPHA:-0}
average=${HEED_MT_AVERAGE:-3}
show=${HEED_MT_SHOW:-8}
for f in train val test_2016_flickr test_2017_flickr; do
  for l in en de; do
    [ -f "$data/$f.$l" ] || { echo "$0: missing $data/$f.$l" >&2; exit 2; }
  done
done

mkdir -p "$work"
start=$(date +%s)
"$heed" train "$config" \
  --set "data.train_source=$data/train.en" --set "data.train_target=$data/train.de" \
  --set "data.dev_source=$data/val.en" --set "data.dev_target=$data/val.de" \
  --set "output=$work/model" "$@"
echo "training took $(( $(date +%s) - start )) s (wall clock, resumed sessions not included)"

score() {  # score HYP REF
  echo -n "  cased:     "; "$heed" score --metric bleu --ref "$2" --hyp "$1"
  echo -n "  lowercase: "; "$heed" score --metric bleu --lowercase --ref "$2" --hyp "$1"
}
averaged=()
if [ "$average" -gt 0 ] && [ "$(ls "$work/model/checkpoints" 2>/dev/null | wc -l)" -ge "$average" ]; then
  "$heed" average --model "$work/model" --last "$average" --force --out "$work/averaged.safetensors"
  averaged=(--weights "$work/averaged.safetensors")
fi
for t in test_2016_flickr test_2017_flickr; do
  "$heed" translate --model "$work/model" --beam "$beam" --alpha "$alpha" --input "$data/$t.en" --output "$work/$t.best.de"
  echo "$t, best checkpoint, beam $beam:"
  score "$work/$t.best.de" "$data/$t.de"
  if [ ${#averaged[@]} -gt 0 ]; then
    "$heed" translate --model "$work/model" "${averaged[@]}" --beam "$beam" --alpha "$alpha" \
      --input "$data/$t.en" --output "$work/$t.averaged.de"
    echo "$t, average of the last $average step checkpoints, beam $beam:"
    score "$work/$t.averaged.de" "$data/$t.de"
  fi
done
if [ "$show" -gt 0 ]; then
  "$heed" show --model "$work/model" "${averaged[@]}" --input "$data/test_2016_flickr.en" \
    --max-sentences "$show" --out "$work/show"
fi
