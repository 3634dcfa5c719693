#!/usr/bin/env bash
# Load test of `heed serve` with wrk (Debian's wrk, installed if missing): for each
# connection count, SECONDS of POST /translate (one short sentence, beam 5) on loopback,
# then a SIGTERM in the middle of one more run. Prints, per run, requests/s, latency
# p50/p99, the status counts (anything but 200 and 503 is an error) and the server's RSS
# before and after; exits 1 on an error status, a socket error other than a refused
# connection after the stop, or a server that does not exit 0 on SIGTERM.
#   tools/serve_load.sh MODEL_DIR [SECONDS] [CONNECTIONS...]   e.g. tools/serve_load.sh runs/g2p 60 8 64 256
# docs/RELIABILITY.md records its runs. HEED (default build/heed) is the binary;
# HEED_SERVE_OPTIONS adds options to `heed serve` (e.g. "--batch-wait 0").
#
#   tools/serve_load.sh --speed MODEL_DIR [SECONDS] [ROUNDS]    e.g. tools/serve_load.sh --speed runs/g2p 10 5
# measures speed instead, ROUNDS times in turn on one server (default workers and threads):
# GET /health with 1 connection, POST /translate (one word, beam 5) with 1 and with 8
# connections; prints each run's requests/s, p50 and p99, then the medians and the
# translate throughput at 8 connections over that at 1 (docs/PERFORMANCE.md records them).
set -euo pipefail
speed=0
if [[ ${1:-} == --speed ]]; then speed=1; shift; fi
model=${1:?usage: tools/serve_load.sh [--speed] MODEL_DIR [SECONDS] [CONNECTIONS... | ROUNDS]}
seconds=${2:-60}
shift 2 || shift $#
connections=("$@")
((${#connections[@]})) || connections=(8 64 256)
heed=${HEED:-build/heed}
command -v wrk >/dev/null || "$(dirname "$0")/install-missing.sh serve_load wrk"

work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
if ((speed)); then
  "$heed" serve -m "$model" --port "$port" ${HEED_SERVE_OPTIONS:-} 2>"$work/serve.log" &
else
  "$heed" serve -m "$model" --port "$port" --connections 16 --queue 64 ${HEED_SERVE_OPTIONS:-} 2>"$work/serve.log" &
fi
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
rss() { awk '/^VmRSS/ {print $2 / 1024 " MiB"}' "/proc/$server/status"; }

# Counts every status (wrk reports only non-2xx as a total) and writes latency percentiles.
cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"sentences": ["attention"], "beam": 5}'
wrk.headers["Content-Type"] = "application/json"
counts = {}
local threads = {}
function setup(thread) table.insert(threads, thread); thread:set("counts", {}) end
function response(status, headers, body) counts[status] = (counts[status] or 0) + 1 end
function done(summary, latency, requests)
  local total = {}
  for _, t in ipairs(threads) do
    for status, n in pairs(t:get("counts")) do total[status] = (total[status] or 0) + n end
  end
  local line = ""
  for status, n in pairs(total) do line = line .. status .. ":" .. n .. " " end
  io.write(string.format("p50 %.1f ms  p99 %.1f ms  statuses %s socket errors %d/%d/%d/%d\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, line,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
end
LUA

if ((speed)); then
  rounds=${connections[0]:-5}
  ((${#connections[@]})) || rounds=5
  cat >"$work/get.lua" <<'LUA'
function done(summary, latency, requests)
  io.write(string.format("p50 %.2f ms  p99 %.2f ms\n", latency:percentile(50) / 1000,
                         latency:percentile(99) / 1000))
end
LUA
  # wrk -c C: requests/s, then p50 and p99 in ms.
  measure() {
    local out
    out=$(wrk -t"$2" -c"$2" -d"${seconds}s" --timeout 30s -s "$1" "http://127.0.0.1:$port/$3")
    awk '/Requests\/sec/ {r = $2} /^p50/ {p50 = $2; p99 = $5} END {print r, p50, p99}' <<<"$out"
  }
  median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
  echo "model $model, $seconds s per run, $rounds rounds; $(tail -1 "$work/serve.log")"
  : >"$work/runs"
  for r in $(seq "$rounds"); do
    for run in "health 1 get.lua health" "translate 1 post.lua translate" "translate 8 post.lua translate"; do
      read -r name c script path <<<"$run"
      read -r rps p50 p99 <<<"$(measure "$work/$script" "$c" "$path")"
      echo "round $r  $name c$c: $rps req/s  p50 $p50 ms  p99 $p99 ms"
      echo "$name$c $rps $p50 $p99" >>"$work/runs"
    done
  done
  for key in health1 translate1 translate8; do
    echo "median $key: $(awk -v k=$key '$1 == k {print $2}' "$work/runs" | median) req/s  p50 $(awk -v k=$key '$1 == k {print $3}' "$work/runs" | median) ms  p99 $(awk -v k=$key '$1 == k {print $4}' "$work/runs" | median) ms"
  done
  awk '$1 == "translate1" {one[++n] = $2} $1 == "translate8" {eight[++m] = $2}
       END {for (i = 1; i <= n; i++) print eight[i] / one[i]}' "$work/runs" |
    median | xargs printf "translate c8 / c1 (median of the rounds' ratios): %.2f\n"
  echo "$(curl -s "http://127.0.0.1:$port/health")"
  exit 0
fi

status=0
echo "model $model, $seconds s per run, RSS at start $(rss)"
for c in "${connections[@]}"; do
  out=$(wrk -t2 -c"$c" -d"${seconds}s" --timeout 30s -s "$work/post.lua" "http://127.0.0.1:$port/translate")
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  echo "$c connections: $rps req/s  $(tail -1 <<<"$out")  RSS $(rss)"
  bad=$(tail -1 <<<"$out" | grep -Eo '[0-9]{3}:[0-9]+' | grep -vE '^(200|503):' || true)
  [ -z "$bad" ] || { echo "  error statuses: $bad"; status=1; }
done

# SIGTERM in the middle of a run: the server must exit 0 and answer what it accepted.
wrk -t2 -c64 -d"${seconds}s" --timeout 30s -s "$work/post.lua" "http://127.0.0.1:$port/translate" \
  >"$work/stop.txt" 2>&1 &
load=$!
sleep $((seconds / 2))
kill -TERM "$server"
if wait "$server"; then echo "SIGTERM mid-load: exit 0 ($(tail -1 "$work/serve.log"))"; else echo "SIGTERM mid-load: exit $?"; status=1; fi
wait "$load" || true
echo "the run it stopped: $(tail -1 "$work/stop.txt")"
exit $status
