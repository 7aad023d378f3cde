#!/usr/bin/env bash
# Redocly's linter (its recommended rules) over every OpenAPI document `generate` writes: the
# service's (generated/openapi) and those of the corpus specs and the specs imported from
# published documents. An error fails the run; warnings (no licence, no tag descriptions) are
# printed.
#   REDOCLY=…/node_modules/.bin/redocly bash ci/redocly.sh
set -euo pipefail
cd "$(dirname "$0")/.."
redocly=${REDOCLY:-redocly}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build -q --bin covenant
covenant="$PWD/target/debug/covenant"
documents=(generated/openapi/*.json)
for spec in corpus/specs/*.covenant corpus/imported/*.covenant; do
    name=$(basename "$spec" .covenant)
    out="$work/$(basename "$(dirname "$spec")")-$name"
    "$covenant" generate --spec "$spec" --out "$out" > /dev/null
    documents+=("$out"/openapi/*.json)
done
status=0
for doc in "${documents[@]}"; do
    if ! "$redocly" lint "$doc" --format=summary > "$work/lint.log" 2>&1; then
        echo "redocly: errors in $doc"
        cat "$work/lint.log"
        status=1
    else
        echo "redocly: $doc: $(grep -c '^warning' "$work/lint.log" || true) kinds of warning, no error"
    fi
done
exit "$status"
