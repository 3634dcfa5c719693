#!/usr/bin/env bash
# For the catalogue's `heed serve` cases: starts HEED serve -m MODEL on a free loopback port,
# runs COMMAND (bash) with $PORT set once the server listens, stops the server (SIGTERM) and
# exits with COMMAND's status. The server's own messages go to serve.log in the current
# directory. COMMAND may call `post FILE [LENGTH] [PATH]`: POST PATH (default /translate) with
# FILE's bytes as the body and LENGTH (default, or "": the file's size) as its Content-Length,
# printing the raw answer (bash's /dev/tcp, so no HTTP client is needed).
#   with_server.sh HEED MODEL COMMAND
set -uo pipefail
heed=$1 model=$2 command=$3
post() {
  exec 3<>"/dev/tcp/127.0.0.1/$PORT" || return 1
  printf 'POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %s\r\nConnection: close\r\n\r\n' "${3:-/translate}" "${2:-$(wc -c <"$1")}" >&3
  cat "$1" >&3
  cat <&3
}
export -f post
"$heed" serve -m "$model" --port 0 >serve.log 2>&1 &
server=$!
PORT=
for _ in $(seq 600); do
  PORT=$(grep -o '127\.0\.0\.1:[0-9]*' serve.log | head -1 | cut -d: -f2)
  [ -n "$PORT" ] && break
  kill -0 "$server" 2>/dev/null || { cat serve.log; exit 99; }
  sleep 0.1
done
[ -n "$PORT" ] || { echo "with_server.sh: the server did not start"; kill "$server"; exit 99; }
PORT=$PORT bash -c "$command"
rc=$?
kill -TERM "$server"
wait "$server"
exit $rc
