#!/usr/bin/env bash
# Runs every test of pgequiv. It installs what the tests need on a fresh
# Debian machine (Go modules, PostgreSQL server and clients, pgbench, Node)
# through scripts/install-test-deps.sh, then runs the Go test suite, which
# starts its own throwaway PostgreSQL clusters. The data the tests read is
# in the repository (testdata/shared; PGEQUIV_SHARED=DIR reads another copy
# with the same layout instead).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -x scripts/install-test-deps.sh ]; then
  scripts/install-test-deps.sh
fi
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "test.sh: gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go test -count=1 ./... "$@"
