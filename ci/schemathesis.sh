#!/usr/bin/env bash
# Schemathesis against `serve --mock`: every generated OpenAPI document, all phases, every
# check. Failures not listed with a reason in ci/schemathesis-allowed.toml fail the run.
# SCHEMATHESIS names the executable (default: `schemathesis` on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."

st=${SCHEMATHESIS:-schemathesis}
work=$(mktemp -d)
cargo build -q
./target/debug/covenant serve --mock --listen 127.0.0.1:0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

for _ in $(seq 300); do
    [ -s "$work/data/credentials.json" ] && break
    sleep 0.1
done
read_key() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$work/data/credentials.json" "$1"; }
base=$(read_key base_url)
team_key=$(read_key team_api_key)
management_key=$(read_key management_key)

for doc in generated/openapi/*.json; do
    name=$(basename "$doc" .json)
    echo "schemathesis: $doc against $base"
    "$st" run "$doc" --url "$base" \
        -H "x-service-api-key: $team_key" -H "X-Management-Key: $management_key" \
        --phases examples,coverage,fuzzing,stateful --checks all \
        --max-examples 50 --seed 1 --workers 2 --no-color \
        --report junit --report-junit-path "$work/$name.xml" >"$work/$name.log" 2>&1 || true
    tail -n 25 "$work/$name.log"
done
python3 ci/schemathesis_gate.py ci/schemathesis-allowed.toml "$work"/*.xml
