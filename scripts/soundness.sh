#!/usr/bin/env bash
# The soundness net, long run: every rewrite the judge relies on, run by
# the plan executor on many generated databases (go test runs the same
# tests with a handful). Any difference is a bug in a rule, a prover or the
# executor; the tests fail and print the database.
#
#   scripts/soundness.sh            # 200 databases per check
#   scripts/soundness.sh 1000       # more
#
# Checks: every normalization rule firing (internal/soundness
# TestRuleFiringsAgree), every golden plan against its raw plan
# (internal/soundness TestGoldenPlansAgreeWithRaw), every ESM+ rule firing and every pair the
# judge proves equivalent over the shared corpora (equivalence
# TestSoundnessNet), and the regressions of the bugs the net found.
set -euo pipefail
cd "$(dirname "$0")/.."
export SOUNDNESS_INSTANCES="${1:-200}"
start=$(date +%s)
go test -count=1 -timeout 60m -v \
  -run 'TestRuleFiringsAgree|TestGoldenPlansAgreeWithRaw|TestSoundnessNet|TestSoundnessRegressions|TestReplaceColsOutsideStopsAtRedefinition' \
  ./planner/plan ./internal/soundness ./equivalence 2>&1 |
  grep -Ev '^=== (RUN|PAUSE|CONT)'
echo "soundness.sh: $SOUNDNESS_INSTANCES databases per check, $(( $(date +%s) - start )) s"
