# Shared by the benchmark scripts that start a throwaway PostgreSQL
# (bench-proxy.sh, bench-idle-rss.sh, benchmarks/bounded.sh). Source it
# after defining die MESSAGE; it sets bindir (the PostgreSQL server
# binaries) and defines as_pg, free_port and wait_port.

bindir=""
if command -v initdb >/dev/null && command -v postgres >/dev/null; then
  bindir=$(dirname "$(readlink -f "$(command -v initdb)")")
else
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
fi
[ -x "$bindir/initdb" ] || die "PostgreSQL server binaries not found; run scripts/install-test-deps.sh"

# as_pg runs a command as the postgres OS user when we are root
# (PostgreSQL and PgBouncer refuse to run as root).
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Ports come from below the kernel's ephemeral range: a port there may be
# some connection's local end (pgbench's thousands of them), which a
# connect test does not see but a bind fails on.
free_port() {
  local p lo=32768
  read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  for p in $(shuf -i 10000-$((lo - 1)) -n 100); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  die "no free port"
}

# wait_port PORT NAME waits (bounded) until something accepts on PORT.
wait_port() {
  local i
  for i in $(seq 1 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  die "nothing listening on port $1 ($2)"
}
