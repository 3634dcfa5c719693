#!/usr/bin/env bash
# Load test of `heed serve` with wrk (Debian's wrk, installed if missing): for each
# connection count, SECONDS of POST /translate (one short sentence, beam 5) on loopback,
# then a SIGTERM in the middle of one more run. Prints, per run, requests/s, latency
# p50/p99, the status counts (anything but 200 and 503 is an error) and the server's RSS
# before and after; exits 1 on an error status, a socket error other than a refused
# connection after the stop, or a server that does not exit 0 on SIGTERM.
#   tools/serve_load.sh MODEL_DIR [SECONDS] [CONNECTIONS...]   e.g. tools/serve_load.sh runs/g2p 60 8 64 256
# docs/RELIABILITY.md records its runs.
set -euo pipefail
model=${1:?usage: tools/serve_load.sh MODEL_DIR [SECONDS] [CONNECTIONS...]}
seconds=${2:-60}
shift 2 || shift $#
connections=("$@")
((${#connections[@]})) || connections=(8 64 256)
heed=${HEED:-build/heed}
command -v wrk >/dev/null || { export DEBIAN_FRONTEND=noninteractive; apt-get install -y -qq wrk >/dev/null; }

work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
"$heed" serve -m "$model" --port "$port" --connections 16 --queue 64 2>"$work/serve.log" &
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
