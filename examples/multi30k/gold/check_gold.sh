#!/usr/bin/env bash
# Checks the hand-made gold alignment of the first 50 pairs of Multi30k test_2016_flickr.
#   examples/multi30k/gold/check_gold.sh DATA_DIR
# DATA_DIR holds the Multi30k task-1 files as distributed (test_2016_flickr.en and .de are
# read in place, never copied). Checks: 50 lines; every link is `i-j` (sure) or `i?j`
# (possible) with 0-based word positions (words = whitespace-separated tokens of the raw
# line) inside its sentence pair; no link given twice or both sure and possible; and
# `heed score --metric aer` reads the file and scores its sure links against it as AER 0.
# The binary is $HEED, else build/heed of this repository. Exit 0 when all checks pass.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
heed=${HEED:-$repo/build/heed}
gold=$here/test_2016_flickr.first50.align
pairs=50

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 DATA_DIR" >&2
  echo "DATA_DIR: the folder with the Multi30k files test_2016_flickr.en and test_2016_flickr.de" >&2
  exit 2
fi
data=$1
for l in en de; do
  [ -f "$data/test_2016_flickr.$l" ] || { echo "$0: missing $data/test_2016_flickr.$l" >&2; exit 2; }
done
[ -f "$gold" ] || { echo "$0: missing $gold" >&2; exit 2; }
[ -x "$heed" ] || { echo "$0: no heed binary at $heed (build it, or set HEED)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

lines=$(wc -l < "$gold")
if [ "$lines" -ne "$pairs" ]; then
  echo "FAIL: $gold has $lines lines, expected $pairs" >&2
  exit 1
fi

# Word counts of the first 50 lines of each side, then every link against them.
head -n "$pairs" "$data/test_2016_flickr.en" | awk '{print NF}' > "$tmp/en.len"
head -n "$pairs" "$data/test_2016_flickr.de" | awk '{print NF}' > "$tmp/de.len"
paste -d' ' "$tmp/en.len" "$tmp/de.len" > "$tmp/len"
if ! paste -d' ' "$tmp/len" "$gold" | awk '
  {
    ne = $1; nd = $2; delete kind
    for (k = 3; k <= NF; k++) {
      t = $k
      if (t !~ /^[0-9]+[-?][0-9]+$/) { printf "line %d: malformed link %s\n", NR, t; bad++; continue }
      sep = (index(t, "?") > 0) ? "?" : "-"
      split(t, p, /[-?]/); i = p[1] + 0; j = p[2] + 0
      if (i >= ne) { printf "line %d: %s: English position %d, the line has %d words\n", NR, t, i, ne; bad++ }
      if (j >= nd) { printf "line %d: %s: German position %d, the line has %d words\n", NR, t, j, nd; bad++ }
      key = i "," j
      if (key in kind) {
        if (kind[key] != sep) printf "line %d: %d-%d is both sure and possible\n", NR, i, j
        else printf "line %d: %s given twice\n", NR, t
        bad++
      }
      kind[key] = sep
      if (sep == "-") sure++; else possible++
      if (sep == "-") hasS[NR] = 1
    }
  }
  END {
    for (n = 1; n <= NR; n++) if (!(n in hasS)) { printf "line %d: no sure link\n", n; bad++ }
    printf "%d pairs, %d sure links, %d possible links\n", NR, sure, possible
    exit bad > 0
  }'; then
  echo "FAIL: $gold has the errors above" >&2
  exit 1
fi
echo "words: $(awk '{s+=$1} END {print s}' "$tmp/en.len") English, $(awk '{s+=$1} END {print s}' "$tmp/de.len") German"

# heed must read it: the sure links alone, scored against the gold set, give AER 0.
sed -E 's/(^| )[0-9]+\?[0-9]+//g; s/^ +//' "$gold" > "$tmp/sure.align"
aer=$("$heed" score --metric aer --ref "$gold" --hyp "$tmp/sure.align")
echo "heed score, sure links against the gold set: $aer"
case $aer in
  "AER = 0.00 precision = 100.00 recall = 100.00"*) ;;
  *) echo "FAIL: expected AER 0, precision and recall 100" >&2; exit 1 ;;
esac
echo "OK"
