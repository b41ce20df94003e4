#!/usr/bin/env bash
# Measures the judge's verdict latency on the 99 TPC-DS queries with the
# proxy's default judge settings (verdict_timeout 2s, refute_budget
# 20ms): each query against itself, against itself with its FROM lists
# and WHERE conjunctions reordered, and against small bug mutations
# (scripts/tpcdsbench/main.go). It runs twice: with one judge for all
# pairs, as a proxy's judge worker keeps prepared references, and cold,
# a fresh judge per pair (both queries planned every time).
#
# The TPC-DS schema and queries are under the TPC's EULA and are not in
# this repository: point TPCDS_DIR at a directory holding schema.sql
# (PostgreSQL DDL) and query1.sql .. query99.sql (PostgreSQL dialect).
#
#   TPCDS_DIR=/path/to/tpcds scripts/bench-tpcds.sh [tpcdsbench flags]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${TPCDS_DIR:-}" ]]; then
  go run ./scripts/tpcdsbench # prints what it needs and exits 2
fi
out=${BENCH_TPCDS_OUT:-/tmp/pgequiv-bench-tpcds}
mkdir -p "$out"
go build -o "$out/tpcdsbench" ./scripts/tpcdsbench
rc=0
"$out/tpcdsbench" -dir "$TPCDS_DIR" -out "$out/shared.jsonl" "$@" | tee "$out/shared.txt" || rc=$?
echo
"$out/tpcdsbench" -dir "$TPCDS_DIR" -cold -out "$out/cold.jsonl" "$@" | tee "$out/cold.txt" || rc=$?
echo "pairs: $out/shared.jsonl, $out/cold.jsonl"
exit "$rc"
