#!/usr/bin/env bash
# Alignment error rate of a Multi30k English->German model against the hand-made gold set
# (examples/multi30k/gold/: the first 50 pairs of test_2016_flickr, word positions, sure and
# possible links), beside a diagonal baseline.
#   examples/multi30k/aer.sh DATA_DIR MODEL_DIR [OUT_DIR] [HEED_ALIGN_OPTION ...]
#   examples/multi30k/aer.sh DATA_DIR --diagonal-only [OUT_DIR]
# DATA_DIR holds the Multi30k task-1 files as distributed (test_2016_flickr.en and .de are
# read in place). MODEL_DIR is a model written by `heed train` (examples/multi30k/run.sh
# writes runs/multi30k/model). OUT_DIR (default: a temporary folder, removed at the end)
# receives the 50 English and German lines, the alignments (attention.align,
# saliency.align, diagonal.align) and the table (aer.txt). Options after OUT_DIR go to
# `heed align`, e.g. --checkpoint last or --weights runs/multi30k/averaged.safetensors.
# The binary is $HEED, else build/heed of this repository.
#
# Rows: attention = `heed align --alignment hard --alignment-words` (each German word linked
# to the English word its pieces attend to most); saliency = the same read from the
# saliency map (`--from saliency`); diagonal = German word j linked to English word
# round(j * (n_en - 1) / max(1, n_de - 1)) (halves rounded up), one link per German word. Scores:
# `heed score --metric aer` (0-based positions; docs/METRICS.md#aer-aerh), with the 95%
# bootstrap interval of the AER over the 50 pairs (1000 resamples, seed 12345).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
heed=${HEED:-$repo/build/heed}
gold=$here/gold/test_2016_flickr.first50.align
pairs=50

usage() {
  echo "usage: $0 DATA_DIR MODEL_DIR [OUT_DIR] [HEED_ALIGN_OPTION ...]" >&2
  echo "       $0 DATA_DIR --diagonal-only [OUT_DIR]" >&2
  echo "DATA_DIR: the folder with the Multi30k files test_2016_flickr.en and test_2016_flickr.de" >&2
  echo "MODEL_DIR: a model directory written by heed train (e.g. runs/multi30k/model)" >&2
  echo "OUT_DIR: where the 50 pairs, the alignments and the table go (default: a temporary folder)" >&2
  exit 2
}
[ $# -ge 2 ] || usage
case $1 in -h|--help) usage ;; esac
data=$1; shift
[ -d "$data" ] || { echo "$0: DATA_DIR $data is not a folder" >&2; usage; }
for l in en de; do
  [ -f "$data/test_2016_flickr.$l" ] || { echo "$0: missing $data/test_2016_flickr.$l" >&2; exit 2; }
done
model=
if [ "$1" = "--diagonal-only" ]; then
  shift
else
  model=$1; shift
  [ -d "$model" ] || { echo "$0: MODEL_DIR $model is not a folder (use --diagonal-only for the baseline alone)" >&2; usage; }
  [ -f "$model/config.yaml" ] || { echo "$0: $model has no config.yaml: not a model written by heed train" >&2; exit 2; }
fi
out=
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then out=$1; shift; fi
align_options=("$@")
if [ -z "$model" ] && [ ${#align_options[@]} -gt 0 ]; then
  echo "$0: heed align options (${align_options[*]}) need a MODEL_DIR" >&2
  usage
fi
[ -f "$gold" ] || { echo "$0: missing the gold set $gold" >&2; exit 2; }
[ -x "$heed" ] || { echo "$0: no heed binary at $heed (build it, or set HEED)" >&2; exit 2; }

if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
else
  mkdir -p "$out"
fi

# The 50 pairs the gold set aligns, and a check that they are the raw distributed text
# (the gold set counts whitespace-separated words of the raw lines: a tokenised copy of
# Multi30k has other word counts).
head -n "$pairs" "$data/test_2016_flickr.en" > "$out/test.en"
head -n "$pairs" "$data/test_2016_flickr.de" > "$out/test.de"
for l in en de; do
  n=$(wc -l < "$out/test.$l")
  [ "$n" -eq "$pairs" ] || { echo "$0: $data/test_2016_flickr.$l has $n lines, expected at least $pairs" >&2; exit 1; }
done
words_en=$(wc -w < "$out/test.en")
words_de=$(wc -w < "$out/test.de")
if [ "$words_en" -ne 592 ] || [ "$words_de" -ne 567 ]; then
  echo "$0: the first $pairs lines of $data/test_2016_flickr.* have $words_en English and" \
       "$words_de German words, the gold set 592 and 567: not the raw Multi30k files as distributed" >&2
  exit 1
fi

# Diagonal baseline: one link per German word.
paste -d '\t' "$out/test.en" "$out/test.de" | awk -F '\t' '{
  ne = split($1, e, " "); nd = split($2, d, " ")  # " ": runs of blanks, as awk splits words
  line = ""
  if (ne > 0 && nd > 0) {
    den = (nd > 1) ? nd - 1 : 1
    for (j = 0; j < nd; j++) {
      i = int(j * (ne - 1) / den + 0.5)
      line = line (j ? " " : "") i "-" j
    }
  }
  print line
}' > "$out/diagonal.align"

systems=()
if [ -n "$model" ]; then
  echo "aligning the $pairs pairs with $model: attention" >&2
  "$heed" align --model "$model" ${align_options[@]+"${align_options[@]}"} \
    --source "$out/test.en" --target "$out/test.de" \
    --alignment hard --alignment-words --output "$out/attention.align"
  echo "aligning the $pairs pairs with $model: saliency (a backward pass per target piece)" >&2
  "$heed" align --model "$model" ${align_options[@]+"${align_options[@]}"} \
    --source "$out/test.en" --target "$out/test.de" \
    --alignment hard --alignment-words --from saliency --output "$out/saliency.align"
  systems+=(attention saliency)
fi
systems+=(diagonal)

{
  printf '%-10s %6s %10s %7s %7s  %s\n' system links precision recall AER "AER 95% CI"
  for s in "${systems[@]}"; do
    n=$(wc -l < "$out/$s.align")
    [ "$n" -eq "$pairs" ] || { echo "$0: $out/$s.align has $n lines, expected $pairs" >&2; exit 1; }
    # AER = 33.33 precision = 66.67 recall = 66.67 (links = 6 sure = 3 linked sure = 2 linked possible = 4)
    # 95% CI: [30.10, 36.21] (bootstrap, 1000 resamples, seed 12345)
    "$heed" score --metric aer --ref "$gold" --hyp "$out/$s.align" --bootstrap 1000 |
      awk -v s="$s" '
        NR == 1 { for (k = 1; k < NF; k++) {
                    if ($k == "AER" && $(k+1) == "=") aer = $(k+2)
                    if ($k == "precision") p = $(k+2)
                    if ($k == "recall") r = $(k+2)
                    if ($k == "(links") l = $(k+2) } }
        NR == 2 && $1 == "95%" { ci = $3 " " $4 }
        END { if (aer == "" || p == "" || r == "" || ci == "") {
                print "cannot read the output of heed score" > "/dev/stderr"; exit 1 }
              printf "%-10s %6s %10s %7s %7s  %s\n", s, l, p, r, aer, ci }'
  done
} > "$out/aer.txt"
sure=$(grep -oE '[0-9]+-[0-9]+' "$gold" | wc -l)
possible=$(grep -oE '[0-9]+\?[0-9]+' "$gold" | wc -l)
echo "AER on the hand-made gold set ($pairs pairs of test_2016_flickr, $sure sure and $possible possible links), in percent:"
cat "$out/aer.txt"
