#!/usr/bin/env bash
# What a crate using `include_spec!` pays to build the proc macro: `covenant-macros` and its
# whole dependency tree built cold (dev profile, as a dependency is), with codegen as the
# macro asks for it (no default features: no JSON Schema, OpenAPI or site emitters, no
# maud, no diff) beside codegen with every feature (what the macro compiled before).
# Alternating rounds in fresh target folders; prints each round and the medians.
#
#   bash benches/macro_build.sh        # 3 rounds
#   ROUNDS=5 bash benches/macro_build.sh
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${ROUNDS:-3}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

now() { date +%s.%N; }
# Seconds to build the packages named, cold, in a target folder of their own.
cold_build() {
    rm -rf "$scratch/target"
    local start
    start="$(now)"
    CARGO_TARGET_DIR="$scratch/target" cargo build --quiet "$@" >&2
    echo "$(now) - $start" | bc
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

full=()
slim=()
for round in $(seq "$rounds"); do
    # `-p covenant-codegen` beside the macro builds codegen with its default features, which
    # the macro then links: the build before the features were split off.
    full+=("$(cold_build -p covenant-macros -p covenant-codegen)")
    slim+=("$(cold_build -p covenant-macros)")
    echo "round $round: every feature ${full[-1]} s, as the macro asks ${slim[-1]} s"
done
full_median="$(printf '%s\n' "${full[@]}" | median)"
slim_median="$(printf '%s\n' "${slim[@]}" | median)"
echo "median: every feature $full_median s, as the macro asks $slim_median s ($(echo "scale=2; $slim_median / $full_median" | bc)×)"
