#!/usr/bin/env bash
# The bottleneck that attention removes, on Multi30k English->German: the Bahdanau recipe and
# the no-attention baseline of the same sizes (examples/multi30k/run.sh with model.kind set),
# then BLEU on test_2016_flickr by source length (words, bootstrap 95% intervals) for both,
# drawn in one SVG.
#   examples/multi30k/bottleneck.sh DATA_DIR [WORKDIR] [--set KEY=VALUE ...]
# WORKDIR (default runs/multi30k-bottleneck) receives one run.sh work directory per kind
# (WORKDIR/bahdanau, WORKDIR/noattn), <kind>.json (BLEU by length) and bottleneck.svg. A kind
# whose work directory already holds its test translations is not trained again, so an
# earlier run.sh directory can stand in for one (e.g. a link WORKDIR/bahdanau -> runs/multi30k).
# Extra arguments go to both trainings (e.g. --set training.max_seconds=2700).
# Buckets: HEED_MT_BUCKETS (default 8,10,12,14,16: six buckets of 100-240 sentences each).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
heed=${HEED:-$repo/build/heed}
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 DATA_DIR [WORKDIR] [--set KEY=VALUE ...]" >&2
  exit 2
fi
data=$1; shift
work=runs/multi30k-bottleneck
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then work=$1; shift; fi
kinds=${HEED_KINDS:-bahdanau noattn}
buckets=${HEED_MT_BUCKETS:-8,10,12,14,16}
test=test_2016_flickr

mkdir -p "$work"
plots=()
for kind in $kinds; do
  if [ ! -f "$work/$kind/$test.best.de" ]; then
    "$repo/examples/multi30k/run.sh" "$data" "$work/$kind" --set "model.kind=$kind" "$@"
  fi
  for lc in "" --lowercase; do
    echo "$kind, $test, best checkpoint${lc:+, lowercased}:"
    "$heed" score --metric bleu $lc --ref "$data/$test.de" --hyp "$work/$kind/$test.best.de" \
      --by-length "$data/$test.en" --buckets "$buckets"
  done
  "$heed" score --metric bleu --lowercase --ref "$data/$test.de" \
    --hyp "$work/$kind/$test.best.de" --by-length "$data/$test.en" --buckets "$buckets" \
    --label "$kind" --json "$work/$kind.json"
  plots+=(--by-length "$work/$kind.json")
done
"$heed" plot "${plots[@]}" --out "$work/bottleneck.svg" --y-title "BLEU (lowercased)" \
  --title "Multi30k En-De $test: BLEU by source length (beam 5, 95% bootstrap intervals)"
echo "wrote $work/bottleneck.svg"
