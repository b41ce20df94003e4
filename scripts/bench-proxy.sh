#!/usr/bin/env bash
# Benchmarks the pgequiv relay against a direct connection and PgBouncer.
#
# Starts, on loopback, a throwaway PostgreSQL (initdb/postgres, as the
# postgres OS user when run as root), `pgequiv serve` relaying to it, and
# PgBouncer (session pooling) in front of it, then runs
#   pgbench -S -j 2 -T $BENCH_T    (select-only, untagged)
# at 1, 8 and 64 clients against each, with -M simple and -M prepared,
# in BENCH_ROUNDS rounds whose target order rotates (the machine's noise
# moves single runs by ±10%), reporting mean TPS, p50/p99 over all rounds,
# and each relay's process CPU time per transaction.
# Per-transaction latencies come from pgbench -l (sampled, see
# BENCH_SAMPLING) and give p50/p99. Also measured: the proxy's RSS with 500
# idle connections (scripts/idleconns), and, when the relay has an
# annotate mode, the p50 latency a tagged query adds over an untagged one
# with a warm reference cache, with judge_isolation process and none; and
# telemetry on (OTLP to an endpoint that never answers, /metrics served)
# against off in the same run (scripts/bench-proxy-telemetry.sh).
#
# Prints a table and then JSON (the last line of stdout is the JSON).
#
# Environment:
#   BENCH_T=20          seconds per pgbench run
#   BENCH_ROUNDS=3      rounds per (mode, clients) cell, target order rotated
#   BENCH_SCALE=1       pgbench scale factor
#   BENCH_CLIENTS="1 8 64"
#   BENCH_SAMPLING=0.1  fraction of transactions logged for percentiles
#   BENCH_IDLE=500      idle connections for the RSS measurement
#   BENCH_KEEP=1        keep the work directory (logs)
#   BENCH_ONLY=telemetry  run only the telemetry on/off comparison
#   BENCH_ONLY=annotate   run only the tagged-query (annotate mode) measurements
#   BENCH_ONLY=throughput run only the direct/pgequiv/PgBouncer cells (the
#                         table; no RSS, annotate or telemetry step)
#   BENCH_TEL_CLIENTS=8 clients of its untagged throughput runs
#   BENCH_TEL_BASE=path   another pgequiv binary run beside this tree's in
#                         the telemetry comparison (old against new)
#   BENCH_TEL_PROFILE=dir CPU profiles of the telemetry step's proxies
#   BENCH_TEL_TAGGED=0    telemetry step without its tagged single-client runs
#   BENCH_AA=1          a second pgequiv, the same binary and configuration,
#                       runs as a fourth target in the throughput cells: its
#                       ratios to the first (ideally 1.000) show in the same
#                       run how far this machine's noise moves the figures
#                       (the "A/A" columns and "aa" in the JSON)
#   BENCH_AA_BIN=path   with BENCH_AA, run that pgequiv binary (an older
#                       build, say) as the second target instead: the
#                       "A/A" columns then compare it with this tree's
#                       (new / old), beside a plain A/A run for the noise
set -euo pipefail
cd "$(dirname "$0")/.."

T=${BENCH_T:-20}
ROUNDS=${BENCH_ROUNDS:-3}
SCALE=${BENCH_SCALE:-1}
CLIENTS=${BENCH_CLIENTS:-"1 8 64"}
SAMPLING=${BENCH_SAMPLING:-0.1}
IDLE=${BENCH_IDLE:-500}

die() { echo "bench-proxy: $*" >&2; exit 1; }

# shellcheck source=scripts/lib/pgserver.sh
. scripts/lib/pgserver.sh # bindir, as_pg, free_port, wait_port
PGBENCH=$(command -v pgbench || echo "$bindir/pgbench")
PSQL=$(command -v psql || echo "$bindir/psql")
PGBOUNCER=$(command -v pgbouncer || ls /usr/sbin/pgbouncer 2>/dev/null || true)
[ -x "$PGBENCH" ] || die "pgbench not found"
[ -n "$PGBOUNCER" ] || die "pgbouncer not found (apt-get install pgbouncer)"

work=$(mktemp -d /tmp/bench-proxy.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -f "$work/pgbouncer.pid" ]; then kill "$(cat "$work/pgbouncer.pid")" 2>/dev/null || true; fi
  if [ -f "$work/data/postmaster.pid" ]; then as_pg "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; fi
  if [ -z "${BENCH_KEEP:-}" ]; then rm -rf "$work"; else echo "bench-proxy: kept $work" >&2; fi
}
trap cleanup EXIT

PGPORT_=$(free_port); PROXYPORT=$(free_port); BOUNCERPORT=$(free_port); ANNPORT=$(free_port); PROXY2PORT=$(free_port)
[ "$(id -u)" = 0 ] && chown postgres: "$work"

echo "== starting PostgreSQL ($bindir) on $PGPORT_" >&2
as_pg "$bindir/initdb" -D "$work/data" -U postgres -A trust -E UTF8 --no-locale --no-sync >"$work/initdb.log" 2>&1
cat >>"$work/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PGPORT_
unix_socket_directories = '$work'
max_connections = $((2 * IDLE + 100))
shared_buffers = 128MB
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
as_pg "$bindir/pg_ctl" -D "$work/data" -l "$work/postgres.log" -w start >/dev/null
wait_port "$PGPORT_" postgres

echo "== pgbench -i -s $SCALE" >&2
PGSSLMODE=disable "$PGBENCH" -i -s "$SCALE" -q -h 127.0.0.1 -p "$PGPORT_" -U postgres postgres >"$work/init.log" 2>&1

echo "== building and starting pgequiv on $PROXYPORT" >&2
go build -o "$work/pgequiv" ./cmd/pgequiv
go build -o "$work/idleconns" ./scripts/idleconns
cat >"$work/proxy.yaml" <<EOF
listen: 127.0.0.1:$PROXYPORT
upstream:
  address: 127.0.0.1:$PGPORT_
  tls_mode: disable
log_level: warn
EOF
"$work/pgequiv" serve --config "$work/proxy.yaml" 2>"$work/pgequiv.log" &
PROXYPID=$!; pids+=("$PROXYPID")
wait_port "$PROXYPORT" pgequiv
PROXY2PID=""
if [ -n "${BENCH_AA:-}" ]; then
  sed "s/^listen: .*/listen: 127.0.0.1:$PROXY2PORT/" "$work/proxy.yaml" >"$work/proxy2.yaml"
  "${BENCH_AA_BIN:-$work/pgequiv}" serve --config "$work/proxy2.yaml" 2>"$work/pgequiv2.log" &
  PROXY2PID=$!; pids+=("$PROXY2PID")
  wait_port "$PROXY2PORT" "pgequiv (A/A)"
fi

echo "== starting PgBouncer (session pooling) on $BOUNCERPORT" >&2
echo '"postgres" ""' >"$work/userlist.txt"  # trust still needs the user listed
cat >"$work/pgbouncer.ini" <<EOF
[databases]
postgres = host=127.0.0.1 port=$PGPORT_ dbname=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCERPORT
unix_socket_dir =
auth_type = trust
auth_file = $work/userlist.txt
pool_mode = session
default_pool_size = $((IDLE + 50))
max_client_conn = $((IDLE + 100))
logfile = $work/pgbouncer.log
pidfile = $work/pgbouncer.pid
server_tls_sslmode = disable
ignore_startup_parameters = extra_float_digits
EOF
[ "$(id -u)" = 0 ] && chown postgres: "$work"/userlist.txt "$work"/pgbouncer.ini
as_pg "$PGBOUNCER" "$work/pgbouncer.ini" >"$work/pgbouncer.out" 2>&1 &
BOUNCERPID=$!; pids+=("$BOUNCERPID")
wait_port "$BOUNCERPORT" pgbouncer

port_of() {
  case $1 in direct) echo "$PGPORT_" ;; pgequiv) echo "$PROXYPORT" ;; pgequiv2) echo "$PROXY2PORT" ;; pgbouncer) echo "$BOUNCERPORT" ;; annotate) echo "$ANNPORT" ;;
    tel*|base*) echo "${TELPORT[${1%%_*}]}" ;; esac
}

# pid_of TARGET: the process whose CPU time is charged to the target
# (empty for direct: the server's own cost is not a relay's).
pid_of() {
  case $1 in pgequiv) echo "$PROXYPID" ;; pgequiv2) echo "$PROXY2PID" ;; pgbouncer) cat "$work/pgbouncer.pid" ;; annotate) echo "$ANNPID" ;;
    tel*|base*) echo "${TELPID[${1%%_*}]}" ;; esac
}

# cpu_ticks PID: user+system CPU time of PID in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICK_US=$(awk -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.6f", 1e6 / hz }')

# bench_once TARGET MODE CLIENTS [extra pgbench args...]: one pgbench run;
# appends its sampled latencies (µs) to $work/lat/TARGET_MODE_CLIENTS and
# prints "tps transactions cpu_ticks" (cpu_ticks empty for direct).
bench_once() {
  local target=$1 mode=$2 c=$3; shift 3
  local j=$(( c < 2 ? c : 2 ))
  local dir="$work/runs/${target}_${mode}_${c}_$RANDOM"
  mkdir -p "$dir" "$work/lat"
  local pid t0="" t1="" out
  pid=$(pid_of "$target")
  [ -n "$pid" ] && t0=$(cpu_ticks "$pid")
  # pgbench writes straight to a file: libpq prints every NOTICE (one per
  # tagged statement in annotate mode) to stderr, and a shell reading them
  # through a pipe would compete with the benchmark for the CPUs.
  (cd "$dir" && PGSSLMODE=disable "$PGBENCH" -n -j "$j" -c "$c" -T "$T" -M "$mode" \
    -l --sampling-rate="$SAMPLING" --log-prefix="$dir/txlog" "$@" \
    -h 127.0.0.1 -p "$(port_of "$target")" -U postgres postgres >"$dir/pgbench.out" 2>&1) ||
    die "pgbench $target -M $mode -c $c failed: $(grep -v '^NOTICE\|^DETAIL\|^HINT' "$dir/pgbench.out" | tail -20)"
  [ -n "$pid" ] && t1=$(cpu_ticks "$pid")
  out=$(grep -E '^tps = |number of transactions actually processed' "$dir/pgbench.out")
  local tps tx
  tps=$(echo "$out" | awk '/^tps = / {print $3; exit}')
  tx=$(echo "$out" | awk '/number of transactions actually processed/ {split($NF, a, "/"); print a[1]; exit}')
  # Column 3 of pgbench's per-transaction log is the latency in µs.
  cat "$dir"/txlog.* | awk '{print $3}' >>"$work/lat/${target}_${mode}_${c}"
  local ticks=""
  [ -n "$pid" ] && ticks=$((t1 - t0))
  echo "$tps $tx $ticks"
}

# percentiles TARGET MODE CLIENTS: prints "p50_ms p99_ms" over every
# round's sampled latencies.
percentiles() {
  local f="$work/lat/$1_$2_$3"
  sort -n "$f" -o "$f"
  local n
  n=$(wc -l <"$f")
  [ "$n" -gt 0 ] || die "no latencies logged for $1 -M $2 -c $3"
  awk -v n="$n" 'NR == int((n-1)*0.50)+1 {p50 = $1} NR == int((n-1)*0.99)+1 {p99 = $1} END {printf "%.3f %.3f", p50/1000, p99/1000}' "$f"
}

# bench TARGET MODE CLIENTS [extra pgbench args...]: one run, for the
# annotate measurement; prints "tps p50_ms p99_ms".
bench() {
  local target=$1 mode=$2 c=$3; shift 3
  local res tps
  rm -f "$work/lat/${target}_${mode}_${c}"
  res=$(bench_once "$target" "$mode" "$c" "$@")
  tps=${res%% *}
  echo "$tps $(percentiles "$target" "$mode" "$c")"
}

# The schema and pgbench scripts of the tagged-query measurements.
cat >"$work/pgbench-schema.sql" <<'EOF'
CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int, filler char(88));
CREATE TABLE pgbench_tellers (tid int PRIMARY KEY, bid int REFERENCES pgbench_branches, tbalance int, filler char(84));
CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int REFERENCES pgbench_branches, abalance int, filler char(84));
CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
EOF
# The reference is bound from the statement's constant ($1: its first
# constant, as pg_stat_statements numbers them), so every execution is
# equivalent to it whatever aid pgbench draws. (A reference with a fixed
# aid = 1 differs from all but one execution: no proof can cover them.)
ref='SELECT%20a.abalance%20FROM%20pgbench_accounts%20a%20WHERE%20a.aid%20%3D%20%241'
printf '\\set aid random(1, %d)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n' $((100000 * SCALE)) >"$work/untagged.sql"
printf "\\\\set aid random(1, %d)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid /*pgequiv_ref='%s'*/;\n" $((100000 * SCALE)) "$ref" >"$work/tagged.sql"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "null" && b + 0 > 0) printf "%.3f", a / b; else print "null" }'; }

echo "== warm-up" >&2
PGSSLMODE=disable "$PGBENCH" -n -S -c 4 -j 2 -T 2 -h 127.0.0.1 -p "$PGPORT_" -U postgres postgres >/dev/null 2>&1

# Tagged queries in annotate mode, warm reference cache, with the judge in
# worker processes (judge_isolation: process, the default) and in-process
# (none), one after the other in this run: needs the relay's annotate mode
# (mode: annotate); skipped with a message when this build's config does
# not accept it.
bench_annotate() {
declare -gA ANNOTATE
for iso in process none; do
  ANNOTATE[$iso]='{"status":"skipped","reason":"not run"}'
  cat >"$work/annotate-$iso.yaml" <<EOF
listen: 127.0.0.1:$ANNPORT
upstream:
  address: 127.0.0.1:$PGPORT_
  tls_mode: disable
log_level: warn
mode: annotate
judge_isolation: $iso
schema:
  files: [$work/pgbench-schema.sql]
admin:
  users: [postgres]
  auth: trust
EOF
  "$work/pgequiv" serve --config "$work/annotate-$iso.yaml" 2>"$work/annotate-$iso.log" &
  ANNPID=$!; pids+=("$ANNPID")
  ann_started=""
  for i in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$ANNPORT") 2>/dev/null; then ann_started=1; break; fi
    kill -0 "$ANNPID" 2>/dev/null || break
    sleep 0.1
  done
  if [ -n "$ann_started" ]; then
    echo "== annotate mode, judge_isolation $iso: untagged vs tagged, 1 client" >&2
    res=$(bench annotate simple 1 -f "$work/untagged.sql"); read -r u_tps u_p50 u_p99 <<<"$res"
    res=$(bench annotate simple 1 -f "$work/tagged.sql"); read -r t_tps t_p50 t_p99 <<<"$res"
    added=$(awk -v a="$t_p50" -v b="$u_p50" 'BEGIN { printf "%.3f", a - b }')
    # The proof cache's hit rate over the tagged run (SHOW STATS).
    hits=$(PGSSLMODE=disable psql -X -At -h 127.0.0.1 -p "$ANNPORT" -U postgres -d pgequiv -c 'SHOW STATS' 2>/dev/null | awk -F'|' '$1 == "proof_cache_hits" { print $2 }')
    misses=$(PGSSLMODE=disable psql -X -At -h 127.0.0.1 -p "$ANNPORT" -U postgres -d pgequiv -c 'SHOW STATS' 2>/dev/null | awk -F'|' '$1 == "proof_cache_misses" { print $2 }')
    hit_rate=$(awk -v h="${hits:-0}" -v m="${misses:-0}" 'BEGIN { if (h + m > 0) printf "%.4f", h / (h + m); else print "null" }')
    ANNOTATE[$iso]=$(printf '{"status":"measured","judge_isolation":"%s","clients":1,"untagged_tps":%s,"tagged_tps":%s,"untagged_p50_ms":%s,"tagged_p50_ms":%s,"added_p50_ms":%s,"untagged_p99_ms":%s,"tagged_p99_ms":%s,"tagged_vs_untagged_tps":%s,"proof_cache_hits":%s,"proof_cache_misses":%s,"proof_cache_hit_rate":%s}' \
      "$iso" "$u_tps" "$t_tps" "$u_p50" "$t_p50" "$added" "$u_p99" "$t_p99" "$(ratio "$t_tps" "$u_tps")" "${hits:-null}" "${misses:-null}" "$hit_rate")
  else
    reason=$(tr -d '"\\' <"$work/annotate-$iso.log" | tr '\n\t' '  ' | cut -c1-300)
    echo "== annotate mode, judge_isolation $iso: skipped: this pgequiv does not run it ($reason)" >&2
    ANNOTATE[$iso]=$(printf '{"status":"skipped","reason":"mode: annotate with judge_isolation %s not available in this build: %s"}' "$iso" "$reason")
  fi
  kill "$ANNPID" 2>/dev/null || true
  wait "$ANNPID" 2>/dev/null || true
done
ANNOTATE_JSON=${ANNOTATE[process]}
ANNOTATE_NONE_JSON=${ANNOTATE[none]}
}

if [ "${BENCH_ONLY:-}" = annotate ]; then
  bench_annotate
  echo "$ANNOTATE_JSON"
  echo "$ANNOTATE_NONE_JSON"
  exit 0
fi

# Telemetry on (against an endpoint that never answers) vs off, side by
# side: scripts/bench-proxy-telemetry.sh. BENCH_ONLY=telemetry runs only
# that comparison.
# shellcheck source=scripts/bench-proxy-telemetry.sh
source scripts/bench-proxy-telemetry.sh
if [ "${BENCH_ONLY:-}" = telemetry ]; then
  bench_telemetry
  echo
  telemetry_table
  echo "$TELEMETRY_JSON"
  exit 0
fi

# Each (mode, clients) cell runs ROUNDS rounds; round r starts the
# rotation direct, pgequiv, pgbouncer at position r, so no target always
# runs first or right after another. TPS is the mean over rounds; CPU per
# transaction is the relay process's CPU time over all its transactions.
declare -A TPS P50 P99 CPU TPSR
targets=(direct pgequiv pgbouncer)
[ -n "${BENCH_AA:-}" ] && targets+=(pgequiv2)
nt=${#targets[@]}
for mode in simple prepared; do
  for c in $CLIENTS; do
    declare -A sum_tps=() sum_tx=() sum_ticks=() list=()
    for ((r = 0; r < ROUNDS; r++)); do
      for ((k = 0; k < nt; k++)); do
        target=${targets[$(((r + k) % nt))]}
        echo "== pgbench -S -M $mode -c $c -T $T: $target (round $((r + 1))/$ROUNDS)" >&2
        read -r tps tx ticks <<<"$(bench_once "$target" "$mode" "$c" -S)"
        sum_tps[$target]=$(awk -v a="${sum_tps[$target]:-0}" -v b="$tps" 'BEGIN { printf "%.6f", a + b }')
        sum_tx[$target]=$(( ${sum_tx[$target]:-0} + tx ))
        [ -n "$ticks" ] && sum_ticks[$target]=$(( ${sum_ticks[$target]:-0} + ticks ))
        list[$target]+="$(printf '%.1f' "$tps"),"
      done
    done
    for target in "${targets[@]}"; do
      TPS[$target,$mode,$c]=$(awk -v a="${sum_tps[$target]}" -v n="$ROUNDS" 'BEGIN { printf "%.1f", a / n }')
      TPSR[$target,$mode,$c]="[${list[$target]%,}]"
      read -r p50 p99 <<<"$(percentiles "$target" "$mode" "$c")"
      P50[$target,$mode,$c]=$p50; P99[$target,$mode,$c]=$p99
      if [ -n "${sum_ticks[$target]:-}" ]; then
        CPU[$target,$mode,$c]=$(awk -v t="${sum_ticks[$target]}" -v us="$TICK_US" -v n="${sum_tx[$target]}" 'BEGIN { printf "%.2f", t * us / n }')
      else
        CPU[$target,$mode,$c]=null
      fi
    done
    unset sum_tps sum_tx sum_ticks list
  done
done

if [ "${BENCH_ONLY:-}" = throughput ]; then
  RSS_PGEQUIV=null; RSS_PGBOUNCER=null
  ANNOTATE_JSON='{"status":"skipped","reason":"BENCH_ONLY=throughput"}'; ANNOTATE_NONE_JSON=$ANNOTATE_JSON; TELEMETRY_JSON=null
else
echo "== RSS with $IDLE idle connections" >&2
RSS_PGEQUIV=$("$work/idleconns" -addr "127.0.0.1:$PROXYPORT" -n "$IDLE" -pid "$PROXYPID")
RSS_PGBOUNCER=$("$work/idleconns" -addr "127.0.0.1:$BOUNCERPORT" -n "$IDLE" -pid "$(cat "$work/pgbouncer.pid")" || echo null)

bench_annotate

bench_telemetry
fi

# Table.
echo
printf '%-9s %-5s %-9s %12s %9s %9s %14s %12s  %s\n' mode conns target tps p50_ms p99_ms ratio_vs_direct cpu_us_per_tx tps_by_round
for mode in simple prepared; do
  for c in $CLIENTS; do
    for target in "${targets[@]}"; do
      printf '%-9s %-5s %-9s %12.1f %9s %9s %14s %12s  %s\n' "$mode" "$c" "$target" "${TPS[$target,$mode,$c]}" \
        "${P50[$target,$mode,$c]}" "${P99[$target,$mode,$c]}" "$(ratio "${TPS[$target,$mode,$c]}" "${TPS[direct,$mode,$c]}")" \
        "${CPU[$target,$mode,$c]}" "${TPSR[$target,$mode,$c]}"
    done
  done
done
# Issue 24's figures per cell (throughput >= 1.0x PgBouncer's, p99 <= 1.1x
# PgBouncer's) and, with BENCH_AA, the same two ratios between the two
# identical proxies.
echo
for mode in simple prepared; do
  for c in $CLIENTS; do
    line=$(printf '%-9s %-5s pgequiv/pgbouncer throughput %s p99 %s' "$mode" "$c" \
      "$(ratio "${TPS[pgequiv,$mode,$c]}" "${TPS[pgbouncer,$mode,$c]}")" "$(ratio "${P99[pgequiv,$mode,$c]}" "${P99[pgbouncer,$mode,$c]}")")
    if [ -n "${BENCH_AA:-}" ]; then
      line+=$(printf '   A/A pgequiv2/pgequiv throughput %s p99 %s' \
        "$(ratio "${TPS[pgequiv2,$mode,$c]}" "${TPS[pgequiv,$mode,$c]}")" "$(ratio "${P99[pgequiv2,$mode,$c]}" "${P99[pgequiv,$mode,$c]}")")
    fi
    echo "$line"
  done
done
echo "RSS, $IDLE idle connections: pgequiv $RSS_PGEQUIV; pgbouncer $RSS_PGBOUNCER"
echo "annotate (judge_isolation process): $ANNOTATE_JSON"
echo "annotate (judge_isolation none): $ANNOTATE_NONE_JSON"
[ "${BENCH_ONLY:-}" = throughput ] || telemetry_table
echo

# JSON (last line).
runs=""
for mode in simple prepared; do
  for c in $CLIENTS; do
    for target in "${targets[@]}"; do
      runs+=$(printf '{"target":"%s","mode":"%s","clients":%s,"tps":%s,"tps_by_round":%s,"p50_ms":%s,"p99_ms":%s,"cpu_us_per_tx":%s},' \
        "$target" "$mode" "$c" "${TPS[$target,$mode,$c]}" "${TPSR[$target,$mode,$c]}" "${P50[$target,$mode,$c]}" "${P99[$target,$mode,$c]}" "${CPU[$target,$mode,$c]}")
    done
  done
done
ratios=""
for mode in simple prepared; do
  ratios+="\"$mode\":{"
  for c in $CLIENTS; do
    aa=""
    if [ -n "${BENCH_AA:-}" ]; then
      aa=$(printf ',"aa_tps":%s,"aa_p99":%s' "$(ratio "${TPS[pgequiv2,$mode,$c]}" "${TPS[pgequiv,$mode,$c]}")" \
        "$(ratio "${P99[pgequiv2,$mode,$c]}" "${P99[pgequiv,$mode,$c]}")")
    fi
    ratios+=$(printf '"%s":{"pgequiv_direct":%s,"pgbouncer_direct":%s,"pgequiv_pgbouncer":%s,"p99_pgequiv_pgbouncer":%s%s},' "$c" \
      "$(ratio "${TPS[pgequiv,$mode,$c]}" "${TPS[direct,$mode,$c]}")" \
      "$(ratio "${TPS[pgbouncer,$mode,$c]}" "${TPS[direct,$mode,$c]}")" \
      "$(ratio "${TPS[pgequiv,$mode,$c]}" "${TPS[pgbouncer,$mode,$c]}")" \
      "$(ratio "${P99[pgequiv,$mode,$c]}" "${P99[pgbouncer,$mode,$c]}")" "$aa")
  done
  ratios="${ratios%,}},"
done
vs8="null"; vs8p="null"
if [ -n "${TPS[pgequiv,simple,8]:-}" ]; then
  vs8=$(ratio "${TPS[pgequiv,simple,8]}" "${TPS[pgbouncer,simple,8]}")
  vs8p=$(ratio "${TPS[pgequiv,prepared,8]}" "${TPS[pgbouncer,prepared,8]}")
fi
printf '{"benchmark":"pgbench -S -j 2 -T %s","rounds":%s,"scale":%s,"cores":%s,"sampling_rate":%s,"runs":[%s],"ratios":{%s},"pgequiv_vs_pgbouncer":%s,"pgequiv_vs_pgbouncer_prepared":%s,"rss_idle":{"pgequiv":%s,"pgbouncer":%s},"annotate_tagged":%s,"annotate_tagged_none":%s,"telemetry":%s}\n' \
  "$T" "$ROUNDS" "$SCALE" "$(nproc)" "$SAMPLING" "${runs%,}" "${ratios%,}" "$vs8" "$vs8p" "$RSS_PGEQUIV" "$RSS_PGBOUNCER" "$ANNOTATE_JSON" "$ANNOTATE_NONE_JSON" "$TELEMETRY_JSON"
