#!/usr/bin/env bash
# The published Python client of the service (`vital` on PyPI, pinned in .ci/run) against
# the reference server on a fresh embedded database: ci/published_client_probe.py drives it
# step by step (users, patient info, insurance, link tokens, the catalogue, markers, refresh,
# bulk operations listed, deletion and its undoing). VITAL_PYTHON names a Python that has it.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${VITAL_PYTHON:-python3}
. ci/fresh-server.sh
start_fresh_server
"$python" ci/published_client_probe.py "$work/data/credentials.json"
