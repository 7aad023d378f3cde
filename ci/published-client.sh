#!/usr/bin/env bash
# The published Python client of the service (`vital` on PyPI, pinned in .ci/run) against
# the reference server on a fresh embedded database: ci/published_client_probe.py drives it
# step by step (users, patient info, insurance, link tokens, the catalogue, markers, refresh,
# bulk operations listed, deletion and its undoing). VITAL_PYTHON names a Python that has it.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${VITAL_PYTHON:-python3}
work=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
    rm -rf "$work"
}
trap cleanup EXIT

cargo build -q
cargo run -q -- serve --listen 127.0.0.1:0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
    [ -s "$work/data/credentials.json" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "serve exited:"; cat "$work/serve.log"; exit 1; }
    sleep 0.1
done
"$python" ci/published_client_probe.py "$work/data/credentials.json"
