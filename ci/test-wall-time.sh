#!/usr/bin/env bash
# Wall time of `cargo test --workspace` at two revisions, side by side on this machine:
# cold (an empty target folder) and warm (dependencies built, then one change at the bottom
# of the workspace, runtime/src/lib.rs, so every crate above it rebuilds and every test
# binary relinks). Usage: ci/test-wall-time.sh OLD_REV NEW_REV [WORK_DIR]
# The PostgreSQL tests run when COVENANT_TEST_POSTGRES_URL is set (see ci/postgres.sh).
set -euo pipefail
old=${1:?old revision}
new=${2:?new revision}
work=${3:-$(mktemp -d)}
repo=$(git rev-parse --show-toplevel)

seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

measure() {
    local rev=$1 tree="$work/tree-$1" target="$work/target-$1"
    git -C "$repo" worktree add --detach "$tree" "$rev" >/dev/null 2>&1
    local binaries cold warm
    cold=$(cd "$tree" && CARGO_TARGET_DIR="$target" seconds cargo test --workspace --no-fail-fast)
    echo "// a change" >> "$tree/runtime/src/lib.rs"
    warm=$(cd "$tree" && CARGO_TARGET_DIR="$target" seconds cargo test --workspace --no-fail-fast)
    binaries=$(cd "$tree" && CARGO_TARGET_DIR="$target" cargo test --workspace --no-run 2>&1 | grep -c "Executable" || true)
    printf '%-12s cold %7.1f s   warm %7.1f s   test binaries %s\n' "$rev" "$cold" "$warm" "$binaries"
    git -C "$repo" worktree remove --force "$tree"
    rm -rf "$target"
}

measure "$old"
measure "$new"
