#!/usr/bin/env bash
# Schemathesis with each vendor's own OpenAPI document (corpus/openapi) against `covenant mock`
# serving the spec `covenant import` wrote from it: no answer may be a 5xx, and every answer
# must be valid against the vendor's schemas. Left out of the run, and named: an operation
# whose document is at fault (it contradicts itself, or breaks OpenAPI's rules: the import's
# report lists where), which no answer can pass; and one the spec states by another
# operation's endpoint (a second operation on one route), whose answers are that endpoint's.
#   SCHEMATHESIS=… bash ci/schemathesis-corpus.sh [NAME…]    (default: every document)
# SCHEMATHESIS_PHASES (default examples,coverage) and SCHEMATHESIS_MAX_EXAMPLES (default 10)
# trade depth for time.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
st=${SCHEMATHESIS:-schemathesis}
work=$(mktemp -d)
mock_pid=
cleanup() {
    [ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null || true
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

cargo build -q --bin covenant
covenant="$repo/target/debug/covenant"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for gz in corpus/openapi/*.gz; do names+=("$(basename "$gz" .gz)"); done
fi
failed=0
for name in "${names[@]}"; do
    doc="$work/$name"
    gzip -dc "corpus/openapi/$name.gz" > "$doc"
    "$covenant" import "$doc" --out "$work/$name.covenant" --report "$work/$name-report.json" \
        2>/dev/null || [ $? -eq 1 ]
    mapfile -t excluded < <(python3 - "$work/$name-report.json" <<'PY'
import json, sys
reached = set()
for op in json.load(open(sys.argv[1]))["operations"]:
    endpoint = op.get("endpoint")
    if op.get("faults") or endpoint in reached:
        print(f"{op['method'].upper()} {op['path']}")
    reached.add(endpoint)
PY
)
    exclusions=()
    for operation in "${excluded[@]}"; do
        exclusions+=(--exclude-name "$operation")
    done
    if [ ${#excluded[@]} -gt 0 ]; then
        echo "schemathesis: $name: ${#excluded[@]} operations left out (their document is at fault, or another endpoint states them; see the import report):"
        printf '    %s\n' "${excluded[@]}"
    fi
    mkdir -p "$work/$name-data"
    "$covenant" mock "$work/$name.covenant" --listen 127.0.0.1:0 --data-dir "$work/$name-data" \
        > "$work/$name-mock.log" 2>&1 &
    mock_pid=$!
    for _ in $(seq 1 100); do
        [ -s "$work/$name-data/credentials.json" ] && break
        sleep 0.1
    done
    # Every scheme's key, given to Schemathesis by the document's own scheme names, so it
    # sends each operation the credential its security requirement names (two schemes may
    # share the `Authorization` header).
    python3 - "$work/$name-data/credentials.json" "$doc" "$work/$name.covenant" \
        > "$work/$name-schemathesis.toml" <<'PY'
import json, re, sys
credentials = json.load(open(sys.argv[1]))
# The spec's auth items, in the order of the document's schemes.
spec_names = re.findall(r"^auth (\w+):", open(sys.argv[3]).read(), re.M)
text = open(sys.argv[2]).read()
if text.lstrip().startswith("{"):
    document = json.loads(text)
else:
    import yaml  # Schemathesis brings PyYAML
    document = yaml.safe_load(text)
schemes = document.get("components", {}).get("securitySchemes") or document.get("securityDefinitions") or {}
for (key, scheme), name in zip(schemes.items(), spec_names):
    value = credentials.get(name)
    if not value:
        continue
    kind = scheme.get("type")
    print(f"[auth.openapi.{json.dumps(key)}]")
    if kind == "apiKey":
        print(f"api_key = {json.dumps(value)}")
    elif kind == "basic" or scheme.get("scheme", "").lower() == "basic":
        username, _, password = value.partition(":")
        print(f"username = {json.dumps(username)}\npassword = {json.dumps(password)}")
    else:
        print(f"bearer = {json.dumps(value)}")
PY
    base=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['base_url'])" "$work/$name-data/credentials.json")
    echo "schemathesis: $name's own document against the mock of its imported spec at $base"
    status=0
    (cd "$work" && "$st" --config-file "$work/$name-schemathesis.toml" run "$doc" --url "$base" \
        "${exclusions[@]}" \
        --phases "${SCHEMATHESIS_PHASES:-examples,coverage}" --checks not_a_server_error,response_schema_conformance \
        --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-10}" --seed 1 --workers 1 --no-color --generation-database none \
        --report junit --report-junit-path "$work/$name.xml") > "$work/$name.log" 2>&1 || status=$?
    tail -n 15 "$work/$name.log"
    kill "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
    mock_pid=
    if [ "$status" -ne 0 ]; then
        failed=1
    fi
    # An operation that only ever answered 401/403 was never tested past its credentials.
    if grep -q "Authentication failed" "$work/$name.log"; then
        echo "schemathesis: $name: operations answered only 401/403: their credentials did not reach them"
        failed=1
    fi
done
exit "$failed"
