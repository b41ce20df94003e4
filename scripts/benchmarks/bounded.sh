#!/usr/bin/env bash
# Measures issue 19's acceptance 3 and 4 on a real relay:
#
#  (3) 20 MB statements (tagged in annotate and in enforce, and untagged
#      under a match: catalog): the proxy's resident size grows < 50 MB
#      and each answer comes within verdict_timeout + 10% + 20 ms; after
#      100 rounds SHOW VERDICTS holds < 10 MB; a restart after a 20 MB
#      verdict_log line and a torn line starts and reads every intact
#      verdict, and the next verdict starts on a line of its own.
#  (4) 100 annotate and 50 enforce clients sending tagged queries whose
#      judgements queue for the judge workers (verdict_timeout 2s): every
#      ReadyForQuery within 2 s + 10% + 20 ms (max and p99 reported).
#
# Starts a throwaway PostgreSQL (initdb/postgres, as the postgres OS user
# when run as root) and `pgequiv serve`; the driver is
# scripts/benchmarks/bounded. Prints each measurement as JSON and a
# PASS/FAIL line per threshold; exits 1 if any fails.
#
# Environment:
#   BOUNDED_SIZE=20971520   oversized statement bytes
#   BOUNDED_N=50            oversize rounds per mode (a tagged and an
#                           untagged statement each; two modes: 200 in all)
#   BOUNDED_LOAD_T=20s      load duration
#   BOUNDED_ITEMS=20000     IN-list items per load query (judgement cost)
#   BOUNDED_ONLY=oversize|load
#   BOUNDED_KEEP=1          keep the work directory
#   BOUNDED_DIRECT=1        load step: first the same clients and statements
#                           straight to PostgreSQL (no proxy, so nothing is
#                           judged or refused: every statement runs), for
#                           how long PostgreSQL alone takes to answer them
#   BOUNDED_PG_CPUS=0       pin PostgreSQL (the postmaster, so every backend
#                           it forks) to these CPUs (taskset -c list), and
#   BOUNDED_PROXY_CPUS=1    the proxy to these: separates the proxy's own
#                           latency from CPU that PostgreSQL's backends take
#   BOUNDED_BINS="A B"      load step only: run it once per pgequiv binary
#                           listed (side by side: an old and a new build),
#                           in turn, BOUNDED_ROUNDS times (default 1)
#   BOUNDED_CONFIG=         extra top-level proxy.yaml lines, e.g.
#                           "judge_workers: 1"
#   BOUNDED_SERVE_ARGS=     extra `pgequiv serve` flags, e.g.
#                           "--cpuprofile /tmp/cpu.pprof" (written when
#                           the proxy stops)
set -euo pipefail
cd "$(dirname "$0")/../.."

SIZE=${BOUNDED_SIZE:-20971520}
N=${BOUNDED_N:-50}
LOAD_T=${BOUNDED_LOAD_T:-20s}
ITEMS=${BOUNDED_ITEMS:-20000}
ONLY=${BOUNDED_ONLY:-}

die() { echo "bounded: $*" >&2; exit 1; }

# shellcheck source=scripts/lib/pgserver.sh
. scripts/lib/pgserver.sh # bindir, as_pg, free_port, wait_port
PSQL=$(command -v psql || echo "$bindir/psql")

work=$(mktemp -d /tmp/bounded.XXXXXX)
chmod 755 "$work"
PROXYPID=""
cleanup() {
  [ -n "$PROXYPID" ] && kill "$PROXYPID" 2>/dev/null || true
  if [ -f "$work/data/postmaster.pid" ]; then as_pg "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; fi
  if [ -z "${BOUNDED_KEEP:-}" ]; then rm -rf "$work"; else echo "bounded: kept $work" >&2; fi
}
trap cleanup EXIT

PGPORT_=$(free_port); PROXYPORT=$(free_port)
[ "$(id -u)" = 0 ] && chown postgres: "$work"

echo "== starting PostgreSQL ($bindir) on $PGPORT_" >&2
as_pg "$bindir/initdb" -D "$work/data" -U postgres -A trust -E UTF8 --no-locale --no-sync >"$work/initdb.log" 2>&1
cat >>"$work/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PGPORT_
unix_socket_directories = '$work'
max_connections = 300
fsync = off
synchronous_commit = off
CONF
as_pg "$bindir/pg_ctl" -D "$work/data" -l "$work/postgres.log" -w start >/dev/null
wait_port "$PGPORT_" postgres
if [ -n "${BOUNDED_PG_CPUS:-}" ]; then
  taskset -a -p -c "$BOUNDED_PG_CPUS" "$(head -1 "$work/data/postmaster.pid")" >/dev/null
fi
cp planner/catalog/example.sql "$work/kennel.sql"
"$PSQL" -q -h 127.0.0.1 -p "$PGPORT_" -U postgres -c "CREATE DATABASE kennel" postgres >/dev/null
"$PSQL" -q -h 127.0.0.1 -p "$PGPORT_" -U postgres -f "$work/kennel.sql" kennel >/dev/null
"$PSQL" -q -h 127.0.0.1 -p "$PGPORT_" -U postgres -c "INSERT INTO owners (owner_id, first_name, last_name) VALUES (1, 'Ann', 'Lee'); INSERT INTO dogs (dog_id, owner_id, name, age) VALUES (1, 1, 'Rex', 7), (2, 1, 'Fido', 3)" kennel >/dev/null

echo "== building pgequiv and the driver" >&2
go build -o "$work/pgequiv" ./cmd/pgequiv
go build -o "$work/bounded" ./scripts/benchmarks/bounded

cat >"$work/catalog.yaml" <<CAT
references:
  - id: old-dogs
    match: SELECT count(owner_id) FROM dogs WHERE age > 1 AND owner_id > 0
    reference: SELECT count(*) FROM dogs WHERE age > 1 AND owner_id > 0
  - id: slow
    mode: enforce
    reference: SELECT name FROM dogs WHERE age IN (1, 2, 3)
CAT
# write_config MODE CATALOG-ENTRIES: the proxy's config (old-dogs only, or
# with the enforce-mode entry the load's enforce clients name).
write_config() {
  local cat=catalog.yaml
  if [ "$2" = match-only ]; then
    head -4 "$work/catalog.yaml" >"$work/catalog-match.yaml"; cat=catalog-match.yaml
  fi
  cat >"$work/proxy.yaml" <<YAML
listen: 127.0.0.1:$PROXYPORT
upstream:
  address: 127.0.0.1:$PGPORT_
  tls_mode: disable
log_level: warn
mode: $1
verdict_timeout: 2s
enforce_unknown: true
max_message_size: 64MiB
schema:
  files: [kennel.sql]
catalog: $cat
verdict_log: verdicts.jsonl
admin:
  users: [admin]
  auth: trust
  recent_verdicts: 256
${BOUNDED_CONFIG:-}
YAML
}

start_proxy() {
  # shellcheck disable=SC2086 # BOUNDED_SERVE_ARGS is a list of flags
  local pin=()
  [ -n "${BOUNDED_PROXY_CPUS:-}" ] && pin=(taskset -c "$BOUNDED_PROXY_CPUS")
  "${pin[@]}" "$work/pgequiv" serve --config "$work/proxy.yaml" ${BOUNDED_SERVE_ARGS:-} 2>>"$work/pgequiv.log" &
  PROXYPID=$!
  wait_port "$PROXYPORT" pgequiv
}
stop_proxy() {
  kill -TERM "$PROXYPID"; wait "$PROXYPID" 2>/dev/null || true; PROXYPID=""
}

fail=0
check() { # name ok detail
  if [ "$2" = 1 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fail=1; fi
}
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
limit_ms=2220 # 2 s + 10% + 20 ms

if [ "$ONLY" != load ]; then
  # N rounds in annotate mode, then N in enforce mode (an oversized
  # statement's tag is not read, so its mode is the proxy's, or enforce
  # when a catalog entry enforces): 2N tagged and 2N untagged statements.
  for mode in annotate enforce; do
    echo "== oversize, mode $mode: $N rounds of a tagged and an untagged statement of $SIZE bytes" >&2
    write_config "$mode" match-only
    start_proxy
    over=$("$work/bounded" oversize -addr "127.0.0.1:$PROXYPORT" -pid "$PROXYPID" -size "$SIZE" -n "$N")
    echo "$over"
    check "$mode: rss growth < 50 MB" "$(echo "$over" | jq_ 'int(d["rss_growth_mb"] < 50)')" "$(echo "$over" | jq_ 'd["rss_growth_mb"]') MB (peak growth $(echo "$over" | jq_ 'd["peak_rss_growth_mb"]') MB)"
    # Forwarded statements take what PostgreSQL takes (the baseline below);
    # the proxy's own answer is the enforce refusal.
    echo "$mode: slowest answers (ms): $(echo "$over" | jq_ 'd["max_answer_by_kind_ms"]')"
    check "$mode: SHOW VERDICTS < 10 MB" "$(echo "$over" | jq_ 'int(d["show_verdicts_bytes"] < 10<<20)')" "$(echo "$over" | jq_ 'd["show_verdicts_bytes"]') bytes in $(echo "$over" | jq_ 'd["show_verdicts_rows"]') rows"
    if [ "$mode" = enforce ]; then
      check "enforce: refusal within budget" "$(echo "$over" | jq_ "int(d['max_answer_by_kind_ms']['tagged'] <= $limit_ms)")" "max $(echo "$over" | jq_ 'd["max_answer_by_kind_ms"]["tagged"]') ms over $N refusals"
      check "enforce refuses the tagged one" "$(echo "$over" | jq_ 'int("PGQ02" in d["outcomes"]["tagged"] and "too large" in d["outcomes"]["tagged"])')" "$(echo "$over" | jq_ 'd["outcomes"]["tagged"][:140]')"
    else
      check "annotate says not judged" "$(echo "$over" | jq_ 'int("too large" in d["outcomes"]["tagged"])')" "$(echo "$over" | jq_ 'd["outcomes"]["tagged"][:140]')"
    fi
    check "$mode: untagged runs" "$(echo "$over" | jq_ 'int(d["outcomes"]["untagged"] == "ran")')" "$(echo "$over" | jq_ 'd["outcomes"]["untagged"][:140]')"
    stop_proxy
  done

  echo "== baseline: the same statements straight to PostgreSQL (5 rounds)" >&2
  base=$("$work/bounded" oversize -addr "127.0.0.1:$PGPORT_" -pid 0 -admin-user "" -size "$SIZE" -n 5)
  echo "$base"
  echo "baseline: slowest answers (ms) straight to PostgreSQL: $(echo "$base" | jq_ 'd["max_answer_by_kind_ms"]')"

  echo "== restart after a 20 MB verdict_log line and a torn line" >&2
  intact=$(wc -l <"$work/verdicts.jsonl")
  python3 - "$work/verdicts.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({"time": "2026-01-01T00:00:00Z", "label": "equivalent", "query": "x" * (20 << 20)}) + "\n")
    f.write('{"time":"2026-01-01T00:00:01Z","label":"equiv')  # torn, no newline
PY
  start_proxy
  rows=$("$work/bounded" verdicts -addr "127.0.0.1:$PROXYPORT" | jq_ 'd["rows"]')
  want=$(( intact < 256 ? intact : 256 ))
  check "restart reads every intact verdict" "$([ "$rows" = "$want" ] && echo 1 || echo 0)" "$rows rows after restart, $intact intact lines (ring 256)"
  "$PSQL" -q -h 127.0.0.1 -p "$PROXYPORT" -U postgres -c "SELECT count(*) FROM dogs $(printf '%s' "/*pgequiv_ref='SELECT%20count(*)%20FROM%20dogs'*/")" kennel >/dev/null
  stop_proxy
  good=$(python3 - "$work/verdicts.jsonl" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1], "rb"):
    try:
        json.loads(line); n += 1
    except Exception:
        pass
print(n)
PY
)
  check "next verdict on a line of its own" "$([ "$good" = $((intact + 2)) ] && echo 1 || echo 0)" "$good parseable lines, want $((intact + 2)) ($intact + the 20 MB one + the new verdict)"
  grep -h "verdict log lines skipped" "$work/pgequiv.log" | tail -1 >&2 || true
fi

if [ "$ONLY" != oversize ]; then
  built="$work/pgequiv-built"
  cp "$work/pgequiv" "$built"
  if [ -n "${BOUNDED_DIRECT:-}" ]; then
    echo "== load straight to PostgreSQL: the same clients and statements for $LOAD_T" >&2
    "$work/bounded" load -addr "127.0.0.1:$PGPORT_" -annotate "${BOUNDED_ANNOTATE:-100}" -enforce "${BOUNDED_ENFORCE:-50}" -duration "$LOAD_T" -items "$ITEMS"
  fi
  for round in $(seq "${BOUNDED_ROUNDS:-1}"); do
    for bin in ${BOUNDED_BINS:-$built}; do
      cp "$bin" "$work/pgequiv"
      echo "== load (round $round, $bin): 100 annotate + 50 enforce clients for $LOAD_T" >&2
      rm -f "$work/verdicts.jsonl"
      write_config annotate all
      start_proxy
      ld=$("$work/bounded" load -addr "127.0.0.1:$PROXYPORT" -annotate "${BOUNDED_ANNOTATE:-100}" -enforce "${BOUNDED_ENFORCE:-50}" -duration "$LOAD_T" -items "$ITEMS")
      echo "$ld"
      for k in annotate enforce; do
        check "$k within budget ($bin)" "$(echo "$ld" | jq_ "int(d['max_ms'].get('$k', 1e9) <= $limit_ms)")" "max $(echo "$ld" | jq_ "d['max_ms'].get('$k')") ms, p99 $(echo "$ld" | jq_ "d['p99_ms'].get('$k')") ms, $(echo "$ld" | jq_ "d['answers'].get('$k')") answers"
      done
      stop_proxy
      # The proxy's own view: from a statement's arrival to its verdict
      # (the verdict log's latency_ms), by mode. An annotate answer also
      # waits for PostgreSQL to run the statement; this does not.
      python3 - "$work/verdicts.jsonl" <<'PY'
import json, sys
lat = {}
for line in open(sys.argv[1], errors="replace"):
    try:
        v = json.loads(line)
    except ValueError:
        continue
    lat.setdefault(v.get("mode", "?"), []).append(v.get("latency_ms", 0.0))
out = {}
for mode, xs in sorted(lat.items()):
    xs.sort()
    out[mode] = {"verdicts": len(xs), "p50_ms": xs[len(xs) // 2], "p99_ms": xs[min(len(xs) - 1, int(len(xs) * 0.99))], "max_ms": xs[-1]}
print(json.dumps({"verdict_latency": out}))
PY
    done
  done
fi
exit $fail
