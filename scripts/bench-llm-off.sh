#!/usr/bin/env bash
# Checks that the LLM judge, off (the default), changes nothing: this
# checkout's `pgequiv eval` and a base revision's (default: main, which may
# predate the LLM judge) judge the shared Spider pairs alternately, RUNS
# (default 5) runs each, in one run of this script. Prints each run's time and
# whether the per-pair verdicts and scores are identical.
#   scripts/bench-llm-off.sh [BASE-REVISION]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-main}
data=$(cd "${PGEQUIV_SHARED:-testdata/shared}/data" && pwd)/spider_pair_dev.jsonl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/pgequiv-head" ./cmd/pgequiv
mkdir "$tmp/base"
git archive "$base" | tar -x -C "$tmp/base"
(cd "$tmp/base" && go build -o "$tmp/pgequiv-base" ./cmd/pgequiv)
runs=${RUNS:-5}
for i in $(seq "$runs"); do
  for which in base head; do
    line=$("$tmp/pgequiv-$which" eval --out "$tmp/$which.jsonl" "$data" 2>/dev/null | grep -E '^pairs:')
    echo "$which run $i: $line"
    echo "$line" | sed -E 's/.*\(([0-9]+) pairs\/s\).*/\1/' >>"$tmp/$which.rates"
  done
done
for which in base head; do
  echo "$which median: $(sort -n "$tmp/$which.rates" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') pairs/s"
done
if cmp -s "$tmp/base.jsonl" "$tmp/head.jsonl"; then
  echo "per-pair verdicts and scores: identical ($(wc -l <"$tmp/head.jsonl") pairs)"
else
  echo "per-pair verdicts and scores: DIFFER"
  diff "$tmp/base.jsonl" "$tmp/head.jsonl" | head -20
  exit 1
fi
