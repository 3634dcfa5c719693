#!/bin/sh
# Spoken words to phones: CMUdict words spoken by Debian's speech synthesisers (espeak-ng in
# several English accents and voice variants, flite in its voices), each WAV file's transcript
# the word's phones (the G2P task's: the first pronunciation, stress stripped). The words come
# from the G2P split (heed data g2p --letters-only --stress strip), so no dev or test word is
# heard in training; one espeak-ng accent and one flite voice are kept out of training and dev.
# Every choice (words, voices, rates, pitches) is drawn from a seeded generator, so a seed and
# the same programs give the same files. heed links neither synthesiser: they run as programs.
#
# Usage: sh examples/spoken-words/make_data.sh G2P_DIR OUT [--seed N] [--train N] [--dev N]
#                                              [--test N] [--jobs N]
#   G2P_DIR  train.src/.tgt, dev.src/.tgt, test.src/.tgt of heed data g2p
#   OUT      receives wav/SPLIT/NNNNNN.wav and SPLIT.tsv (heed's speech manifests) and
#            SPLIT.voices (the same lines with the word and how it was spoken) for the splits
#            train, dev, test-seen (test words, training voices), test-voice (test words, the
#            held-out flite voice) and test-accent (test words, the held-out espeak-ng accent)
# Defaults: seed 1, 16000 training words, 300 dev words, 1000 test words (the same 1000 in the
# three test splits), 2 synthesiser processes at a time.
set -eu
usage() { echo "usage: make_data.sh G2P_DIR OUT [--seed N] [--train N] [--dev N] [--test N] [--jobs N]" >&2; exit 2; }
[ $# -ge 2 ] || usage
g2p=$1 out=$2
shift 2
seed=1 ntrain=16000 ndev=300 ntest=1000 jobs=2
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case $1 in
    --seed) seed=$2 ;; --train) ntrain=$2 ;; --dev) ndev=$2 ;; --test) ntest=$2 ;;
    --jobs) jobs=$2 ;; *) usage ;;
  esac
  shift 2
done
for n in "$seed" "$ntrain" "$ndev" "$ntest" "$jobs"; do
  case $n in ''|*[!0-9]*) echo "make_data.sh: expected a whole number, got '$n'" >&2; exit 2 ;; esac
done
[ "$jobs" -ge 1 ] || { echo "make_data.sh: --jobs must be at least 1" >&2; exit 2; }
for f in train.src train.tgt dev.src dev.tgt test.src test.tgt; do
  [ -f "$g2p/$f" ] || { echo "make_data.sh: $g2p/$f: missing (run heed data g2p --cmudict --letters-only --stress strip --out $g2p)" >&2; exit 1; }
done
for p in espeak-ng flite; do
  command -v $p >/dev/null || { echo "make_data.sh: $p not found (apt-get install espeak-ng flite)" >&2; exit 1; }
done

# The voices. Training (and dev, and test-seen): seven espeak-ng accents and four flite voices,
# uniform over the eleven; held out: the espeak-ng accent en-gb-scotland and the flite voice slt.
train_accents="en-us en-gb en-gb-x-rp en-gb-x-gbclan en-gb-x-gbcwmd en-029 en-us-nyc"
train_flite="kal kal16 awb rms"
test_accent=en-gb-scotland
test_voice=slt
variants="m1 m2 m3 m4 m5 m6 f1 f2 f3 f4"   # espeak-ng voice variants, in every espeak-ng split

mkdir -p "$out"
tmp="$out/.plan.$$"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
# One line per word: word TAB first pronunciation (train.tgt has a line per pronunciation,
# dev/test.tgt every pronunciation of a word on its line, TAB-separated).
paste "$g2p/train.src" "$g2p/train.tgt" | awk -F'\t' '!seen[$1]++ { print $1 "\t" $2 }' > "$tmp/train.words"
paste "$g2p/dev.src" "$g2p/dev.tgt" | cut -f1,2 > "$tmp/dev.words"
paste "$g2p/test.src" "$g2p/test.tgt" | cut -f1,2 > "$tmp/test.words"

# The plan: split, index, synthesiser, voice, variant, rate, pitch, word, phones; one line per
# utterance. The generator is Park and Miller's minimal standard (exact in awk's doubles).
plan() {  # plan SPLIT WORDS COUNT STREAM MODE (MODE: train, voice or accent)
  awk -F'\t' -v part="$1" -v n="$3" -v stream="$4" -v mode="$5" -v seed="$seed" \
      -v accents="$train_accents" -v flites="$train_flite" -v variants="$variants" \
      -v taccent="$test_accent" -v tvoice="$test_voice" '
    function rnd() { state = (state * 48271) % 2147483647; return state / 2147483647 }
    function pick(k) { return 1 + int(rnd() * k) }
    { word[NR] = $1; phones[NR] = $2 }
    END {
      state = (seed * 1000 + stream) % 2147483646 + 1
      for (i = 0; i < 10; i++) rnd()
      m = NR
      for (i = m; i > 1; i--) { j = pick(i); t = word[i]; word[i] = word[j]; word[j] = t
                                t = phones[i]; phones[i] = phones[j]; phones[j] = t }
      if (n > m) n = m
      na = split(accents, A, " "); nf = split(flites, F, " "); nv = split(variants, V, " ")
      for (i = 1; i <= n; i++) {
        if (mode == "voice") v = na + 1
        else if (mode == "accent") v = 0
        else v = pick(na + nf)
        variant = V[pick(nv)]; rate = 140 + 10 * (pick(7) - 1); pitch = 30 + 5 * (pick(9) - 1)
        stretch = 0.8 + 0.05 * (pick(9) - 1)
        if (v == 0) printf "%s\t%06d\tespeak-ng\t%s\t%s\t%d\t%d\t%s\t%s\n", part, i - 1, taccent, variant, rate, pitch, word[i], phones[i]
        else if (v <= na) printf "%s\t%06d\tespeak-ng\t%s\t%s\t%d\t%d\t%s\t%s\n", part, i - 1, A[v], variant, rate, pitch, word[i], phones[i]
        else printf "%s\t%06d\tflite\t%s\t-\t%.2f\t-\t%s\t%s\n", part, i - 1, (mode == "voice" ? tvoice : F[v - na]), stretch, word[i], phones[i]
      }
    }' "$2"
}
plan train "$tmp/train.words" "$ntrain" 1 train > "$tmp/plan"
plan dev "$tmp/dev.words" "$ndev" 2 train >> "$tmp/plan"
plan test-seen "$tmp/test.words" "$ntest" 3 train >> "$tmp/plan"
plan test-voice "$tmp/test.words" "$ntest" 3 voice >> "$tmp/plan"
plan test-accent "$tmp/test.words" "$ntest" 3 accent >> "$tmp/plan"
# (the three test splits use stream 3: the same words in the same order)

for s in train dev test-seen test-voice test-accent; do mkdir -p "$out/wav/$s"; done
speak() {  # reads plan lines, writes their WAV files
  while IFS="$(printf '\t')" read -r split idx synth voice variant rate pitch word phones; do
    wav="$out/wav/$split/$idx.wav"
    if [ "$synth" = espeak-ng ]; then
      espeak-ng -v "$voice+$variant" -s "$rate" -p "$pitch" -w "$wav" "$word"
    else
      flite -voice "$voice" --setf duration_stretch="$rate" -t "$word" -o "$wav"
    fi
  done
}
j=0 pids=
while [ "$j" -lt "$jobs" ]; do
  awk -v j="$j" -v k="$jobs" '(NR - 1) % k == j' "$tmp/plan" | speak &
  pids="$pids $!"
  j=$((j + 1))
done
fail=0
for p in $pids; do wait "$p" || fail=1; done
[ "$fail" = 0 ] || { echo "make_data.sh: a synthesiser failed" >&2; exit 1; }

# The manifests last, each written whole and then renamed.
for s in train dev test-seen test-voice test-accent; do
  awk -F'\t' -v s="$s" '$1 == s { print "wav/" s "/" $2 ".wav\t" $9 }' "$tmp/plan" > "$tmp/$s.tsv"
  awk -F'\t' -v s="$s" 'BEGIN { print "wav\tword\tsynthesiser\tvoice\tvariant\trate\tpitch" }
    $1 == s { print "wav/" s "/" $2 ".wav\t" $8 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 }' "$tmp/plan" > "$tmp/$s.voices"
  mv "$tmp/$s.tsv" "$out/$s.tsv"
  mv "$tmp/$s.voices" "$out/$s.voices"
  echo "$s: $(wc -l < "$out/$s.tsv") utterances  $out/$s.tsv"
done
