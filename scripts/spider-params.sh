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
# Usage: scripts/spider-params.sh [DATASET.jsonl]   (default: testdata/shared/data/spider_pair_dev.jsonl)
# Environment: WORKERS (eval's --workers, default 1: the search has a time
# budget, so parallel judges on a loaded machine refute less and the two
# runs compare worse); KEEP=DIR keeps both runs' --out files in DIR and
# lists the ids refuted in one version only.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-${PGEQUIV_SHARED:-testdata/shared}/data/spider_pair_dev.jsonl}
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	tmp=$KEEP
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
fi
go build -o "$tmp/pgequiv" ./cmd/pgequiv
"$tmp/pgequiv" eval --workers "${WORKERS:-1}" --out "$tmp/literal.jsonl" "$data" 2>/dev/null | grep '^refuted'
"$tmp/pgequiv" eval --workers "${WORKERS:-1}" --parameterize-candidate --out "$tmp/params.jsonl" "$data" 2>/dev/null | grep '^parameterized\|^refuted'
python3 - "$tmp" "${KEEP:-}" <<'PY'
import json, sys
d, keep = sys.argv[1], sys.argv[2]
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
        if keep:
            print("    literals only:", " ".join(i for i in ids if lit[i].get("refuted") and not par[i].get("refuted")))
PY
