#!/usr/bin/env bash
# The README's main command: install what is missing, build, and run the main job:
# train a grapheme-to-phoneme model on the CMU Pronouncing Dictionary for about three
# minutes, pronounce a few words (made-up ones among them) and draw what the model
# attended to as SVG heat maps.
#   tools/quickstart.sh           the full job (a few minutes)
#   tools/quickstart.sh --quick   seconds of training (CI runs this so it cannot rot)
# Everything it writes goes under out/quickstart/.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: tools/quickstart.sh [--quick]" >&2; exit 2 ;;
esac

bash tools/setup.sh
cmake -S . -B build -G Ninja >/dev/null
ninja -C build
heed=build/heed
out=out/quickstart
mkdir -p "$out"

echo "== data: CMUdict split by word (letters only, stress stripped)"
"$heed" data g2p --cmudict --letters-only --stress strip --out "$out/data"

seconds=180
dev=2000
if ((quick)); then seconds=5; dev=100; fi
echo "== training a Bahdanau G2P model for ${seconds} s"
rm -rf "$out/model"
"$heed" train examples/g2p-cmudict/config.yaml \
  --set "data.train_source=$out/data/train.src" --set "data.train_target=$out/data/train.tgt" \
  --set "data.dev_source=$out/data/dev.src" --set "data.dev_target=$out/data/dev.tgt" \
  --set "data.max_dev_sentences=$dev" --set "training.max_seconds=$seconds" \
  --set "training.validate_every=500" --set "output=$out/model"

echo "== pronouncing a few words (the last four are made up)"
words="attention
pronunciation
quixotic
heed
zyxquor
blorptastic
qajaqvik
mxyzptlk"
printf '%s\n' "$words" > "$out/words.txt"
"$heed" translate --model "$out/model" --beam 5 \
  --input "$out/words.txt" --attention "$out/attention.jsonl" > "$out/pronunciations.txt"
paste "$out/words.txt" "$out/pronunciations.txt" | awk -F'\t' '{printf "  %-14s %s\n", $1, $2}'

echo "== attention heat maps"
"$heed" plot --attention "$out/attention.jsonl" --out "$out/attention"

echo
echo "Model:        $out/model   (heed info --model $out/model)"
echo "Heat maps:    $out/attention/attention_<n>.svg, all on $out/attention/index.html"
echo "Next:         examples/g2p-cmudict/run.sh trains the full model and scores it (docs/RESULTS.md)"
