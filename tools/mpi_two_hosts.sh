#!/usr/bin/env bash
# Data-parallel training across two "hosts" on one machine (docs/DISTRIBUTED.md#two-hosts):
# two network namespaces joined by a veth pair, each with its own host name, and mpirun in
# the first launching the second's Open MPI daemon through a remote shell that enters the
# namespace (as ssh would enter another machine). The ranks talk TCP over the veth link only.
# It trains a small word-reversal model (double precision, 60 steps) three ways and checks:
#   - the two-host run equals the two-rank run on loopback exactly (same sums, other wire);
#   - both follow the single process within 1e-9 at every step.
# Needs root (namespaces), iproute2, util-linux (unshare) and Open MPI (tools/setup.sh).
#   sudo tools/mpi_two_hosts.sh [path/to/heed]
set -euo pipefail
heed=$(realpath "${1:-build/heed}")
[ "$(id -u)" -eq 0 ] || { echo "mpi_two_hosts: run as root (it creates network namespaces)" >&2; exit 2; }
[ -x "$heed" ] || { echo "mpi_two_hosts: $heed: no heed binary (build first)" >&2; exit 2; }
for tool in ip unshare mpirun awk; do
  command -v "$tool" >/dev/null || { echo "mpi_two_hosts: $tool is missing" >&2; exit 2; }
done

a=heed-a-$$ b=heed-b-$$       # namespace = host name
net=10.213.$((RANDOM % 200 + 20))
work=$(mktemp -d)
cleanup() {
  ip netns del "$a" 2>/dev/null || true
  ip netns del "$b" 2>/dev/null || true
  rm -rf "/etc/netns/$a" "/etc/netns/$b" "$work"
}
trap cleanup EXIT

echo "mpi_two_hosts: namespaces $a ($net.1) and $b ($net.2) joined by a veth pair"
ip netns add "$a"
ip netns add "$b"
ip link add "va$$" type veth peer name "vb$$"
ip link set "va$$" netns "$a"
ip link set "vb$$" netns "$b"
ip -n "$a" addr add "$net.1/24" dev "va$$"
ip -n "$b" addr add "$net.2/24" dev "vb$$"
for ns in "$a" "$b"; do
  ip -n "$ns" link set lo up
  # `ip netns exec` shows /etc/netns/NAME/hosts as /etc/hosts inside the namespace.
  mkdir -p "/etc/netns/$ns"
  printf '127.0.0.1 localhost\n%s.1 %s\n%s.2 %s\n' "$net" "$a" "$net" "$b" >"/etc/netns/$ns/hosts"
done
ip -n "$a" link set "va$$" up
ip -n "$b" link set "vb$$" up

# mpirun's remote shell: `rsh HOST COMMAND...` runs COMMAND in HOST's namespace, under HOST's
# own host name (a UTS namespace), as ssh would on another machine.
cat >"$work/rsh" <<'EOF'
#!/bin/sh
host=$1
shift
exec ip netns exec "$host" unshare --uts sh -c "hostname $host; $*"
EOF
chmod +x "$work/rsh"
printf '%s slots=1\n%s slots=1\n' "$a" "$b" >"$work/hosts"

# The word-reversal task: 300 training and 20 dev lines of 3-8 letters.
awk -v seed=7 -v dir="$work" 'BEGIN {
  srand(seed)
  for (part = 0; part < 2; ++part) {
    n = part ? 20 : 300; name = part ? "dev" : "train"
    for (i = 0; i < n; ++i) {
      len = 3 + int(rand() * 6); s = ""; r = ""
      for (k = 0; k < len; ++k) { c = substr("abcdefgh", 1 + int(rand() * 8), 1); s = s c; r = c r }
      print s > (dir "/" name ".src"); print r > (dir "/" name ".tgt")
    }
  }
}'
cat >"$work/config.yaml" <<EOF
data:
  train_source: $work/train.src
  train_target: $work/train.tgt
  dev_source: $work/dev.src
  dev_target: $work/dev.tgt
model:
  kind: bahdanau
  emb_dim: 16
  enc_hidden: 32
  dec_hidden: 32
  dropout: 0.0
training:
  dtype: f64
  lr: 0.01
  max_tokens: 200
  max_steps: 60
  max_epochs: 0
  validate_every: 1
  metric: loss
  threads: 1
EOF

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
train="$heed train $work/config.yaml --set output="

echo "mpi_two_hosts: one process"
$train"$work/one" >"$work/one.log" 2>&1 || { cat "$work/one.log"; exit 1; }
echo "mpi_two_hosts: two ranks on loopback"
mpirun --oversubscribe -np 2 --mca btl tcp,self --mca btl_tcp_if_include lo \
  $train"$work/loopback" >"$work/loopback.log" 2>&1 || { cat "$work/loopback.log"; exit 1; }
echo "mpi_two_hosts: one rank on $a, one on $b, TCP over the veth pair"
ip netns exec "$a" unshare --uts sh -c "hostname $a; exec mpirun --hostfile $work/hosts \
  --mca plm_rsh_agent $work/rsh --mca btl tcp,self \
  --mca btl_tcp_if_include $net.0/24 --mca oob_tcp_if_include $net.0/24 \
  -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -np 2 \
  $train$work/two_hosts" >"$work/two_hosts.log" 2>&1 || { cat "$work/two_hosts.log"; exit 1; }
grep -q "data-parallel over 2 ranks (on $a, on $b)" "$work/two_hosts.log" ||
  { echo "mpi_two_hosts: the ranks did not run on $a and $b" >&2; cat "$work/two_hosts.log"; exit 1; }
grep "data-parallel" "$work/two_hosts.log" | sed 's/^/  /'

# Every step's train_loss and dev_loss (history.jsonl has one line per validation = step).
losses() { grep -o '"dev_loss":[^,]*\|"train_loss":[^,}]*' "$1/history.jsonl" | cut -d: -f2; }
losses "$work/one" >"$work/one.txt"
losses "$work/loopback" >"$work/loopback.txt"
losses "$work/two_hosts" >"$work/two_hosts.txt"
[ "$(wc -l <"$work/one.txt")" -eq 120 ] || { echo "mpi_two_hosts: expected 60 steps" >&2; exit 1; }
if ! cmp -s "$work/loopback.txt" "$work/two_hosts.txt"; then
  echo "mpi_two_hosts: FAIL: the two-host run differs from the loopback run" >&2
  diff "$work/loopback.txt" "$work/two_hosts.txt" | sed -n 1,10p >&2
  exit 1
fi
paste "$work/one.txt" "$work/two_hosts.txt" | awk '
  { d = $1 - $2; if (d < 0) d = -d; m = ($1 < 0 ? -$1 : $1); if (m < 1) m = 1
    if (d / m > worst) worst = d / m }
  END { printf "mpi_two_hosts: largest relative difference from one process over 60 steps: %.2g\n", worst
        exit worst > 1e-9 }' || { echo "mpi_two_hosts: FAIL: more than 1e-9 from one process" >&2; exit 1; }
echo "mpi_two_hosts: PASS (two hosts = loopback exactly; both = one process within 1e-9)"
