#!/usr/bin/env bash
# Measures the planner and the judge on the shared Spider pairs, side by
# side in one run:
#   - planner: median µs per query (parse + plan + normalize), one goroutine;
#   - judge:   median µs per pair (both queries planned), one goroutine;
#   - eval:    pairs/s of `pgequiv eval` on all cores.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${PGEQUIV_SHARED:-testdata/shared}/data/spider_pair_dev.jsonl

echo "== planner (BenchmarkPlanSpider, 3288 queries x 5)"
go test ./planner -run '^$' -bench BenchmarkPlanSpider -benchtime 3288x -count 5 | grep -E '^Benchmark'
echo "== judge (BenchmarkJudgeSpider, 1644 pairs x 2, x 5)"
go test ./equivalence -run '^$' -bench BenchmarkJudgeSpider -benchtime 3288x -count 5 | grep -E '^Benchmark'
echo "== eval throughput (3 runs)"
go build -o /tmp/pgequiv-bench ./cmd/pgequiv
for i in 1 2 3; do
  /tmp/pgequiv-bench eval "$data" | grep -E '^pairs:'
done
