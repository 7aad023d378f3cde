#!/usr/bin/env bash
# Schemathesis against `serve --mock` (`ci/schemathesis.sh mock`) or the reference server on
# a fresh embedded database (`ci/schemathesis.sh reference`): every generated OpenAPI
# document, all phases, every check. Failures not listed with a reason in
# ci/schemathesis-allowed-<target>.toml fail the run. Against the reference server, the HAR
# of each run is then recorded as a cassette and replayed against a fresh server: green.
# SCHEMATHESIS names the executable (default: `schemathesis` on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

target=${1:-mock}
case "$target" in
    mock) serve_flags=(--mock) ;;
    # Its run is recorded and replayed against conform's own server, which takes webhook
    # receivers on this machine (the runner's is one): the same address rule on both sides.
    reference) serve_flags=(--allow-private-webhooks) ;;
    *) echo "usage: $0 mock|reference" >&2; exit 2 ;;
esac
st=${SCHEMATHESIS:-schemathesis}
. ci/fresh-server.sh
start_fresh_server "${serve_flags[@]}"
read_key() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$work/data/credentials.json" "$1"; }
base=$(read_key base_url)
team_key=$(read_key team_api_key)
management_key=$(read_key management_key)

reports=()
for doc in "$repo"/generated/openapi/*.json; do
    name=$(basename "$doc" .json)
    echo "schemathesis: generated/openapi/$name.json against the $target at $base"
    # Run from the scratch folder: Schemathesis keeps a cache in its working directory.
    # One worker: CPython 3.11's `ast` module keeps its recursion depth in shared state, so
    # two threads describing Hypothesis filters at once can fail with "AST constructor
    # recursion depth mismatch" (fixed in later CPython releases).
    status=0
    (cd "$work" && "$st" run "$doc" --url "$base" \
        -H "x-service-api-key: $team_key" -H "X-Management-Key: $management_key" \
        --phases examples,coverage,fuzzing,stateful --checks all \
        --max-examples 50 --seed 1 --workers 1 --no-color --generation-database none \
        --report junit,har --report-junit-path "$work/$name.xml" \
        --report-har-path "$work/$name.har") >"$work/$name.log" 2>&1 || status=$?
    tail -n 25 "$work/$name.log"
    # 0: no failures, 1: failures (judged below); anything else is a broken run.
    if [ "$status" -gt 1 ] || [ ! -s "$work/$name.xml" ]; then
        echo "schemathesis did not complete for $name (exit $status):"
        cat "$work/$name.log"
        exit 1
    fi
    reports+=("$work/$name.xml")
done
python3 ci/schemathesis_gate.py "ci/schemathesis-allowed-$target.toml" "${reports[@]}"

# Record → replay: the HAR of each run against the reference server, recorded as a
# cassette with no edits, replays green against a fresh server.
if [ "$target" = reference ]; then
    for har in "$work"/*.har; do
        name=$(basename "$har" .har)
        cargo run -q -- record --from-har "$har" --out "$work/recorded" --name "$name" 2>/dev/null
    done
    cargo run -q -- conform --report-dir "$work/replayed" "$work/recorded"
fi
