# shellcheck shell=bash
# Sourced by scripts/bench-proxy.sh (it uses that script's helpers and
# work directory): telemetry on against off, side by side in one run.
#
# Two annotate-mode proxies relay to the same PostgreSQL: one without
# telemetry, one exporting OTLP traces and metrics to an endpoint that
# accepts connections and never answers (a Python socket holder, the
# worst case for an exporter: every export waits for its timeout) and
# serving /metrics. Each of BENCH_ROUNDS rounds runs, on each proxy, in an
# order that alternates:
#   pgbench -S -c $BENCH_TEL_CLIENTS (untagged throughput)
#   pgbench -f untagged.sql -c 1 and -f tagged.sql -c 1 (added p50 of a
#   tagged query, warm reference cache; every tagged query makes a span)
# and reports mean TPS, the on/off ratios, the added p50 with telemetry on
# and off, and the spans the proxy dropped (its own counter, from
# /metrics). Sets TELEMETRY_JSON; telemetry_table prints the table.

TEL_CLIENTS=${BENCH_TEL_CLIENTS:-8}
TEL_PROTOCOL=${BENCH_TEL_PROTOCOL:-grpc}

bench_telemetry() {
  TELOFFPORT=$(free_port); TELONPORT=$(free_port); BHPORT=$(free_port); METRICSPORT=$(free_port)
  python3 - "$BHPORT" <<'EOF' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1024)
held = []
while True:  # accept and never answer; ended by bench-proxy.sh's cleanup
    c, _ = s.accept()
    held.append(c)
EOF
  pids+=("$!")
  wait_port "$BHPORT" "silent OTLP endpoint"
  local base
  base=$(printf 'upstream:\n  address: 127.0.0.1:%s\n  tls_mode: disable\nlog_level: warn\nmode: annotate\nschema:\n  files: [%s]\n' "$PGPORT_" "$work/pgbench-schema.sql")
  printf 'listen: 127.0.0.1:%s\n%s\n' "$TELOFFPORT" "$base" >"$work/tel-off.yaml"
  printf 'listen: 127.0.0.1:%s\n%s\nmetrics_listen: 127.0.0.1:%s\ntelemetry:\n  endpoint: http://127.0.0.1:%s\n  protocol: %s\n  timeout: 2s\n  metric_interval: 5s\n' \
    "$TELONPORT" "$base" "$METRICSPORT" "$BHPORT" "$TEL_PROTOCOL" >"$work/tel-on.yaml"
  "$work/pgequiv" serve --config "$work/tel-off.yaml" 2>"$work/tel-off.log" &
  TELOFFPID=$!; pids+=("$TELOFFPID")
  "$work/pgequiv" serve --config "$work/tel-on.yaml" 2>"$work/tel-on.log" &
  TELONPID=$!; pids+=("$TELONPID")
  wait_port "$TELOFFPORT" "pgequiv, telemetry off"
  wait_port "$TELONPORT" "pgequiv, telemetry on"

  local r k cfg tps tx ticks rest
  declare -A tsum=() tlist=() tagsum=() txsum=() ticksum=()
  local order=(teloff telon)
  for ((r = 0; r < ROUNDS; r++)); do
    for ((k = 0; k < 2; k++)); do
      cfg=${order[$(((r + k) % 2))]}
      echo "== telemetry ${cfg#tel}: pgbench -S -c $TEL_CLIENTS, untagged and tagged -c 1 (round $((r + 1))/$ROUNDS)" >&2
      read -r tps tx ticks <<<"$(bench_once "$cfg" simple "$TEL_CLIENTS" -S)"
      txsum[$cfg]=$(( ${txsum[$cfg]:-0} + tx )); ticksum[$cfg]=$(( ${ticksum[$cfg]:-0} + ticks ))
      tsum[$cfg]=$(awk -v a="${tsum[$cfg]:-0}" -v b="$tps" 'BEGIN { printf "%.6f", a + b }')
      tlist[$cfg]+="$(printf '%.1f' "$tps"),"
      bench_once "${cfg}_untagged" simple 1 -f "$work/untagged.sql" >/dev/null
      read -r tps rest <<<"$(bench_once "${cfg}_tagged" simple 1 -f "$work/tagged.sql")"
      tagsum[$cfg]=$(awk -v a="${tagsum[$cfg]:-0}" -v b="$tps" 'BEGIN { printf "%.6f", a + b }')
    done
  done
  declare -gA TEL
  for cfg in teloff telon; do
    TEL[$cfg,tps]=$(awk -v a="${tsum[$cfg]}" -v n="$ROUNDS" 'BEGIN { printf "%.1f", a / n }')
    TEL[$cfg,tps_rounds]="[${tlist[$cfg]%,}]"
    TEL[$cfg,cpu]=$(awk -v t="${ticksum[$cfg]}" -v us="$TICK_US" -v n="${txsum[$cfg]}" 'BEGIN { printf "%.2f", t * us / n }')
    TEL[$cfg,tagged_tps]=$(awk -v a="${tagsum[$cfg]}" -v n="$ROUNDS" 'BEGIN { printf "%.1f", a / n }')
    read -r "TEL[$cfg,u_p50]" "TEL[$cfg,u_p99]" <<<"$(percentiles "${cfg}_untagged" simple 1)"
    read -r "TEL[$cfg,t_p50]" "TEL[$cfg,t_p99]" <<<"$(percentiles "${cfg}_tagged" simple 1)"
    TEL[$cfg,added]=$(awk -v a="${TEL[$cfg,t_p50]}" -v b="${TEL[$cfg,u_p50]}" 'BEGIN { printf "%.3f", a - b }')
  done
  local metrics dropped exported failures
  metrics=$(curl -sf "http://127.0.0.1:$METRICSPORT/metrics" || true)
  dropped=$(echo "$metrics" | awk '/^pgequiv_telemetry_spans_dropped_total/ {s += $NF} END {printf "%d", s}')
  exported=$(echo "$metrics" | awk '/^pgequiv_telemetry_spans_exported_total/ {s += $NF} END {printf "%d", s}')
  failures=$(echo "$metrics" | awk '/^pgequiv_telemetry_export_failures_total/ {s += $NF} END {printf "%d", s}')
  TEL[dropped]=$dropped; TEL[exported]=$exported; TEL[failures]=$failures
  TELEMETRY_JSON=$(printf '{"endpoint":"accepts, never answers","protocol":"%s","clients":%s,"rounds":%s,"off":{"tps":%s,"tps_by_round":%s,"cpu_us_per_tx":%s,"tagged_tps":%s,"untagged_p50_ms":%s,"tagged_p50_ms":%s,"added_p50_ms":%s},"on":{"tps":%s,"tps_by_round":%s,"cpu_us_per_tx":%s,"tagged_tps":%s,"untagged_p50_ms":%s,"tagged_p50_ms":%s,"added_p50_ms":%s},"tps_ratio_on_off":%s,"tagged_tps_ratio_on_off":%s,"spans_dropped":%s,"spans_exported":%s,"export_failures":%s}' \
    "$TEL_PROTOCOL" "$TEL_CLIENTS" "$ROUNDS" \
    "${TEL[teloff,tps]}" "${TEL[teloff,tps_rounds]}" "${TEL[teloff,cpu]}" "${TEL[teloff,tagged_tps]}" "${TEL[teloff,u_p50]}" "${TEL[teloff,t_p50]}" "${TEL[teloff,added]}" \
    "${TEL[telon,tps]}" "${TEL[telon,tps_rounds]}" "${TEL[telon,cpu]}" "${TEL[telon,tagged_tps]}" "${TEL[telon,u_p50]}" "${TEL[telon,t_p50]}" "${TEL[telon,added]}" \
    "$(ratio "${TEL[telon,tps]}" "${TEL[teloff,tps]}")" "$(ratio "${TEL[telon,tagged_tps]}" "${TEL[teloff,tagged_tps]}")" \
    "$dropped" "$exported" "$failures")
  kill "$TELOFFPID" "$TELONPID" 2>/dev/null || true
  wait "$TELOFFPID" "$TELONPID" 2>/dev/null || true
}

telemetry_table() {
  printf '%-10s %12s %-28s %13s %12s %14s %13s %13s\n' telemetry "tps(-c $TEL_CLIENTS)" tps_by_round cpu_us_per_tx tagged_tps untagged_p50 tagged_p50 added_p50_ms
  local cfg
  for cfg in teloff telon; do
    printf '%-10s %12s %-28s %13s %12s %14s %13s %13s\n' "${cfg#tel}" "${TEL[$cfg,tps]}" "${TEL[$cfg,tps_rounds]}" "${TEL[$cfg,cpu]}" "${TEL[$cfg,tagged_tps]}" \
      "${TEL[$cfg,u_p50]}" "${TEL[$cfg,t_p50]}" "${TEL[$cfg,added]}"
  done
  echo "telemetry on/off throughput: $(ratio "${TEL[telon,tps]}" "${TEL[teloff,tps]}") untagged, $(ratio "${TEL[telon,tagged_tps]}" "${TEL[teloff,tagged_tps]}") tagged; spans dropped ${TEL[dropped]}, exported ${TEL[exported]}, failed exports ${TEL[failures]}"
}
