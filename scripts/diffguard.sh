#!/usr/bin/env bash
# The proxy's differential guard (issue 34): generated Query texts (quotes,
# dollar quotes, nested and line comments holding semicolons, E-strings,
# writes wrapped in WITH, EXPLAIN ANALYZE, DO, CREATE TABLE AS) read by the
# proxy's splitter and run on a throwaway PostgreSQL; the statements and
# every write the server runs must be the ones the proxy sees.
# `go test ./proxy/tag` runs 300 texts (CI); this runs the fuzzer on the
# generator's seeds for the given minutes (default 10).
#
#   scripts/diffguard.sh          # 10 minutes
#   scripts/diffguard.sh 2        # 2 minutes
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"
exec go test ./proxy/tag -run '^$' -fuzz '^FuzzSplitMatchesServer$' -fuzztime "${minutes}m"
