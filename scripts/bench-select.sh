#!/usr/bin/env bash
# Measures `pgequiv select` on the shared Spider pairs: the pairs are
# grouped by (db, reference), the reference is withheld, and the
# candidates of each group are handed to the selector. Accuracy is
# reported on the groups with at least one correct and one wrong
# candidate (210), beside a uniformly random pick (expected value), the
# most frequent candidate text (expected value, ties broken at random)
# and the oracle, with the time per group.
#
# Column order is ignored, as Spider's labels ignore it. The selection is
# deterministic: a fixed seed and --instances (300) databases per group,
# with a budget (--budget 10s here, 1 s by default) that only a stalled
# machine reaches; groups whose budget ran out say so in
# selections.jsonl "notes", and the script counts them. Pass --budget 1s
# to measure with the default. Times are per group, one group at a time.
#
#   scripts/bench-select.sh [--workers N] [other pgequiv select flags]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${PGEQUIV_SHARED:-testdata/shared}/data
out=${BENCH_SELECT_OUT:-/tmp/pgequiv-bench-select}
mkdir -p "$out"
go build -o "$out/pgequiv" ./cmd/pgequiv
"$out/pgequiv" select --pairs "$data/spider_pair_dev.jsonl" --schemas "$data/schemas" \
  --mixed-only --policy column_order=ignore --workers 1 --brief --budget 10s \
  --write-groups "$out/groups.jsonl" --out "$out/selections.jsonl" "$@"
echo "groups: $out/groups.jsonl; selections: $out/selections.jsonl"
echo "groups whose budget ran out: $(grep -c 'ran out\|within the budget' "$out/selections.jsonl" || true)"
