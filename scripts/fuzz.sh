#!/usr/bin/env bash
# fuzz.sh runs the structure-aware fuzz targets (issue 9), one after the
# other, each with one fuzzing worker (-parallel 1), for DURATION each
# (a go test -fuzztime value: 10m, 30s, 5000x; default 10m):
#
#   FuzzPlanStructured  ./planner      planner.Plan on generated queries
#   FuzzJudgeStructured ./equivalence  equivalence.Judge on generated pairs
#   FuzzPlanStructuredParams, FuzzJudgeStructuredParams: the same with
#                       parameters ($n) among the literals (issue 19)
#   FuzzLoadDDL         ./planner/catalog  catalog.LoadDDL, both dialects,
#                       on mutated schema files (no panic, no call over 1 s)
#
# Both build SQL with internal/sqlgen from the fuzz input over the bundled
# and shared schemas, and fail on a panic or fatal error, on a call that
# overruns its 200 ms budget by more than 10% + 20 ms, or on more than
# 256 MB of heap growth during the call. A failing input is written by go test
# under <package>/testdata/fuzz/<Target>/; rerun it with
#   go test ./planner -run 'FuzzPlanStructured/<file name>'
#
# Usage: scripts/fuzz.sh [DURATION]     e.g. scripts/fuzz.sh 30s
# Environment: FUZZ_TARGETS="FuzzPlanStructured FuzzJudgeStructured" to
# pick targets; FUZZ_LOG_DIR to keep the logs (default: a temp dir).
# Prints, per target, its result and the number of executions; exits
# non-zero when any target failed.
set -uo pipefail
cd "$(dirname "$0")/.."

duration=${1:-10m}
targets=${FUZZ_TARGETS:-FuzzPlanStructured FuzzJudgeStructured FuzzPlanStructuredParams FuzzJudgeStructuredParams FuzzLoadDDL}
logdir=${FUZZ_LOG_DIR:-$(mktemp -d -t pgequiv-fuzz.XXXXXX)}
mkdir -p "$logdir"

pkg_of() {
	case $1 in
	FuzzPlanStructured | FuzzPlanStructuredParams) echo ./planner ;;
	FuzzJudgeStructured | FuzzJudgeStructuredParams) echo ./equivalence ;;
	FuzzLoadDDL) echo ./planner/catalog ;;
	*) echo "fuzz.sh: unknown target $1" >&2; return 1 ;;
	esac
}

failed=0
summary=()
for t in $targets; do
	pkg=$(pkg_of "$t") || exit 2
	log=$logdir/$t.log
	echo "== $t ($pkg) for $duration; log $log"
	# The whole run may take DURATION plus minimization and start-up;
	# -timeout 0 keeps go test from killing a long run.
	go test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$duration" -fuzzminimizetime 30s \
		-parallel 1 -timeout 0 >"$log" 2>&1
	rc=$?
	# go test prints "fuzz: elapsed: ..., execs: N (R/sec), ..." periodically
	# and once more at the end; the last one has the total.
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | awk '{print $2}')
	if [ "$rc" -eq 0 ]; then
		result=ok
	else
		result=FAIL
		failed=1
		grep -E -- '--- FAIL|Failing input written to|fatal error:|panic:|over budget|still running|allocated' "$log" | head -20
	fi
	summary+=("$(printf '%-22s %-5s execs=%s' "$t" "$result" "${execs:-0}")")
done

echo "== summary ($duration per target; logs in $logdir)"
printf '%s\n' "${summary[@]}"
exit $failed
