#!/usr/bin/env bash
# Email subject lines (AESLC): attention, attention + copy, attention + copy + coverage, each
# trained for the same time, then scored against the three human subjects of every test email.
#   examples/aeslc/run.sh AESLC [WORKDIR] [--parallel] [--minutes M] [--set KEY=VALUE ...]
# AESLC: the corpus as distributed (aeslc.tar.gz, unpacked into WORKDIR/corpus) or a folder
# holding the unpacked enron_subject_line/. It is CC BY-NC-SA 4.0: research use only; nothing
# derived from it leaves WORKDIR. WORKDIR (default runs/aeslc) receives data/ (bodies cut to
# their first 100 words), one model per variant, the test outputs, show-<variant>/ (the first
# test emails drawn: attention, p_gen, coverage) and results.md (ROUGE-1/2/L F1 against the
# three references at once, with 95% bootstrap intervals; the mean of the three single-reference
# scores; stemmed; and the share of repeated words).
# --minutes: each variant's training time (default 50). Without --parallel the variants train
# one after the other on 2 threads each; with it, all three at once on 1 thread each (for a
# machine with 3 or more cores; on fewer they share them, equally). --set goes to heed train.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
heed=${HEED:-$repo/build/heed}
[ $# -ge 1 ] || { sed -n 2,13p "$0" >&2; exit 2; }
corpus=$1; shift
work=runs/aeslc
if [ $# -gt 0 ] && [[ $1 != --* ]]; then work=$1; shift; fi
parallel=0; minutes=50; extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --parallel) parallel=1; shift ;;
    --minutes) minutes=$2; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"

# 1. The data: bodies cut to their first 100 words, the annotators' subjects as references.
if [ ! -f "$work/data/test.ref3" ]; then
  if [ -f "$corpus" ]; then
    mkdir -p "$work/corpus"
    tar -xzf "$corpus" -C "$work/corpus"
    corpus=$work/corpus
  fi
  "$heed" data aeslc --aeslc "$corpus" --out "$work/data" --max-body-words 100
fi

# 2. Three variants, the same config and time budget.
declare -A variant_sets=(
  [attention]=""
  [copy]="--set model.copy=true"
  [copy-coverage]="--set model.copy=true --set model.coverage=true --set training.coverage_loss=1"
)
variants=(attention copy copy-coverage)
threads=2; [ $parallel = 1 ] && threads=1
train() {  # train VARIANT
  local v=$1
  [ -f "$work/$v/best.safetensors" ] && return 0
  # shellcheck disable=SC2086
  "$heed" train "$repo/examples/aeslc/config.yaml" \
    --set "data.train_source=$work/data/train.src" --set "data.train_target=$work/data/train.tgt" \
    --set "data.dev_source=$work/data/dev.src" --set "data.dev_target=$work/data/dev.tgt" \
    --set "training.max_seconds=$((minutes * 60))" --set "training.threads=$threads" \
    --set "output=$work/$v" ${variant_sets[$v]} "${extra[@]}" >"$work/$v.train.log" 2>&1
  echo "trained $v ($work/$v.train.log)"
}
if [ $parallel = 1 ]; then
  pids=()
  for v in "${variants[@]}"; do train "$v" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
else
  for v in "${variants[@]}"; do train "$v"; done
fi

# 3. Test subjects (beam 4), ROUGE against the three references, repeated words, pictures.
refs=(-r "$work/data/test.ref1" -r "$work/data/test.ref2" -r "$work/data/test.ref3")
# The share of output words that repeat an earlier word of the same subject (lowercased
# words of letters and digits, as ROUGE tokenises), and of subjects holding a repeat.
repeats() {
  awk '{ $0 = tolower($0); gsub(/[^a-z0-9]+/, " "); delete seen; rep = 0
         for (i = 1; i <= NF; i++) { if ($i in seen) rep++; seen[$i] = 1 }
         words += NF; repeated += rep; if (rep) lines++ }
       END { printf "%.2f%% of words, %.2f%% of subjects", 100 * repeated / (words ? words : 1),
             100 * lines / NR }' "$1"
}
head -n 4 "$work/data/test.src" >"$work/show.src"
{
  echo "# AESLC test (1,906 emails): ROUGE F1 against the three annotators' subjects"
  echo
  echo "Each variant trained $minutes minutes ($([ $parallel = 1 ] && echo 'all three at once, 1 thread each' || echo 'one after the other, 2 threads each')); beam 4; the best checkpoint by dev loss."
  echo
  echo "Three references at once: each email scored against its closest reference (heed score,"
  echo "as rouge-score's multi-reference scoring). Single-reference mean: the mean of the scores"
  echo "against @ann0, @ann1 and @ann2 taken one at a time."
  echo
  echo "| variant | ROUGE-1 | ROUGE-2 | ROUGE-L | single-reference mean R-1 / R-2 / R-L | stemmed R-1 / R-2 / R-L | repeated words | steps |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$work/results.md"
for v in "${variants[@]}"; do
  out=$work/$v.test.txt
  [ -f "$out" ] || "$heed" translate --model "$work/$v" --beam 4 --input "$work/data/test.src" --output "$out"
  plain=$("$heed" score -m rouge "${refs[@]}" --hyp "$out" --bootstrap 1000)
  stem=$("$heed" score -m rouge --stem -b "${refs[@]}" --hyp "$out")
  single=$(for r in 1 2 3; do "$heed" score -m rouge -b -r "$work/data/test.ref$r" --hyp "$out"; done |
           awk '{ a += $1; b += $2; c += $3 } END { printf "%.2f %.2f %.2f", a / 3, b / 3, c / 3 }')
  echo "$v: $plain"
  steps=$(sed -n 's/^stopped at step \([0-9]*\).*/\1/p' "$work/$v/train.log" | tail -n 1)
  python3 - "$v" "$plain" "$single" "$stem" "$(repeats "$out")" "$steps" >>"$work/results.md" <<'EOF'
import re, sys
v, plain, single, stem, rep, steps = sys.argv[1:]
f1 = re.findall(r"ROUGE-[12L] = ([0-9.]+)", plain)
ci = re.findall(r"\[([0-9.]+), ([0-9.]+)\]", plain)
cell = [f"{f} [{a}, {b}]" for f, (a, b) in zip(f1, ci)] if len(ci) >= 3 else f1
print(f"| {v} | {' | '.join(cell)} | {' / '.join(single.split())} | {' / '.join(stem.split())} | {rep} | {steps} |")
EOF
  "$heed" show --model "$work/$v" --input "$work/show.src" --out "$work/show-$v" --beam 4 >/dev/null
done
orig=$("$heed" score -m rouge -b "${refs[@]}" --hyp "$work/data/test.tgt")
orig_single=$(for r in 1 2 3; do "$heed" score -m rouge -b -r "$work/data/test.ref$r" --hyp "$work/data/test.tgt"; done |
              awk '{ a += $1; b += $2; c += $3 } END { printf "%.2f / %.2f / %.2f", a / 3, b / 3, c / 3 }')
echo "| the emails' own subject lines | $(echo "$orig" | sed 's/ / | /g') | $orig_single | | $(repeats "$work/data/test.tgt") | |" >>"$work/results.md"
echo "| Zhang & Tetreault 2019, best model (published) | 23.67 | 10.29 | 23.44 | | | | |" >>"$work/results.md"
cat "$work/results.md"
