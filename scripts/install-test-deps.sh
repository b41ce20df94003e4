#!/usr/bin/env bash
# install-test-deps.sh installs what the pgequiv test suite needs on a fresh
# Debian/Ubuntu machine: a PostgreSQL server and client (initdb, postgres,
# psql), pgbench (postgresql-contrib), pgbouncer, Node.js with npm,
# Debian's python3-psycopg2, pgjdbc with a JDK, and Prometheus (the telemetry test scrapes the
# proxy with a real one); it also downloads the modules of
# test/otlpreceiver, the OpenTelemetry Collector's OTLP receiver that the
# telemetry test builds (its own go.mod, so none of the Collector's
# dependencies enter the main module).
#
# It installs binaries, not services: the tests start their own
# PostgreSQL, PgBouncer and Prometheus processes on free loopback ports, and
# a system PgBouncer or Prometheus started by the package would hold 6432
# and 9090 on the host for good. So the packages are installed with a
# policy-rc.d that forbids starting services (unless one is already in
# place, as in Docker images), and the services of the packages it
# installed are then disabled and stopped (pgbouncer, prometheus,
# postgresql's system cluster).
#
# It is idempotent: when everything is already present it only checks and
# exits (no apt-get update), warning about a system PgBouncer or
# Prometheus it finds running (it does not stop a service it did not
# install). Run it as root, or with sudo available.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

# pg_bin_has NAME: true when NAME is in PATH or in any /usr/lib/postgresql/*/bin.
pg_bin_has() {
	have "$1" && return 0
	local d
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/$1" ] && return 0
	done
	return 1
}

missing=()
pg_bin_has initdb || missing+=(postgresql)
pg_bin_has postgres || missing+=(postgresql)
have psql || missing+=(postgresql-client)
pg_bin_has pgbench || missing+=(postgresql-contrib)
have pgbouncer || missing+=(pgbouncer)
have node || missing+=(nodejs)
have npm || missing+=(npm)
# psycopg2 from Debian (PyPI is out of reach): proxy/admin_drivers_test.go.
/usr/bin/python3 -c 'import psycopg2' >/dev/null 2>&1 || missing+=(python3-psycopg2)
# Database-free mode's client tests (proxy/dbfree/introspect_test.go,
# savepoint_test.go): SQLAlchemy 1.4 inspect(), psycopg 3 nested
# transactions, pgcli; psycopg 3 also binds parameters in
# proxy/bypass_params_test.go.
/usr/bin/python3 -c 'import sqlalchemy' >/dev/null 2>&1 || missing+=(python3-sqlalchemy)
/usr/bin/python3 -c 'import psycopg' >/dev/null 2>&1 || missing+=(python3-psycopg)
have pgcli || missing+=(pgcli)
have prometheus || missing+=(prometheus)
# The sqlite3 shell (Debian's is 3.40, the version the sqlite dialect
# models): planner/build's fidelity sweep compares the planner with it.
have sqlite3 || missing+=(sqlite3)
# pgjdbc (Debian's 42.5) and a JDK to compile the test program against
# it: proxy/dbfree/jdbc_test.go runs DatabaseMetaData through the driver.
[ -f /usr/share/java/postgresql.jar ] || missing+=(libpostgresql-jdbc-java)
have javac || missing+=(openjdk-17-jdk-headless)

root=$(cd "$(dirname "$0")/.." && pwd)

# install_node_client installs test/node's npm dependencies (node-postgres)
# when they are missing. A failure (no network) is reported, not fatal: the
# node test then skips.
install_node_client() {
	local dir="$root/test/node"
	[ -f "$dir/package.json" ] || return 0
	[ -d "$dir/node_modules/pg" ] && return 0
	have npm || return 0
	echo "install-test-deps: npm ci in test/node"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) ||
		echo "install-test-deps: npm ci failed; the node-postgres test will skip" >&2
}

# download_otlpreceiver fetches test/otlpreceiver's modules (Go module
# proxy) and compiles it once, so that the telemetry test's build of it
# needs no network and hits the build cache (cold: about 20 s of download
# and 2 minutes of compiling on 2 cores; warm: nothing).
download_otlpreceiver() {
	local dir="$root/test/otlpreceiver"
	[ -f "$dir/go.mod" ] && have go || return 0
	(cd "$dir" && go mod download && go build -o /dev/null .) ||
		echo "install-test-deps: building test/otlpreceiver failed; the telemetry test will fail to build it" >&2
}

# services lists the system services the packages in $1 (space-separated)
# ship; the tests use none of them.
services() {
	local p
	for p in $1; do
		case $p in
		pgbouncer | prometheus | postgresql) echo "$p" ;;
		esac
	done
}

# warn_running_services names a system PgBouncer or Prometheus that runs
# (a Debian service, perhaps started when an earlier install ran): the tests
# do not need it, and it holds the port a newcomer's tools expect free.
warn_running_services() {
	local s
	for s in pgbouncer prometheus; do
		pgrep -x "$s" >/dev/null 2>&1 || continue
		echo "install-test-deps: a $s process is running (pgrep -a $s); the tests start their own and do not need it;" \
			"if the package's service started it, stop it with: systemctl disable --now $s (or: service $s stop)" >&2
	done
}

if [ ${#missing[@]} -eq 0 ]; then
	install_node_client
	download_otlpreceiver
	warn_running_services
	echo "install-test-deps: all test dependencies present"
	exit 0
fi

# De-duplicate while keeping order.
pkgs=$(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++' | tr '\n' ' ')
echo "install-test-deps: installing: $pkgs"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if have sudo; then
		SUDO="sudo"
	else
		echo "install-test-deps: need root or sudo to install: $pkgs" >&2
		exit 1
	fi
fi

# policy-rc.d exiting 101 tells invoke-rc.d and deb-systemd-invoke, which
# package scripts start services through, that starting is forbidden
# (Debian Policy, /usr/share/doc/init-system-helpers/README.policy-rc.d).
# One already there (Docker images ship one) is left as it is.
policy=/usr/sbin/policy-rc.d
ours_policy=""
remove_policy() {
	[ -n "$ours_policy" ] && $SUDO rm -f "$policy"
	ours_policy=""
}
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# install-test-deps.sh: no services start while it installs\nexit 101\n' |
		$SUDO tee "$policy" >/dev/null
	$SUDO chmod 755 "$policy"
	ours_policy=1
	trap remove_policy EXIT
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $pkgs
remove_policy

# The packages still enable their services for the next boot, and a
# policy-rc.d that was already there may allow starting: disable and stop
# the services of what was installed now.
for s in $(services "$pkgs"); do
	if [ -d /run/systemd/system ] && have systemctl; then
		$SUDO systemctl disable --now "$s" >/dev/null 2>&1 || true
	else
		if have update-rc.d; then
			$SUDO update-rc.d "$s" disable >/dev/null 2>&1 || true
		fi
		if have service; then
			$SUDO service "$s" stop >/dev/null 2>&1 || true
		fi
	fi
	echo "install-test-deps: $s installed as a binary; its system service is disabled"
done
warn_running_services
install_node_client
echo "install-test-deps: done"
