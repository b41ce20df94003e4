#!/usr/bin/env bash
# Issue 19, acceptance 2: how often the judge refutes a pair whose
# candidate binds its values through parameters, against the same pairs
# with literals. Judges the shared Spider pairs twice with `pgequiv eval`:
# as they are, and with every literal of each candidate replaced by $n
# (--parameterize-candidate; the reference keeps its literals), then
# prints the refuted fraction per label for both versions, over all pairs
# and over the pairs whose candidate had a literal.
#
# Read label 0 as the measure: those pairs differ, and the search must
# still find a database and values that show it. Label 1 is expected to
# rise: a pair is equivalent only if it is for EVERY value of the
# parameters, so a candidate whose literal became $1 is genuinely not
# equivalent to a reference that kept the literal ($1 = any other value
# refutes it).
#
# Usage: scripts/spider-params.sh [DATASET.jsonl]   (default: ../shared/data/spider_pair_dev.jsonl)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data/spider_pair_dev.jsonl}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/pgequiv" ./cmd/pgequiv
"$tmp/pgequiv" eval --workers "${WORKERS:-1}" --out "$tmp/literal.jsonl" "$data" 2>/dev/null | grep '^refuted'
"$tmp/pgequiv" eval --workers "${WORKERS:-1}" --parameterize-candidate --out "$tmp/params.jsonl" "$data" 2>/dev/null | grep '^parameterized\|^refuted'
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
lit = {r["id"]: r for r in map(json.loads, open(f"{d}/literal.jsonl"))}
par = {r["id"]: r for r in map(json.loads, open(f"{d}/params.jsonl"))}
def frac(ids, runs):
    n = len(ids)
    k = sum(runs[i].get("refuted", False) for i in ids)
    return f"{k}/{n} ({100 * k / max(n, 1):.1f}%)"
for subset, keep in (("all pairs", lambda i: True), ("candidate had a literal", lambda i: par[i].get("params", 0) > 0)):
    print(f"== {subset}")
    for label in (0, 1):
        ids = [i for i in lit if lit[i]["label"] == label and keep(i)]
        lost = sum(lit[i].get("refuted", False) and not par[i].get("refuted", False) for i in ids)
        print(f"  label {label}: refuted with literals {frac(ids, lit)}, with parameters {frac(ids, par)}; refuted with literals only: {lost}")
PY
