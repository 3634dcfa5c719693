#!/bin/sh
# Listen, attend and spell on connected spoken digits, end to end, in the directory it is run
# from: the utterances of heed data digits from the Free Spoken Digit Dataset (FSDD_DIR: its
# folder, holding recordings/), a las model trained for 20 minutes (examples/digits/config.yaml),
# then the string error and the digit error on the official test split (recordings 0-4 of
# every speaker, 1000 utterances) with greedy decoding and with a beam of 8, and the greedy
# errors by the SNR of each utterance's noise (examples/digits/evaluate.sh).
# Usage: sh examples/digits/run.sh FSDD_DIR [HEED]   (HEED: the heed binary, default heed)
set -eu
fsdd=${1:?usage: run.sh FSDD_DIR [HEED]}
heed=${2:-heed}
config=$(dirname "$0")/config.yaml
# --levels recorded: the data of the published numbers (docs/DATA.md#spoken-digits, "Levels").
[ -f digits/test.tsv ] || "$heed" data digits --fsdd "$fsdd" --out digits --levels recorded
[ -f digits-las/best.safetensors ] || "$heed" train "$config"
sh "$(dirname "$0")/evaluate.sh" "$heed" digits-las digits digits-test.jsonl
