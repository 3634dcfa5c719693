#!/usr/bin/env bash
# The bad-input catalogue's runner (tests/bad_inputs/README.md).
#   run.sh HEED FIXTURES setup      trains the tiny models every case may use, into FIXTURES
#   run.sh HEED FIXTURES NAME       runs case NAME of cases.sh in a fresh scratch directory:
#                                   exit 0 when heed's exit code and message are as listed
#   run.sh HEED FIXTURES --list     prints the case names (CMake registers one test each)
#   run.sh HEED FIXTURES --all      runs every case, prints failures (for working on it)
set -uo pipefail
H=$1 F=$2 what=$3
here=$(cd "$(dirname "$0")" && pwd)

setup() {
  rm -rf "$F" && mkdir -p "$F" && cd "$F" || exit 1
  # 300 pairs: a word of 3 to 8 letters a..h and its reverse.
  awk 'BEGIN{srand(7); for(i=0;i<300;i++){n=3+int(rand()*6); s=""; for(k=0;k<n;k++) s=s sprintf("%c",97+int(rand()*8)); r=""; for(k=n;k>0;k--) r=r substr(s,k,1); print s > "train.src"; print r > "train.tgt"}}'
  printf 'abc\nhgfe\n\nbad\n' > in.txt
  cat > c.yaml <<YAML
data:
  train_source: $F/train.src
  train_target: $F/train.tgt
  dev_source: $F/train.src
  dev_target: $F/train.tgt
  max_dev_sentences: 50
model:
  kind: bahdanau
  emb_dim: 16
  enc_hidden: 32
  dec_hidden: 32
training:
  lr: 0.02
  max_tokens: 300
  max_steps: 10
  validate_every: 5
  threads: 1
output: $F/m
YAML
  "$H" train c.yaml > train.out 2>&1 || { cat train.out; exit 1; }
  "$H" train c.yaml --set model.emb_dim=8 --set output="$F/m2" > train2.out 2>&1 || { cat train2.out; exit 1; }
  # A memory network (model.kind memn2n) on two bAbI stories, for heed serve's POST /answer.
  mkdir -p babi
  printf '1 Mary went to the kitchen.\n2 John went to the garden.\n3 Where is Mary?\tkitchen\t1\n4 Mary moved to the office.\n5 Where is Mary?\toffice\t4\n1 Sandra went to the hallway.\n2 Where is Sandra?\thallway\t1\n' > babi/qa1_x_train.txt
  cp babi/qa1_x_train.txt babi/qa1_x_test.txt
  cat > qa.yaml <<YAML
data:
  babi: {dir: $F/babi, tasks: '1', dev_fraction: 0.4}
model: {kind: memn2n, emb_dim: 8, hops: 2, memory_size: 10}
training: {max_steps: 5, validate_every: 5, metric: error, threads: 1}
output: $F/qa
YAML
  "$H" train qa.yaml > train_qa.out 2>&1 || { cat train_qa.out; exit 1; }
}

# check NAME EXIT 'KEY;WORDS' 'COMMAND': COMMAND (bash, run in a fresh directory $T with
# $H the heed binary, $F the fixtures and $S this directory) must exit with EXIT and print every ;-separated
# key word (stdout and stderr together); a word starting with ! must not be printed.
declare -A CASE_EXIT CASE_WORDS CASE_CMD NOT_SANITIZED
CASES=()
# not_under_sanitizers NAME: the case limits virtual memory (ulimit -v), which AddressSanitizer's
# shadow memory cannot live with; with HEED_SANITIZED=1 in the environment it is skipped
# (exit 77, ctest's SKIP_RETURN_CODE).
not_under_sanitizers() { NOT_SANITIZED[$1]=1; }
check() {
  CASES+=("$1")
  CASE_EXIT[$1]=$2 CASE_WORDS[$1]=$3 CASE_CMD[$1]=$4
}
source "$here/cases.sh"

run_case() {
  local name=$1
  [[ -n ${CASE_CMD[$name]+x} ]] || { echo "no case $name"; return 1; }
  if [[ ${HEED_SANITIZED:-0} == 1 && -n ${NOT_SANITIZED[$name]+x} ]]; then
    echo "$name: skipped under sanitizers"
    return 77
  fi
  local T
  T=$(mktemp -d "${TMPDIR:-/tmp}/heed_bad_${name}_XXXX")
  local out rc
  out=$(cd "$T" && H=$H F=$F T=$T S=$here bash -c "${CASE_CMD[$name]}" 2>&1 < /dev/null)
  rc=$?
  rm -rf "$T"
  local ok=1 word
  [[ $rc == "${CASE_EXIT[$name]}" ]] || { echo "$name: exit $rc, expected ${CASE_EXIT[$name]}"; ok=0; }
  IFS=';' read -ra words <<< "${CASE_WORDS[$name]}"
  for word in "${words[@]}"; do
    if [[ $word == !* ]]; then
      [[ $out != *"${word:1}"* ]] || { echo "$name: printed '${word:1}'"; ok=0; }
    else
      [[ $out == *"$word"* ]] || { echo "$name: did not print '$word'"; ok=0; }
    fi
  done
  if ((!ok)); then
    echo "--- command: ${CASE_CMD[$name]}"
    echo "--- output:"; echo "$out" | head -c 3000
    return 1
  fi
  return 0
}

case $what in
  setup) setup ;;
  --list) printf '%s\n' "${CASES[@]}" ;;
  --all)
    failed=0
    for c in "${CASES[@]}"; do
      run_case "$c"
      rc=$?
      ((rc == 0 || rc == 77)) || failed=$((failed + 1))
    done
    echo "${#CASES[@]} cases, $failed failed"
    ((failed == 0)) ;;
  *) run_case "$what" ;;
esac
