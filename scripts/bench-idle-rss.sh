#!/usr/bin/env bash
# Compares the resident memory two pgequiv binaries spend per idle relayed
# connection (issue 24 item 4: 500 idle connections, <= 4 KB each).
#
#   scripts/bench-idle-rss.sh OLD_PGEQUIV NEW_PGEQUIV
#
# Starts a throwaway PostgreSQL on loopback (initdb/postgres, as the
# postgres OS user when run as root), then, for IDLE_ROUNDS rounds, a FRESH
# `pgequiv serve` of each binary in turn (the order alternates by round),
# opens IDLE_N idle connections through it with scripts/idleconns, and
# records the VmRSS growth per connection. A fresh process matters: one
# that served load before has free heap that new connections reuse, which
# hides their cost. Before the first reading, IDLE_WARMUP connections are
# opened and closed one after another: the first connection faults in the
# code pages of the connection path (VmRSS counts the executable's file
# pages) and builds what the proxy builds lazily, costs paid once per
# process, not per connection. Their free heap is a few KB, not the
# hundreds of KB that load leaves.
#
# Prints one line per run (KB per connection of VmRSS and of RssAnon, the
# anonymous memory alone) and then a summary per binary (VmRSS KB per
# connection: each round, and the mean).
#
# Environment:
#   IDLE_N=500        idle connections
#   IDLE_ROUNDS=4     rounds (each binary once per round)
#   IDLE_SETTLE=1s    wait with all connections open before reading RSS
#   IDLE_WARMUP=4     connections opened and closed before the first reading
#                     (0: count the first connection's one-time costs too)
#   IDLE_MORE=0       then open this many more and read again: the growth
#                     per added connection is the cost at the margin,
#                     without the one-time costs the first IDLE_N share
#                     (the Go heap's first growth, runtime structures)
#   IDLE_KEEP=1       keep the work directory (logs)
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 OLD_PGEQUIV NEW_PGEQUIV" >&2; exit 2; }
OLD=$(readlink -f "$1")
NEW=$(readlink -f "$2")
cd "$(dirname "$0")/.."

N=${IDLE_N:-500}
ROUNDS=${IDLE_ROUNDS:-4}
SETTLE=${IDLE_SETTLE:-1s}
WARMUP=${IDLE_WARMUP:-4}
MORE=${IDLE_MORE:-0}

die() { echo "bench-idle-rss: $*" >&2; exit 1; }
[ -x "$OLD" ] || die "$1 is not an executable"
[ -x "$NEW" ] || die "$2 is not an executable"

# shellcheck source=scripts/lib/pgserver.sh
. scripts/lib/pgserver.sh # bindir, as_pg, free_port, wait_port

work=$(mktemp -d /tmp/bench-idle-rss.XXXXXX)
chmod 755 "$work"
proxypid=""
cleanup() {
  if [ -n "$proxypid" ]; then kill "$proxypid" 2>/dev/null || true; fi
  if [ -f "$work/data/postmaster.pid" ]; then as_pg "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; fi
  if [ -z "${IDLE_KEEP:-}" ]; then rm -rf "$work"; else echo "bench-idle-rss: kept $work" >&2; fi
}
trap cleanup EXIT

PGPORT_=$(free_port)
[ "$(id -u)" = 0 ] && chown postgres: "$work"
echo "== starting PostgreSQL ($bindir) on $PGPORT_" >&2
as_pg "$bindir/initdb" -D "$work/data" -U postgres -A trust -E UTF8 --no-locale --no-sync >"$work/initdb.log" 2>&1
cat >>"$work/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PGPORT_
unix_socket_directories = '$work'
max_connections = $((N + MORE + 50))
fsync = off
EOF
as_pg "$bindir/pg_ctl" -D "$work/data" -l "$work/postgres.log" -w start >/dev/null
wait_port "$PGPORT_" postgres

go build -o "$work/idleconns" ./scripts/idleconns

# measure BIN LABEL ROUND starts a fresh proxy of BIN, opens the idle
# connections, stops the proxy and prints "LABEL ROUND KB_PER_CONN".
measure() {
  local bin=$1 label=$2 round=$3 port out before after abefore aafter
  port=$(free_port)
  cat >"$work/proxy-$label.yaml" <<EOF
listen: 127.0.0.1:$port
upstream:
  address: 127.0.0.1:$PGPORT_
  tls_mode: disable
log_level: warn
EOF
  # The proxy must not hold this function's stdout: measure runs inside a
  # command substitution, which would wait for the proxy to exit.
  "$bin" serve --config "$work/proxy-$label.yaml" >/dev/null 2>>"$work/pgequiv-$label.log" &
  proxypid=$!
  wait_port "$port" "pgequiv $label"
  if ! out=$("$work/idleconns" -addr "127.0.0.1:$port" -n "$N" -more "$MORE" -warmup "$WARMUP" -pid "$proxypid" -settle "$SETTLE"); then
    kill "$proxypid" 2>/dev/null || true
    die "idleconns against $label failed"
  fi
  kill "$proxypid"
  wait "$proxypid" 2>/dev/null || true
  proxypid=""
  before=$(sed -E 's/.*"rss_before_kb":([0-9]+).*/\1/' <<<"$out")
  after=$(sed -E 's/.*"rss_after_kb":([0-9]+).*/\1/' <<<"$out")
  abefore=$(sed -E 's/.*"anon_before_kb":([0-9]+).*/\1/' <<<"$out")
  aafter=$(sed -E 's/.*"anon_after_kb":([0-9]+).*/\1/' <<<"$out")
  more=0
  if [ "$MORE" -gt 0 ]; then more=$(sed -E 's/.*"rss_more_kb":([0-9]+).*/\1/' <<<"$out"); fi
  awk -v l="$label" -v r="$round" -v b="$before" -v a="$after" -v ab="$abefore" -v aa="$aafter" -v n="$N" -v m="$more" -v k="$MORE" \
    'BEGIN { printf "%s %d %.2f %d %d %.2f %.2f\n", l, r, (a - b) / n, b, a, (aa - ab) / n, (k > 0 ? (m - a) / k : 0) }'
}

results="$work/results"
: >"$results"
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for label in $order; do
    bin=$OLD
    [ "$label" = new ] && bin=$NEW
    line=$(measure "$bin" "$label" "$round")
    echo "$line" >>"$results"
    read -r l r kb b a akb mkb <<<"$line"
    margin=""
    [ "$MORE" -gt 0 ] && margin="; $MORE more: $mkb KB each"
    echo "round $r $l: $kb KB/conn (VmRSS $b -> $a KB, $N idle connections; RssAnon $akb KB/conn$margin)"
  done
done

echo
echo "KB of RSS per idle connection (fresh process, $N connections):"
for label in old new; do
  awk -v l="$label" '$1 == l { s = s sprintf(" %.2f", $3); t += $3; n++ }
    END { printf "  %-4s %s   mean %.2f\n", l ":", s, t / n }' "$results"
done
if [ "$MORE" -gt 0 ]; then
  echo "KB of RSS per connection added beyond the first $N ($MORE more):"
  for label in old new; do
    awk -v l="$label" '$1 == l { s = s sprintf(" %.2f", $7); t += $7; n++ }
      END { printf "  %-4s %s   mean %.2f\n", l ":", s, t / n }' "$results"
  done
fi
