#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests that run on PostgreSQL, installing the
# server from Debian's packages when it is missing, and prints the URL to reach it.
# Usage: eval "$(bash ci/postgres.sh)"   (exports COVENANT_TEST_POSTGRES_URL, and
# COVENANT_CI_POSTGRES_STOP: the command that stops the cluster again)
set -euo pipefail

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=${COVENANT_TEST_POSTGRES_PORT:-$(free_port)}
find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
bin=$(find_bin)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    {
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y --no-install-recommends postgresql postgresql-client
    } >&2
    bin=$(find_bin)
fi
[ -x "$bin/initdb" ] || { echo "no PostgreSQL server binaries after installing" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/covenant-ci-postgres.XXXXXX")
# The server refuses to run as root: run it as the `postgres` user where we are root.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        chown -R postgres "$dir"
        su postgres -s /bin/bash -c "$*"
    else
        bash -c "$*"
    fi
}
as_owner "'$bin/initdb' -D '$dir/data' -A trust -U postgres --no-sync" >&2
as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w \
    -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off\" start" >&2
echo "export COVENANT_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$port/postgres"
stop="'$bin/pg_ctl' -D '$dir/data' -m immediate stop"
if [ "$(id -u)" = 0 ]; then stop="su postgres -s /bin/bash -c \"$stop\""; fi
printf 'export COVENANT_CI_POSTGRES_STOP=%q\n' "$stop"
