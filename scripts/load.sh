#!/usr/bin/env bash
# make load (issue 40): Examples/Server under concurrent writers, on SQLite (one server) and on
# PostgreSQL (two server processes on one schema, the clients alternating between them): CLIENTS
# clients each post PRODUCTS products into the same three categories, found or created by name; then
# one client does the same work serially, on a fresh store. scripts/load-server.py prints requests
# per second and p50/p99 latency and checks that nothing failed and everything was stored. Release
# build; servers on 127.0.0.1 only; each run bounded by its request count.
set -euo pipefail
cd "$(dirname "$0")/.."
clients=${CLIENTS:-32}
products=${PRODUCTS:-50}
server=Examples/Server
swift build -c release --package-path "$server" --product shop-server >/tmp/modelgen-load-build.log 2>&1 \
    || { tail -30 /tmp/modelgen-load-build.log; exit 1; }
bin="$(swift build -c release --package-path "$server" --show-bin-path)/shop-server"
work=$(mktemp -d /tmp/modelgen-load-XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
    scripts/postgres-server.sh stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
failed=0

# Starts shop-server on STORE and PORT; waits until it answers (at most 120 s).
start_server() {
    SHOP_STORE="$1" PORT="$2" "$bin" >>"$work/server-$2.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 600); do
        curl -s "http://127.0.0.1:$2/health" >/dev/null 2>&1 && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || { echo "shop-server on port $2 exited:"; tail -5 "$work/server-$2.log"; return 1; }
        sleep 0.2
    done
    return 1
}
stop_servers() {
    for pid in "${pids[@]:-}"; do [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; done
    pids=()
}
# Runs LABEL, MODE (concurrent or serial) CLIENTS x PRODUCTS, against the servers on PORTS (each
# started on STORE).
run() {
    local label=$1 mode=$2 store=$3; shift 3
    local urls=()
    for port in "$@"; do start_server "$store" "$port" || { failed=1; stop_servers; return; }; urls+=("http://127.0.0.1:$port"); done
    python3 scripts/load-server.py "$label" "$clients" "$products" "$mode" "${urls[@]}" || failed=1
    stop_servers
    echo "  find-or-create races the server retried on purpose: $(cat "$work"/server-*.log | grep -c "^retry " || true)"
    if grep -h "^[45]0[0-9] " "$work"/server-*.log >/dev/null 2>&1; then
        echo "  the servers logged these failures:"; grep -h "^[45]0[0-9] " "$work"/server-*.log | head -5
    fi
    rm -f "$work"/server-*.log
}

run "SQLite, concurrent" concurrent "$work/concurrent.sqlite" 18101
run "SQLite, one client serially" serial "$work/serial.sqlite" 18102
if url=$(scripts/postgres-server.sh start 2>"$work/pg.log"); then
    run "PostgreSQL, concurrent" concurrent "$url?schema=load_concurrent" 18103 18104
    run "PostgreSQL, one client serially" serial "$url?schema=load_serial" 18105
else
    echo "no PostgreSQL server could be started ($(tail -1 "$work/pg.log")); make deps-postgres installs one"
    failed=1
fi
[ "$failed" = 0 ] && echo "load: every run passed" || { echo "load: a run failed"; exit 1; }
