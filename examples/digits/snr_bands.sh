#!/bin/sh
# The errors of a `heed eval --speech ... --output FILE.jsonl` run on a `heed data digits` split,
# by the noise each utterance was mixed with (the split's NAME.noise.tsv: its noise kind, its
# SNR in dB, drawn uniformly from 10 to 30, and its quietest digit's SNR): string and digit
# error per 5 dB band of the SNR and per noise kind, as Aurora-2 reports digits by SNR, then per
# 5 dB band of the quietest digit's SNR (noise files of an older heed data digits lack that
# column: the second table is left out). The JSONL's lines are the manifest's, in order.
# docs/RESULTS.md#listen-attend-and-spell-on-spoken-digits.
# Usage: sh examples/digits/snr_bands.sh DATA/test.noise.tsv EVAL.jsonl
set -eu
noise=${1:?usage: snr_bands.sh DATA/SPLIT.noise.tsv EVAL.jsonl}
eval_jsonl=${2:?usage: snr_bands.sh DATA/SPLIT.noise.tsv EVAL.jsonl}
[ -f "$noise" ] || { echo "snr_bands.sh: $noise: no such file (heed data digits writes it)" >&2; exit 1; }
[ -f "$eval_jsonl" ] || { echo "snr_bands.sh: $eval_jsonl: no such file (heed eval --output)" >&2; exit 1; }
awk -F'\t' '
  # Word edit distance of two space-separated strings.
  function edits(a, b,   x, y, n, m, i, j, d, c, best) {
    n = split(a, x, " "); m = split(b, y, " ")
    for (j = 0; j <= m; ++j) d[0, j] = j
    for (i = 1; i <= n; ++i) {
      d[i, 0] = i
      for (j = 1; j <= m; ++j) {
        c = d[i - 1, j - 1] + (x[i] != y[j]); best = c
        if (d[i - 1, j] + 1 < best) best = d[i - 1, j] + 1
        if (d[i, j - 1] + 1 < best) best = d[i, j - 1] + 1
        d[i, j] = best
      }
    }
    return d[n, m]
  }
  function field(line, name,   at, rest) {  # a string field of a JSON line
    at = index(line, "\"" name "\":\""); if (!at) return ""
    rest = substr(line, at + length(name) + 4)
    return substr(rest, 1, index(rest, "\"") - 1)
  }
  function add(key, wrong, e, words) {
    n[key]++; bad[key] += wrong; ed[key] += e; w[key] += words
  }
  function band(db, prefix,   lo) {  # the 5 dB band holding db, rounded down
    lo = int(db / 5) * 5; if (lo > db) lo -= 5
    return sprintf("%s%3d to %3d dB", prefix, lo, lo + 5)
  }
  FNR == NR { kind[FNR] = $2; snr[FNR] = $3; quiet[FNR] = $4; lines = FNR; next }
  {
    if (FNR > lines) { print "snr_bands.sh: " FILENAME " has more lines than the noise file" > "/dev/stderr"; exit 1 }
    ref = field($0, "reference"); out = field($0, "output")
    e = edits(ref, out); words = split(ref, tmp, " ")
    add(band(snr[FNR], ""), ref != out, e, words); add(kind[FNR], ref != out, e, words)
    add("all", ref != out, e, words)
    if (quiet[FNR] != "") { add(band(quiet[FNR], "q"), ref != out, e, words); quiets++ }
  }
  END {
    printf "%-14s %11s %15s %14s\n", "noise", "utterances", "string error %", "digit error %"
    for (lo = -100; lo < 200; lo += 5) row(band(lo, ""), band(lo, ""))
    row("white", "white"); row("pink", "pink"); row("all", "all")
    if (!quiets) exit
    printf "\n%-14s %11s %15s %14s\n", "quietest digit", "utterances", "string error %", "digit error %"
    for (lo = -100; lo < 200; lo += 5) row(band(lo, "q"), band(lo, ""))
  }
  function row(k, label) {
    if (!n[k]) return
    printf "%-14s %11d %15.2f %14.2f\n", label, n[k], 100 * bad[k] / n[k], 100 * ed[k] / w[k]
  }
' "$noise" "$eval_jsonl"
