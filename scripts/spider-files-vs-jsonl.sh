#!/usr/bin/env bash
# Builds a Spider-layout copy of all 1,644 shared pairs (tables.json,
# DDL-only SQLite files, gold.sql, pred.sql; flight_2's file with Spider's
# own DDL and composite key) and checks that `pgequiv eval --gold/--pred`
# gives the JSONL mode's per-pair verdicts: with --tables, the same labels
# and scores; with --db-dir, the same labels.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test ./cmd/pgequiv -run TestBuildSpiderFixture -count=1 -update-spider-fixture -spider-fixture-out "$tmp/spider" >/dev/null
go build -o "$tmp/pgequiv" ./cmd/pgequiv
schemas=$(cd "${PGEQUIV_SHARED:-testdata/shared}/data/schemas" && pwd)
cd "$tmp/spider"
"$tmp/pgequiv" eval --schemas "$schemas" --out "$tmp/jsonl.jsonl" pairs.jsonl 2>/dev/null | tail -1
echo "== --tables"
"$tmp/pgequiv" eval --gold gold.sql --pred pred.sql --tables tables.json --out "$tmp/tables.jsonl" 2>/dev/null
echo "== --db-dir"
"$tmp/pgequiv" eval --gold gold.sql --pred pred.sql --db-dir database --out "$tmp/db.jsonl" 2>/dev/null
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
load = lambda f: [json.loads(l) for l in open(f"{d}/{f}")]
ref, tab, db = load("jsonl.jsonl"), load("tables.jsonl"), load("db.jsonl")
for name, got in (("--tables", tab), ("--db-dir", db)):
    labels = sum(g["label"] != r["verdict"] for g, r in zip(got, ref))
    scores = sum(g["score"] != r["score"] for g, r in zip(got, ref))
    dbs = sorted({g["db_id"] for g, r in zip(got, ref) if g["score"] != r["score"]})
    print(f"{name}: {len(got)} items vs {len(ref)} pairs; label differences {labels}; score differences {scores} {dbs}")
PY
