#!/usr/bin/env bash
# Compares eval's throughput of pgequiv binaries side by side: ROUNDS
# rounds, each running every binary once in turn on the shared Spider
# pairs, so that a noisy machine slows them alike. Prints pairs/s and
# user+sys CPU per run, then each binary's means and its ratio to the
# first binary.
#
#   scripts/bench-eval-side-by-side.sh ROUNDS BASELINE_BINARY OTHER_BINARY...
set -euo pipefail
rounds=$1; shift
data="${PGEQUIV_SHARED:-$(dirname "$0")/../testdata/shared}/data/spider_pair_dev.jsonl"
out=$(mktemp); trap 'rm -f "$out" "$out.time" "$out.run"' EXIT
for _ in $(seq "$rounds"); do
  for b in "$@"; do
    /usr/bin/time -f "%U %S" -o "$out.time" "$b" eval --gmn=false --refute-budget 1s "$data" > "$out.run" 2>&1
    pps=$(grep -o "([0-9]* pairs/s)" "$out.run" | tr -d '(' | cut -d' ' -f1)
    echo "$b $pps $(cat "$out.time")" | tee -a "$out"
  done
done
awk '{n[$1]++; p[$1]+=$2; c[$1]+=$3+$4; if (!($1 in o)) {o[$1]=++k; name[k]=$1}}
  END {for (i=1;i<=k;i++) {b=name[i]; printf "%s: %.0f pairs/s, %.3f CPU-s; vs the first: %.3fx pairs/s, %.3fx CPU\n", b, p[b]/n[b], c[b]/n[b], (p[b]/n[b])/(p[name[1]]/n[name[1]]), (c[name[1]]/n[name[1]])/(c[b]/n[b])}}' "$out"
