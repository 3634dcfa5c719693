#!/usr/bin/env bash
# Memory networks on bAbI's 10k set, one model per task (the paper's single-task protocol):
# examples/babi/config.yaml with the paper's d = 50 and 3 hops, trained on each task's 9,000
# training questions alone (the other 1,000 of its file are its dev set) with the paper's
# single-task schedule: SGD at 0.01 on the summed loss (0.32 on heed's mean over 32
# questions; the joint recipe's 0.16 is the code's joint rate), 20 epochs of linear start,
# then 80 with the softmax from the same rate, halved every 25 epochs (281 updates of 32 an
# epoch, about 15 s of one core a task). Each model is scored on its task's test questions;
# the per-task table, every seed's mean, their spread, the seed chosen by its mean dev error
# and each task's seed chosen by its own dev error go to WORKDIR/results.md.
#   examples/babi/per_task.sh BABI_DIR [WORKDIR] [--seeds "1 2 3"] [--set KEY=VALUE ...]
# BABI_DIR holds bAbI v1.2's en-10k/ (19 tasks: task 3's training file is missing in heed's
# copy). WORKDIR defaults to runs/babi10k-per-task. Extra --set arguments go to heed train.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
heed=${HEED:-$repo/build/heed}
[ $# -ge 1 ] || { sed -n 2,11p "$0" >&2; exit 2; }
babi=$1; shift
work=runs/babi10k-per-task
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then work=$1; shift; fi
seeds="1 2 3"
tasks="1 2 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    *) echo "per_task.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
data="$babi/en-10k"
[ -d "$data" ] || { echo "per_task.sh: $data is not a directory (bAbI v1.2's en-10k/)" >&2; exit 1; }
mkdir -p "$work"

for seed in $seeds; do
  mkdir -p "$work/seed$seed"
  for t in $tasks; do
    model="$work/seed$seed/task$t"
    if [ ! -f "$model/best.safetensors" ]; then
      "$heed" train "$repo/examples/babi/config.yaml" \
        --set "data.babi.dir=$data" --set "data.babi.tasks=$t" --set "training.seed=$seed" \
        --set model.emb_dim=50 --set model.hops=3 \
        --set training.validate_every=281 --set training.lr=0.32 \
        --set training.linear_start_lr=0.32 --set training.linear_start_epochs=20 \
        --set training.max_epochs=100 --set training.decay_steps=7025 \
        --set "output=$model" "${extra[@]}" > "$model.log" 2>&1 ||
        { tail -3 "$model.log" >&2; exit 1; }
    fi
    "$heed" eval --model "$model" --split dev --json "$model/dev.json" > /dev/null
    "$heed" eval --model "$model" --split test --json "$model/test.json" > /dev/null
  done
  echo "== seed $seed: trained and scored $(echo $tasks | wc -w) tasks"
done

python3 - "$work" $seeds <<'PY'
import json, statistics, sys
work, seeds = sys.argv[1], sys.argv[2:]
tasks = [1, 2] + list(range(4, 21))
def err(seed, t, split):
    return json.load(open(f"{work}/seed{seed}/task{t}/{split}.json"))["mean_error"]
test = {s: [err(s, t, "test") for t in tasks] for s in seeds}
dev = {s: [err(s, t, "dev") for t in tasks] for s in seeds}
mean = {s: statistics.mean(v) for s, v in test.items()}
dev_mean = {s: statistics.mean(v) for s, v in dev.items()}
best = min(seeds, key=lambda s: dev_mean[s])
lines = [f"# Memory network on bAbI en-10k, one model per task, seeds {', '.join(seeds)}", "",
         "Test error (%) per task; the seed chosen by its mean dev error: " + best, "",
         "| task | " + " | ".join(f"seed {s}" for s in seeds) + " |", "|---|" + "---|" * len(seeds)]
for i, t in enumerate(tasks):
    lines.append(f"| {t} | " + " | ".join(f"{test[s][i]:.1f}" for s in seeds) + " |")
lines.append("| **mean** | " + " | ".join(f"**{mean[s]:.2f}**" for s in seeds) + " |")
lines.append("| failed (> 5%) | " + " | ".join(str(sum(e > 5 for e in test[s])) for s in seeds) + " |")
lines.append("| dev mean | " + " | ".join(f"{dev_mean[s]:.2f}" for s in seeds) + " |")
m = list(mean.values())
spread = f"{statistics.mean(m):.2f} ± {statistics.stdev(m):.2f}" if len(m) > 1 else f"{m[0]:.2f}"
lines += ["", f"Mean test error over the seeds: {spread} (min {min(m):.2f}, max {max(m):.2f}); "
          f"the seed chosen on validation (seed {best}): {mean[best]:.2f}."]
# Each task's own seed chosen by that task's dev error (ties: the lower seed): still
# validation only, one model per task as the protocol has.
pick = [min(seeds, key=lambda s: (dev[s][i], int(s))) for i in range(len(tasks))]
per_task = statistics.mean(test[pick[i]][i] for i in range(len(tasks)))
lines.append(f"Each task's seed chosen by its own dev error: {per_task:.2f} "
             f"(seeds {' '.join(pick)} for tasks {' '.join(map(str, tasks))}).")
open(f"{work}/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
