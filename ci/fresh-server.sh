# Sourced by the CI scripts that need a server of their own: `start_fresh_server FLAG…`
# builds, starts `covenant serve FLAG…` on a free port with a data folder in a temporary
# folder `$work`, and waits for its credentials.json; the server is stopped and the folder
# removed when the script exits.
work=$(mktemp -d)
pid=
stop_fresh_server() {
    [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
    rm -rf "$work"
}
trap stop_fresh_server EXIT

start_fresh_server() {
    cargo build -q
    cargo run -q -- serve "$@" --listen 127.0.0.1:0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        [ -s "$work/data/credentials.json" ] && return 0
        kill -0 "$pid" 2>/dev/null || { echo "serve $* exited:"; cat "$work/serve.log"; exit 1; }
        sleep 0.1
    done
    echo "serve $* wrote no credentials:"; cat "$work/serve.log"; exit 1
}
