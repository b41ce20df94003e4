#!/usr/bin/env bash
# Runs every pair the prover proves (prover suites, Spider pairs) on many
# random databases with the executor; a counterexample is a wrong proof.
# Too slow for CI, which runs the same test with a few instances.
#
#   scripts/prove-soundness.sh [instances] [budget-per-pair] [suite]
#
# suite (optional) is a substring of the suites' file names, e.g. tpch.
set -euo pipefail
cd "$(dirname "$0")/.."
PROVE_SOUND_INSTANCES="${1:-3000}" PROVE_SOUND_BUDGET="${2:-2s}" PROVE_SOUND_ONLY="${3:-}" \
	go test -count=1 -timeout 60m ./equivalence/prove -run TestProvedPairsSurviveRefuter -v
