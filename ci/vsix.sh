#!/usr/bin/env bash
# Packages the VS Code extension (editors/vscode/) as target/covenant.vsix: its dependencies
# exactly as package-lock.json pins them, packed by a pinned vsce installed outside the
# repository, then checks the package holds what the extension runs on.
set -euo pipefail
cd "$(dirname "$0")/.."

vsce_version=3.9.2
tools="${TMPDIR:-/tmp}/covenant-ci-vsce-$vsce_version"
# The marker is written last, so an interrupted install is redone rather than trusted.
[ -f "$tools/.installed" ] || {
    npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "@vscode/vsce@$vsce_version"
    touch "$tools/.installed"
}

out="$PWD/target/covenant.vsix"
mkdir -p target
rm -f "$out"
(
    cd editors/vscode
    npm ci --no-audit --no-fund --loglevel=error
    # No stdin: vsce asks before packaging a manifest without a repository, and must not wait.
    "$tools/node_modules/.bin/vsce" package --allow-missing-repository --out "$out" </dev/null
)

unzip -l "$out"
names="$(unzip -Z1 "$out")"
missing=0
for entry in extension/package.json extension/extension.js extension/language-configuration.json \
    extension/syntaxes/covenant.tmLanguage.json extension/LICENSE.txt extension/readme.md \
    extension/node_modules/vscode-languageclient/package.json \
    extension/node_modules/vscode-languageclient/node.js; do
    grep -qxF "$entry" <<<"$names" || { echo "vsix: $entry is missing" >&2; missing=1; }
done
[ "$missing" = 0 ]
echo "vsix: $out"
