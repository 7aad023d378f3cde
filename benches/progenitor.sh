#!/usr/bin/env bash
# The tool teams use today, side by side with `covenant import` + `generate` on the same
# published documents (corpus/openapi): which documents each turns into a client that
# compiles, how long generation takes, and how long the generated crate takes to build.
#
#   bash benches/progenitor.sh            # prints one table
#   BUILD=0 bash benches/progenitor.sh    # generation only: no crate is built
#
# Installs cargo-progenitor (pinned, from crates.io) into a folder outside the repository.
# Each generated crate is built with `cargo build` in a scratch folder; a crate that does not
# build is reported as such with the first error.
set -uo pipefail
cd "$(dirname "$0")/.."

progenitor_version="${PROGENITOR_VERSION:-0.15.1}"
tools="${TMPDIR:-/tmp}/covenant-bench-progenitor-$progenitor_version"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
if [ ! -x "$tools/bin/cargo-progenitor" ]; then
    cargo install --quiet --locked --root "$tools" cargo-progenitor --version "$progenitor_version" >&2 || {
        echo "cannot install cargo-progenitor $progenitor_version" >&2
        exit 2
    }
fi
cargo build --quiet --release >&2
covenant="$PWD/target/release/covenant"
# One target folder for every generated crate, so dependencies are built once.
export CARGO_TARGET_DIR="$scratch/target"

now() { date +%s.%N; }
elapsed() { echo "$1 $2" | awk '{ printf "%.2f", $2 - $1 }'; }

printf '%-16s | %-28s | %-28s\n' document "progenitor: gen s / build s" "covenant: gen s / build s"
for gz in corpus/openapi/*.gz; do
    name="$(basename "$gz" .gz)"
    doc="$scratch/$name"
    gzip -dc "$gz" > "$doc"
    # progenitor reads JSON or YAML documents of OpenAPI 3.0.
    start=$(now)
    if "$tools/bin/cargo-progenitor" progenitor -i "$doc" -o "$scratch/p-$name" -n "p_${name%%.*}" -v 0.1.0 > "$scratch/p-$name.log" 2>&1; then
        gen=$(elapsed "$start" "$(now)")
        start=$(now)
        if [ "${BUILD:-1}" = 0 ]; then
            progenitor="$gen / not built"
        elif (cd "$scratch/p-$name" && cargo build --quiet > "$scratch/p-$name.build.log" 2>&1); then
            progenitor="$gen / $(elapsed "$start" "$(now)")"
        else
            progenitor="$gen / does not build"
        fi
    else
        # Its own message, or the panic's.
        why=$(grep -m1 -A1 -E 'panicked|^Error' "$scratch/p-$name.log" | grep -v panicked | head -1 | cut -c1-60)
        progenitor="refused: ${why:-$(head -1 "$scratch/p-$name.log" | cut -c1-60)}"
    fi
    start=$(now)
    "$covenant" import "$doc" --out "$scratch/$name.covenant" 2>/dev/null
    "$covenant" generate --spec "$scratch/$name.covenant" --out "$scratch/c-$name" > /dev/null 2>&1
    gen=$(elapsed "$start" "$(now)")
    mkdir -p "$scratch/c-$name"
    cat > "$scratch/c-$name/Cargo.toml" <<TOML
[package]
name = "c_${name%%.*}"
version = "0.1.0"
edition = "2024"

[features]
default = ["server", "client"]
server = ["covenant-runtime/server"]
client = ["covenant-runtime/client"]

[dependencies]
covenant-runtime = { path = "$PWD/runtime" }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
regex = "1"

[workspace]
TOML
    # The repository's lock: the runtime is built with the versions it is tested with.
    cp Cargo.lock "$scratch/c-$name/"
    start=$(now)
    if [ "${BUILD:-1}" = 0 ]; then
        ours="$gen / not built"
    elif (cd "$scratch/c-$name" && cargo build --quiet > "$scratch/c-$name.build.log" 2>&1); then
        ours="$gen / $(elapsed "$start" "$(now)")"
    else
        ours="$gen / does not build"
    fi
    printf '%-16s | %-28s | %-28s\n' "$name" "$progenitor" "$ours"
done
