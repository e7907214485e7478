#!/bin/sh
# bench-sweep.sh: throughput of a parameter sweep on the local grid against
# the same instances run one `gridtui run` at a time, in the same run
# (docs/bench/sweeps.md). Usage: scripts/bench-sweep.sh GRIDTUI [ROUNDS]
# Instances: poisson on one node, n = 6…9 × eps = 1e-8…1.2e-7 (48).
set -eu
bin=${1:?usage: bench-sweep.sh GRIDTUI [ROUNDS]}
rounds=${2:-2}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
export GRIDTUI_DATA_DIR="$data"
ns="6 7 8 9"
epss=$(awk 'BEGIN{for(i=1;i<=12;i++) printf "%de-08 ", i}')
count=48
now() { date +%s.%N; }
rate() { awk -v n="$count" -v a="$1" -v b="$2" 'BEGIN{printf "%.2f instances/s (%.1f s)", n/(b-a), b-a}'; }
for r in $(seq "$rounds"); do
	t0=$(now)
	for n in $ns; do for e in $epss; do
		"$bin" run --app poisson --nodes 1 --param n="$n" --param eps="$e" >/dev/null 2>&1
	done; done
	t1=$(now)
	"$bin" run --app poisson --nodes 1 --sweep n=6:9 --sweep eps=1e-8:1.2e-7:1e-8 --max-parallel 1 >/dev/null 2>&1
	t2=$(now)
	"$bin" run --app poisson --nodes 1 --sweep n=6:9 --sweep eps=1e-8:1.2e-7:1e-8 >/dev/null 2>&1
	t3=$(now)
	echo "round $r: one gridtui run at a time $(rate "$t0" "$t1"); sweep --max-parallel 1 $(rate "$t1" "$t2"); sweep on 8 nodes $(rate "$t2" "$t3")"
done
