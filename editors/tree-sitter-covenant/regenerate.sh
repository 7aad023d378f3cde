#!/bin/sh
# Regenerates src/ from grammar.js, then records the SHA-256 of the grammar it was generated
# from in src/grammar.js.sha256: a test compares it with grammar.js to catch a stale parser.c.
#
#   ./regenerate.sh                                  # tree-sitter on PATH
#   TREE_SITTER=/path/to/tree-sitter ./regenerate.sh
set -eu
cd "$(dirname "$0")"

TREE_SITTER=${TREE_SITTER:-tree-sitter}

# The committed parser.c is the output of one CLI release; another one rewrites all of it
# (and may change its ABI), which should be a decision rather than a side effect.
version=$("$TREE_SITTER" --version | awk '{print $2}')
case "$version" in
    0.26.*) ;;
    *)
        echo "regenerate.sh: tree-sitter-cli 0.26 expected, found ${version:-none}" >&2
        exit 1
        ;;
esac

"$TREE_SITTER" generate

if command -v sha256sum >/dev/null 2>&1; then
    sha256sum grammar.js | cut -d' ' -f1 > src/grammar.js.sha256
else
    shasum -a 256 grammar.js | cut -d' ' -f1 > src/grammar.js.sha256
fi
