#!/usr/bin/env bash
# Tokenizes every spec of the repository with the VS Code extension's TextMate grammar, using
# the engine VS Code itself uses (vscode-textmate on vscode-oniguruma, pinned, from npm,
# installed outside the repository), and checks what a handful of snippets are coloured as.
set -euo pipefail
cd "$(dirname "$0")/.."

textmate_version=9.3.2
oniguruma_version=2.0.1
tools="${TMPDIR:-/tmp}/covenant-ci-textmate-$textmate_version-$oniguruma_version"
# The marker is written last, so an interrupted install is redone rather than trusted.
[ -f "$tools/.installed" ] || {
    npm install --prefix "$tools" --no-audit --no-fund --loglevel=error \
        "vscode-textmate@$textmate_version" "vscode-oniguruma@$oniguruma_version"
    touch "$tools/.installed"
}
NODE_PATH="$tools/node_modules" node ci/textmate-test.js
