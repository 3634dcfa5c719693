#!/usr/bin/env bash
# The paper model of data-parallel scaling in docs/DISTRIBUTED.md#scaling-model:
#   step(N) = compute / N + allreduce(N),
#   allreduce(N) = 2 (N-1)/N * gradient bytes / bandwidth + 2 (N-1) * latency   (ring)
# for a fixed global batch (strong scaling), at 10, 25 and 100 Gbit/s, N = 1..64; speed-up
# = step(1) / step(N). With the overlap of heed's bucketed all-reduce the exposed part of the
# all-reduce is smaller; the column "overlapped" takes step(N) = max(compute / N, allreduce(N)),
# the best case where the backward pass hides all of it.
#   tools/dist_scaling_model.sh COMPUTE_MS GRADIENT_MB [LATENCY_US]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 COMPUTE_MS GRADIENT_MB [LATENCY_US]" >&2; exit 2; }
awk -v c="$1" -v g="$2" -v lat="${3:-25}" 'BEGIN {
  printf "compute %.0f ms per step on one core, %.1f MB of gradients, %g us latency per message\n\n", c, g, lat
  printf "| N | 10 Gbit/s: ms, speed-up (overlapped) | 25 Gbit/s | 100 Gbit/s |\n|---|---|---|---|\n"
  split("1 2 4 8 16 32 64", ns, " ")
  for (i = 1; i <= 7; ++i) {
    n = ns[i]; line = "| " n " |"
    split("10 25 100", bw, " ")
    for (j = 1; j <= 3; ++j) {
      bytes_per_ms = bw[j] * 1e9 / 8 / 1000
      ar = (n > 1) ? 2 * (n - 1) / n * g * 1e6 / bytes_per_ms + 2 * (n - 1) * lat / 1000 : 0
      step = c / n + ar
      best = (c / n > ar) ? c / n : ar
      line = line sprintf(" %.1f ms, %.1fx (%.1fx) |", step, c / step, c / best)
    }
    print line
  }
  split("10 25 100", bw, " ")
  printf "\nwhere adding ranks stops paying (compute / N = all-reduce):"
  for (j = 1; j <= 3; ++j) {
    bytes_per_ms = bw[j] * 1e9 / 8 / 1000
    printf " %s Gbit/s N = %.1f;", bw[j], c / (2 * g * 1e6 / bytes_per_ms)
  }
  printf "\n"
}'
