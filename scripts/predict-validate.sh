#!/usr/bin/env bash
# predict-validate.sh — validate `gridtui predict` on the multi-host harness (root only).
#
#   sudo scripts/predict-validate.sh [OUT]     (OUT defaults to /tmp/gridtui-predict-validate)
#   RATES=100mbit LOCK_WAIT=1200 sudo scripts/predict-validate.sh OUT
#                  one WAN rate only; give up if the locks are not free within 20 minutes
#
# Builds a 8 + 8 host grid (scripts/netgrid.sh), runs the study matrix
# testdata/study/predict.toml (n = 48 and 64, 2/4/8/16 nodes across both
# clusters, every scheme, five times) with the inter-cluster link limited by tbf to
# 100 Mbit/s, then again at 10 Mbit/s, each into its own results store
# (OUT/store-100mbit, OUT/store-10mbit), and prints for each store
# `gridtui bench predict --max-trace-nodes 4 --shared-cores $(nproc)`: the 8-
# and 16-node runs predicted from the 2- and 4-node ones against their
# measured times (every namespaced host shares this machine's cores). Run it
# again with the same OUT to add a second pass of runs to the stores.
# It holds /tmp/gridtui-bench.lock, then /tmp/gridtui-e2e.lock (the order
# other users of both take them in, so that none waits on the other) from
# start to end; the grid is torn down when it ends or is interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
out="${1:-/tmp/gridtui-predict-validate}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
bin="$out/gridtui"
CGO_ENABLED=0 go build -o "$bin" ./cmd/gridtui
go build -tags e2e -o "$out/netgrid" ./e2e/netgrid

rates="${RATES:-100mbit 10mbit}"
wait=()
[ -n "${LOCK_WAIT:-}" ] && wait=(-w "$LOCK_WAIT")
exec 9>/tmp/gridtui-bench.lock
flock "${wait[@]}" 9 || { echo "predict-validate: the bench lock stayed busy" >&2; exit 1; }
exec 8>/tmp/gridtui-e2e.lock
flock "${wait[@]}" 8 || { echo "predict-validate: the e2e lock stayed busy" >&2; exit 1; }
"$out/netgrid" up -a 8 -b 8 -wan 100mbit >"$out/netgrid.log" 2>&1 &
grid=$!
trap 'kill -INT $grid 2>/dev/null; wait $grid 2>/dev/null || true' EXIT
for _ in $(seq 240); do
  grep -q "Ctrl-C tears" "$out/netgrid.log" && break
  kill -0 $grid 2>/dev/null || { cat "$out/netgrid.log" >&2; exit 1; }
  sleep 0.5
done
line=$(grep -m1 'env HOME=' "$out/netgrid.log")
con=$(awk '{print $4}' <<<"$line")
home=$(awk '{print $6}' <<<"$line" | sed 's/^HOME=//')
sites=$(awk '{print $9}' <<<"$line")
sw="${con%-con}-sw"
gt() { ip netns exec "$con" env HOME="$home" "$bin" --sites "$sites" "$@"; }
gt deploy
trap 'gt deploy --stop --clean >/dev/null 2>&1 || true; kill -INT $grid 2>/dev/null; wait $grid 2>/dev/null || true' EXIT

for rate in $rates; do
  if [ -s "$out/store-$rate/results.jsonl" ]; then
    echo "predict-validate: adding to the $(wc -l <"$out/store-$rate/results.jsonl") runs already in $out/store-$rate (use a fresh OUT for a fresh pass)" >&2
  fi
  for dev in wanA wanB; do
    ip netns exec "$sw" tc qdisc change dev $dev root tbf rate $rate burst 64kb latency 50ms
  done
  gt bench study --matrix testdata/study/predict.toml --data-dir "$out/store-$rate" \
    --out "$out/study-$rate" 2>&1 | tee "$out/study-$rate.log" || echo "study at $rate: some runs failed (see above)"
done
for rate in $rates; do
  echo "== inter-cluster link $rate"
  "$bin" bench predict --data-dir "$out/store-$rate" --max-trace-nodes 4 --shared-cores "$(nproc)" | tee "$out/predict-$rate.txt"
done
echo "== summary ($(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%FT%TZ))"
for rate in $rates; do
  echo "$rate: $(grep -E '^within 15 %:|^schemes ranked' "$out/predict-$rate.txt" | tr '\n' ' ')"
done
