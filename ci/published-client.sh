#!/usr/bin/env bash
# The published Python client of the service (`vital` on PyPI, pinned in .ci/run) against
# the reference server: ci/published_client_probe.py drives it step by step (users, patient
# info, insurance, link tokens, the catalogue, markers, refresh, bulk operations listed,
# deletion and its undoing) through `covenant record`, and the recording must replay green,
# as it was written, against a second fresh server; on the embedded database, and on
# PostgreSQL when COVENANT_TEST_POSTGRES_URL names a server (a fresh database for each).
# VITAL_PYTHON names a Python that has the client.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${VITAL_PYTHON:-python3}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
cargo build -q
covenant="$(pwd)/target/debug/covenant"

# Starts `serve` with DIR as its data folder (and FLAG…), and waits for its credentials.
serve() {
    local dir=$1
    shift
    "$covenant" serve "$@" --listen 127.0.0.1:0 --data-dir "$dir" >"$dir.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 600); do
        [ -s "$dir/credentials.json" ] && return 0
        sleep 0.1
    done
    echo "serve $* wrote no credentials:"; cat "$dir.log"; exit 1
}

# A fresh PostgreSQL database's URL, or nothing on the embedded database.
database() {
    [ "$1" = postgres ] || return 0
    local name="covenant_published_client_$$_$2"
    psql "$COVENANT_TEST_POSTGRES_URL" -qc "CREATE DATABASE $name" >/dev/null
    echo "--database-url=${COVENANT_TEST_POSTGRES_URL%/*}/$name"
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

backends=(sqlite)
[ -n "${COVENANT_TEST_POSTGRES_URL:-}" ] && backends+=(postgres)
for backend in "${backends[@]}"; do
    run="$work/$backend"
    mkdir -p "$run"
    # The client against the server through the recorder.
    serve "$run/recorded" $(database "$backend" recorded)
    upstream=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['base_url'])" "$run/recorded/credentials.json")
    port=$(free_port)
    "$covenant" record --upstream "$upstream" --listen "127.0.0.1:$port" --name published-client \
        --credentials "$run/recorded/credentials.json" --out "$run/cassettes" >"$run/record.log" 2>&1 &
    recorder=$!
    pids+=($recorder)
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.1
    done
    python3 - "$run/recorded/credentials.json" "http://127.0.0.1:$port" "$run/through-recorder.json" <<'PY'
import json, sys
credentials = json.load(open(sys.argv[1]))
credentials["base_url"] = sys.argv[2]
json.dump(credentials, open(sys.argv[3], "w"))
PY
    "$python" ci/published_client_probe.py "$run/through-recorder.json"
    kill "$recorder"
    wait "$recorder" 2>/dev/null || true
    cassette="$run/cassettes/published-client.json"
    mode=$(stat -c %a "$cassette")
    [ "$mode" = 600 ] || { echo "the cassette is $mode, not 600"; exit 1; }
    # Replayed as it was written against a second fresh server.
    serve "$run/replayed" $(database "$backend" replayed)
    echo "published client ($backend): the recorded session replayed on a fresh server"
    "$covenant" conform --credentials "$run/replayed/credentials.json" \
        --report-dir "$run/reports" "$run/cassettes"
done
