#!/usr/bin/env bash
# The standing soundness campaign (issue 18): pairs of related queries
# over a constraint- and type-rich schema corpus (eval/campaign/
# testdata) are judged, and every proved label is checked on the real
# engine: an `equivalent` on many databases the engine accepts (made by
# the refuter's generator and by an independent random-row generator
# that inserts through the real DDL), a `not_equivalent` by loading its
# counterexample with the DDL's constraints in force. Any wrong label
# fails the run; its repro (schema, both queries, database) is written as
# JSON lines under the output directory. `go test ./...` runs a short
# pass (TestCampaign, 40 pairs per engine).
#
#   scripts/soundness-campaign.sh                 # 10 minutes per engine, both engines
#   scripts/soundness-campaign.sh 5 postgres      # 5 minutes, PostgreSQL only
#   scripts/soundness-campaign.sh 10 sqlite 7     # seed 7
#   CAMPAIGN_FAMILIES='join-swap|bare' scripts/soundness-campaign.sh 2 sqlite
#                                                 # only the families the regexp matches
#
# Output: pairs tried, labels proved, wrong labels by cause (with
# repros), equivalences that differ in display only, and the generated
# databases the engine refused. Findings: $CAMPAIGN_OUT (default
# /tmp/pgequiv-campaign) findings-<engine>.jsonl. Exit status non-zero on any
# wrong label.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"
engine="${2:-all}"
seed="${3:-1}"
out="${CAMPAIGN_OUT:-${TMPDIR:-/tmp}/pgequiv-campaign}"
case "$engine" in
  all|postgres|sqlite) ;;
  *) echo "soundness-campaign.sh: engine must be postgres, sqlite or all" >&2; exit 2 ;;
esac
engines=1
[ "$engine" = all ] && engines=2
timeout_min=$(( minutes * engines + 15 ))
start=$(date +%s)
status=0
go test -count=1 -timeout "${timeout_min}m" -v -run 'TestCampaign$' ./eval/campaign \
  -campaign.duration="${minutes}m" -campaign.engine="$engine" -campaign.seed="$seed" -campaign.out="$out" \
  -campaign.families="${CAMPAIGN_FAMILIES:-}" 2>&1 |
  grep -aEv '^=== (RUN|PAUSE|CONT)' || status=$?
echo "soundness-campaign.sh: ${minutes} min per engine ($engine), seed $seed, $(( $(date +%s) - start )) s; findings in $out"
exit "$status"
