#!/usr/bin/env bash
# The end-to-end memory network on bAbI, trained jointly on all tasks with three seeds:
#   examples/babi/run.sh BABI_DIR [WORKDIR] [--10k] [--seeds "1 2 3"] [--set KEY=VALUE ...]
# BABI_DIR holds bAbI v1.2's en/ and en-10k/ (the folder of the downloaded tasks). WORKDIR (default
# runs/babi) receives one model per seed, each seed's dev and test tables (JSON), the hop
# pictures of a few test stories (show/) and results.md: the test error of every task for
# every seed, their mean, spread and failed tasks (error > 5%), and the seed chosen by its
# dev error alone. --10k trains on en-10k (19 tasks: task 3's training file is missing there).
# Extra --set arguments go to heed train.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
heed=${HEED:-$repo/build/heed}
[ $# -ge 1 ] || { sed -n 2,9p "$0" >&2; exit 2; }
babi=$1; shift
work=runs/babi
if [ $# -gt 0 ] && [[ $1 != --* ]]; then work=$1; shift; fi
set_dir=en; tasks=all; seeds="1 2 3"; extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --10k)  # ten times the questions: an epoch is 5,344 steps; 10 epochs of linear start, then
            # 40 with the softmax, the rate halved every 10 of them (docs/RESULTS.md)
      set_dir=en-10k; tasks=1-2,4-20
      extra+=(--set training.validate_every=5344 --set training.decay_steps=53440
              --set training.linear_start_epochs=10 --set training.max_epochs=50)
      shift ;;
    --seeds) seeds=$2; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
data="$babi/$set_dir"
[ -d "$data" ] || { echo "run.sh: $data is not a directory (bAbI v1.2's $set_dir/)" >&2; exit 1; }
mkdir -p "$work"

for seed in $seeds; do
  model="$work/$set_dir-seed$seed"
  if [ ! -f "$model/best.safetensors" ]; then
    echo "== training seed $seed on $data (tasks $tasks)"
    /usr/bin/time -f "%e s wall" "$heed" train "$repo/examples/babi/config.yaml" \
      --set "data.babi.dir=$data" --set "data.babi.tasks=$tasks" --set "training.seed=$seed" \
      --set "output=$model" "${extra[@]}" 2>&1 | grep -E 'validation|stopped|trained|s wall' | tail -4
  fi
  "$heed" eval --model "$model" --split dev --json "$model/dev.json" > /dev/null
  "$heed" eval --model "$model" --split test --json "$model/test.json" > "$model/test.txt"
  tail -1 "$model/test.txt"
done

# The seed with the lowest mean dev error (validation only) draws the pictures.
best=$(for seed in $seeds; do
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['mean_error'], sys.argv[2])" \
    "$work/$set_dir-seed$seed/dev.json" "$seed"; done | sort -g | head -1 | cut -d' ' -f2)
echo "== seed $best has the lowest dev error; its hops on the first story of tasks 1, 2, 3, 16, 19"
stories="$work/stories.txt"
: > "$stories"
for t in 1 2 3 16 19; do
  f=$(ls "$data"/qa${t}_*_test.txt)
  awk 'NR > 1 && $1 == 1 { exit } { print }' "$f" >> "$stories"
done
"$heed" show --model "$work/$set_dir-seed$best" --input "$stories" --out "$work/show" | tail -1

python3 - "$work" "$set_dir" "$best" $seeds <<'PY'
import json, statistics, sys
work, set_dir, best, seeds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
runs = {s: {w: json.load(open(f"{work}/{set_dir}-seed{s}/{w}.json")) for w in ("dev", "test")}
        for s in seeds}
tasks = [r["task"] for r in runs[seeds[0]]["test"]["tasks"]]
lines = [f"# Memory network on bAbI {set_dir}, joint training, seeds {', '.join(seeds)}", "",
         "Test error (%) per task; the seed chosen by its mean dev error: " + best, "",
         "| task | " + " | ".join(f"seed {s}" for s in seeds) + " |",
         "|---|" + "---|" * len(seeds)]
for i, t in enumerate(tasks):
    lines.append(f"| {t} | " + " | ".join(f"{runs[s]['test']['tasks'][i]['error']:.1f}" for s in seeds) + " |")
means = [runs[s]["test"]["mean_error"] for s in seeds]
lines.append("| **mean** | " + " | ".join(f"**{m:.2f}**" for m in means) + " |")
lines.append("| failed (> 5%) | " + " | ".join(str(len(runs[s]["test"]["failed"])) for s in seeds) + " |")
lines.append("| dev mean | " + " | ".join(f"{runs[s]['dev']['mean_error']:.2f}" for s in seeds) + " |")
spread = f"{statistics.mean(means):.2f} ± {statistics.stdev(means):.2f}" if len(means) > 1 else f"{means[0]:.2f}"
lines += ["", f"Mean test error over the seeds: {spread} (min {min(means):.2f}, max {max(means):.2f}); "
          f"the seed chosen on validation (seed {best}): {runs[best]['test']['mean_error']:.2f}."]
open(f"{work}/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
