# shellcheck shell=bash
# Sourced by scripts/bench-proxy.sh (it uses that script's helpers and
# work directory): telemetry on against off, side by side in one run.
#
# Two annotate-mode proxies relay to the same PostgreSQL: one without
# telemetry, one exporting OTLP traces and metrics to an endpoint that
# accepts connections and never answers (a Python socket holder, the
# worst case for an exporter: every export waits for its timeout) and
# serving /metrics. With BENCH_TEL_BASE=path/to/pgequiv, that binary (an
# older build, say) runs the same pair in the same run, so old and new are
# compared under the same load. Each of BENCH_ROUNDS rounds runs, on each
# proxy, in an order that rotates by round:
#   pgbench -S -c $BENCH_TEL_CLIENTS (untagged throughput, and the proxy's
#   CPU time per transaction over these runs only)
#   pgbench -f untagged.sql -c 1 and -f tagged.sql -c 1 (added p50 of a
#   tagged query, warm reference cache; every tagged query makes a span)
# and reports mean TPS, the on/off ratios, the added p50 with telemetry on
# and off, and the spans the proxy dropped (its own counter, from
# /metrics). With BENCH_TEL_PROFILE=dir each proxy writes a CPU profile of
# its whole run to dir/<config>.cpu.pprof at the end (serve --cpuprofile;
# compare with go tool pprof -top -diff_base dir/teloff.cpu.pprof
# dir/telon.cpu.pprof). BENCH_TEL_TAGGED=0 leaves out the single-client
# runs: no statement is tagged, so no span is made and a profile shows the
# untagged load alone. Sets TELEMETRY_JSON; telemetry_table prints the
# table.

TEL_CLIENTS=${BENCH_TEL_CLIENTS:-8}
TEL_PROTOCOL=${BENCH_TEL_PROTOCOL:-grpc}
TEL_BASE=${BENCH_TEL_BASE:-}
TEL_PROFILE=${BENCH_TEL_PROFILE:-}
TEL_TAGGED=${BENCH_TEL_TAGGED:-1}

# TEL_CFGS are the proxies measured: tel* run this tree's binary, base*
# run $BENCH_TEL_BASE.
TEL_CFGS=(teloff telon)
[ -n "$TEL_BASE" ] && TEL_CFGS+=(baseoff baseon)
declare -A TELPORT=() TELPID=()

# start_tel_proxy CFG: starts the proxy of CFG (binary, telemetry on or off).
start_tel_proxy() {
  local cfg=$1 bin="$work/pgequiv" prof=()
  [[ $cfg == base* ]] && bin=$TEL_BASE
  [ -n "$TEL_PROFILE" ] && prof=(--cpuprofile "$TEL_PROFILE/$cfg.cpu.pprof")
  TELPORT[$cfg]=$(free_port)
  if [[ $cfg == *on ]]; then
    printf 'listen: 127.0.0.1:%s\n%s\nmetrics_listen: 127.0.0.1:%s\ntelemetry:\n  endpoint: http://127.0.0.1:%s\n  protocol: %s\n  timeout: 2s\n  metric_interval: 5s\n' \
      "${TELPORT[$cfg]}" "$TEL_YAML_BASE" "${METRICSPORT[$cfg]}" "$BHPORT" "$TEL_PROTOCOL" >"$work/$cfg.yaml"
  else
    printf 'listen: 127.0.0.1:%s\n%s\n' "${TELPORT[$cfg]}" "$TEL_YAML_BASE" >"$work/$cfg.yaml"
  fi
  "$bin" serve --config "$work/$cfg.yaml" "${prof[@]}" 2>"$work/$cfg.log" &
  TELPID[$cfg]=$!; pids+=("$!")
  wait_port "${TELPORT[$cfg]}" "pgequiv $cfg"
}

bench_telemetry() {
  BHPORT=$(free_port)
  declare -gA METRICSPORT=([telon]=$(free_port) [baseon]=$(free_port))
  [ -n "$TEL_PROFILE" ] && mkdir -p "$TEL_PROFILE"
  python3 - "$BHPORT" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1024)
held = []
while True:  # accept and never answer; ended by bench-proxy.sh's cleanup
    c, _ = s.accept()
    held.append(c)
PY
  pids+=("$!")
  wait_port "$BHPORT" "silent OTLP endpoint"
  TEL_YAML_BASE=$(printf 'upstream:\n  address: 127.0.0.1:%s\n  tls_mode: disable\nlog_level: warn\nmode: annotate\nschema:\n  files: [%s]\n' "$PGPORT_" "$work/pgbench-schema.sql")
  local cfg
  for cfg in "${TEL_CFGS[@]}"; do start_tel_proxy "$cfg"; done

  local r k n=${#TEL_CFGS[@]} tps tx ticks rest
  declare -A tsum=() tlist=() tagsum=() txsum=() ticksum=()
  for ((r = 0; r < ROUNDS; r++)); do
    for ((k = 0; k < n; k++)); do
      cfg=${TEL_CFGS[$(((r + k) % n))]}
      echo "== $cfg: pgbench -S -c $TEL_CLIENTS, untagged and tagged -c 1 (round $((r + 1))/$ROUNDS)" >&2
      read -r tps tx ticks <<<"$(bench_once "$cfg" simple "$TEL_CLIENTS" -S)"
      txsum[$cfg]=$(( ${txsum[$cfg]:-0} + tx )); ticksum[$cfg]=$(( ${ticksum[$cfg]:-0} + ticks ))
      tsum[$cfg]=$(awk -v a="${tsum[$cfg]:-0}" -v b="$tps" 'BEGIN { printf "%.6f", a + b }')
      tlist[$cfg]+="$(printf '%.1f' "$tps"),"
      [ "$TEL_TAGGED" = 0 ] && continue
      bench_once "${cfg}_untagged" simple 1 -f "$work/untagged.sql" >/dev/null
      read -r tps rest <<<"$(bench_once "${cfg}_tagged" simple 1 -f "$work/tagged.sql")"
      tagsum[$cfg]=$(awk -v a="${tagsum[$cfg]:-0}" -v b="$tps" 'BEGIN { printf "%.6f", a + b }')
    done
  done
  declare -gA TEL
  for cfg in "${TEL_CFGS[@]}"; do
    TEL[$cfg,tps]=$(awk -v a="${tsum[$cfg]}" -v n="$ROUNDS" 'BEGIN { printf "%.1f", a / n }')
    TEL[$cfg,tps_rounds]="[${tlist[$cfg]%,}]"
    TEL[$cfg,cpu]=$(awk -v t="${ticksum[$cfg]}" -v us="$TICK_US" -v n="${txsum[$cfg]}" 'BEGIN { printf "%.2f", t * us / n }')
    TEL[$cfg,tagged_tps]=null TEL[$cfg,u_p50]=null TEL[$cfg,t_p50]=null TEL[$cfg,added]=null
    [ "$TEL_TAGGED" = 0 ] && continue
    TEL[$cfg,tagged_tps]=$(awk -v a="${tagsum[$cfg]}" -v n="$ROUNDS" 'BEGIN { printf "%.1f", a / n }')
    read -r "TEL[$cfg,u_p50]" "TEL[$cfg,u_p99]" <<<"$(percentiles "${cfg}_untagged" simple 1)"
    read -r "TEL[$cfg,t_p50]" "TEL[$cfg,t_p99]" <<<"$(percentiles "${cfg}_tagged" simple 1)"
    TEL[$cfg,added]=$(awk -v a="${TEL[$cfg,t_p50]}" -v b="${TEL[$cfg,u_p50]}" 'BEGIN { printf "%.3f", a - b }')
  done
  local on
  for on in telon baseon; do
    [ -n "${TELPID[$on]:-}" ] || continue
    local metrics
    metrics=$(curl -sf "http://127.0.0.1:${METRICSPORT[$on]}/metrics" || true)
    TEL[$on,dropped]=$(echo "$metrics" | awk '/^pgequiv_telemetry_spans_dropped_total/ {s += $NF} END {printf "%d", s}')
    TEL[$on,exported]=$(echo "$metrics" | awk '/^pgequiv_telemetry_spans_exported_total/ {s += $NF} END {printf "%d", s}')
    TEL[$on,failures]=$(echo "$metrics" | awk '/^pgequiv_telemetry_export_failures_total/ {s += $NF} END {printf "%d", s}')
  done
  TELEMETRY_JSON=$(tel_json tel)
  if [ -n "$TEL_BASE" ]; then
    TELEMETRY_JSON="${TELEMETRY_JSON%\}},\"base\":$(tel_json base)}"
  fi
  # SIGTERM: each proxy drains and writes its profile before it exits.
  for cfg in "${TEL_CFGS[@]}"; do kill "${TELPID[$cfg]}" 2>/dev/null || true; done
  for cfg in "${TEL_CFGS[@]}"; do wait "${TELPID[$cfg]}" 2>/dev/null || true; done
}

# tel_cfg_json CFG: one proxy's measurements as a JSON object.
tel_cfg_json() {
  printf '{"tps":%s,"tps_by_round":%s,"cpu_us_per_tx":%s,"tagged_tps":%s,"untagged_p50_ms":%s,"tagged_p50_ms":%s,"added_p50_ms":%s}' \
    "${TEL[$1,tps]}" "${TEL[$1,tps_rounds]}" "${TEL[$1,cpu]}" "${TEL[$1,tagged_tps]}" "${TEL[$1,u_p50]}" "${TEL[$1,t_p50]}" "${TEL[$1,added]}"
}

# tel_json PREFIX: the on/off comparison of one binary (tel: this tree's,
# base: $BENCH_TEL_BASE) as a JSON object.
tel_json() {
  local p=$1
  printf '{"endpoint":"accepts, never answers","protocol":"%s","clients":%s,"rounds":%s,"off":%s,"on":%s,"tps_ratio_on_off":%s,"cpu_ratio_on_off":%s,"tagged_tps_ratio_on_off":%s,"spans_dropped":%s,"spans_exported":%s,"export_failures":%s}' \
    "$TEL_PROTOCOL" "$TEL_CLIENTS" "$ROUNDS" "$(tel_cfg_json "${p}off")" "$(tel_cfg_json "${p}on")" \
    "$(ratio "${TEL[${p}on,tps]}" "${TEL[${p}off,tps]}")" "$(ratio "${TEL[${p}on,cpu]}" "${TEL[${p}off,cpu]}")" \
    "$(ratio "${TEL[${p}on,tagged_tps]}" "${TEL[${p}off,tagged_tps]}")" \
    "${TEL[${p}on,dropped]:-null}" "${TEL[${p}on,exported]:-null}" "${TEL[${p}on,failures]:-null}"
}

telemetry_table() {
  printf '%-10s %12s %-28s %13s %12s %14s %13s %13s\n' telemetry "tps(-c $TEL_CLIENTS)" tps_by_round cpu_us_per_tx tagged_tps untagged_p50 tagged_p50 added_p50_ms
  local cfg p
  for cfg in "${TEL_CFGS[@]}"; do
    printf '%-10s %12s %-28s %13s %12s %14s %13s %13s\n' "$cfg" "${TEL[$cfg,tps]}" "${TEL[$cfg,tps_rounds]}" "${TEL[$cfg,cpu]}" "${TEL[$cfg,tagged_tps]}" \
      "${TEL[$cfg,u_p50]}" "${TEL[$cfg,t_p50]}" "${TEL[$cfg,added]}"
  done
  for p in tel base; do
    [ -n "${TEL[${p}on,tps]:-}" ] || continue
    echo "$p: telemetry on/off throughput $(ratio "${TEL[${p}on,tps]}" "${TEL[${p}off,tps]}") untagged, $(ratio "${TEL[${p}on,tagged_tps]}" "${TEL[${p}off,tagged_tps]}") tagged; CPU per transaction on/off $(ratio "${TEL[${p}on,cpu]}" "${TEL[${p}off,cpu]}"); spans dropped ${TEL[${p}on,dropped]}, exported ${TEL[${p}on,exported]}, failed exports ${TEL[${p}on,failures]}"
  done
}
