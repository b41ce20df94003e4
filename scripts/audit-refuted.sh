#!/usr/bin/env bash
# Lists the refuted pairs of a labelled dataset whose label says
# "equivalent", grouped by what their counterexample relies on beyond
# typical data: the audit of issue 13, acceptance 2.
#
#   scripts/audit-refuted.sh [DATASET.jsonl] [eval flags...]
#
# The search is bound by its instance count (--refute-budget 1s), so the
# list does not depend on how busy the machine is.
set -euo pipefail
cd "$(dirname "$0")/.."
dataset=${1:-${PGEQUIV_SHARED:-testdata/shared}/data/spider_pair_dev.jsonl}
shift || true
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go run ./cmd/pgequiv eval --gmn=false --refute-budget 1s --out "$out" "$@" "$dataset" | grep -E '^(policy|refuted|  on ordinary)'
jq -r 'select(.label == 1 and .verdict == "not_equivalent")
  | [(if .refuted then (if .column_order_only then "column order only"
       elif (.needs // []) == [] then "ordinary data"
       else (.needs | join(" + ")) end)
     else "structural (no database needed)" end), .id] | @tsv' "$out" |
  sort | awk -F'\t' '$1 != k { if (k != "") print ""; k = $1; printf "%s:", k } { printf " %s", $2 } END { print "" }'
