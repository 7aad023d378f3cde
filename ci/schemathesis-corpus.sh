#!/usr/bin/env bash
# Schemathesis with each vendor's own OpenAPI document (corpus/openapi) against `covenant mock`
# serving the spec `covenant import` wrote from it: no answer may be a 5xx, and every answer
# must be valid against the vendor's schemas.
#   SCHEMATHESIS=… bash ci/schemathesis-corpus.sh [NAME…]    (default: every document)
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
    "$covenant" import "$doc" --out "$work/$name.covenant" 2>/dev/null || [ $? -eq 1 ]
    mkdir -p "$work/$name-data"
    "$covenant" mock "$work/$name.covenant" --listen 127.0.0.1:0 --data-dir "$work/$name-data" \
        > "$work/$name-mock.log" 2>&1 &
    mock_pid=$!
    for _ in $(seq 1 100); do
        [ -s "$work/$name-data/credentials.json" ] && break
        sleep 0.1
    done
    # Every scheme's key, sent where the vendor's document says it travels.
    mapfile -t headers < <(python3 - "$work/$name-data/credentials.json" "$doc" "$work/$name.covenant" <<'PY'
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
    if kind == "apiKey" and scheme.get("in") == "header":
        print(f"-H\n{scheme['name']}: {value}")
    elif kind in ("http", "oauth2", "openIdConnect", "basic") :
        if scheme.get("scheme", "").lower() == "basic" or kind == "basic":
            import base64
            print(f"-H\nAuthorization: Basic {base64.b64encode(value.encode()).decode()}")
        else:
            print(f"-H\nAuthorization: Bearer {value}")
PY
)
    base=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['base_url'])" "$work/$name-data/credentials.json")
    echo "schemathesis: $name's own document against the mock of its imported spec at $base"
    status=0
    (cd "$work" && "$st" run "$doc" --url "$base" "${headers[@]}" \
        --phases examples,coverage --checks not_a_server_error,response_schema_conformance \
        --max-examples 10 --seed 1 --workers 1 --no-color --generation-database none \
        --report junit --report-junit-path "$work/$name.xml") > "$work/$name.log" 2>&1 || status=$?
    tail -n 15 "$work/$name.log"
    kill "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
    mock_pid=
    if [ "$status" -ne 0 ]; then
        failed=1
    fi
done
exit "$failed"
