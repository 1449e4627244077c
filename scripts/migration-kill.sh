#!/usr/bin/env bash
# The staged-migration kill test at full size (issue 39): a store of the clinic's version 1 with ROWS
# patients (and about as many visits) is migrated to version 4 through three stages (a rename, a type
# change by code, a split and a new required attribute by code) by `modelgen-store-stress migrate`, which
# is killed with SIGKILL at random moments. After every kill the store must be at one version with every
# row as that version has it (`migrate-check`), and opening it again must finish the work.
#   scripts/migration-kill.sh BINARY ROWS ROUNDS STORE
# STORE is a SQLite path (each round migrates a fresh copy of the seeded file, killed once) or a
# postgres:// URL with schema= (one store, killed ROUNDS times as the migration goes on, then finished).
set -euo pipefail
bin=$1 rows=$2 rounds=$3 store=$4
check() {
    local out
    out=$("$bin" migrate-check "$1" "$rows") || { echo "migration-kill: $2: wrong rows after the kill:"; echo "$out"; exit 1; } >&2
    echo "$out" | head -1
}
elapsed() { echo $(( $(date +%s%N) / 1000000 - $1 )); }
# migrate_whole STORE: migrates STORE to version 4 in one run and sets `whole` to the run's milliseconds
# (each kill below lands at a random moment within that time, so in several stages at any size and speed).
migrate_whole() {
    local start=$(( $(date +%s%N) / 1000000 ))
    "$bin" migrate "$1" >/dev/null
    whole=$(elapsed $start)
    [ "$(check "$1" whole)" = version=4 ] || exit 1
    echo "migrated $rows patients through 3 stages in $whole ms"
}
# kill_within STORE: runs a migration of STORE and kills it after a random `delay` of at most `whole` ms.
kill_within() {
    delay=$(( RANDOM * 32768 + RANDOM )); delay=$(( delay % (whole + 1) ))
    "$bin" migrate "$1" > /tmp/migration-kill.out & pid=$!
    sleep "$(awk -v d=$delay 'BEGIN { printf "%.3f", d / 1000 }')"
    kill -9 $pid 2>/dev/null || true; wait $pid 2>/dev/null || true
}
[[ $store == postgres* ]] || mkdir -p "$(dirname "$store")"
start=$(( $(date +%s%N) / 1000000 ))
"$bin" migrate-seed "$store" "$rows" >/dev/null
echo "seeded $rows patients in $(elapsed $start) ms"
if [[ $store == postgres* ]]; then
    # The whole migration is timed on a second store seeded alike (schema timed_NAME).
    timed=${store/schema=/schema=timed_}
    "$bin" migrate-seed "$timed" "$rows" >/dev/null
    migrate_whole "$timed"
    for round in $(seq 1 "$rounds"); do
        kill_within "$store"
        version=$(check "$store" "round $round")
        echo "round $round: killed after $delay ms at $version ($(grep -c finished /tmp/migration-kill.out || true) stages finished in that run)"
        grep -q done /tmp/migration-kill.out && break
    done
    "$bin" migrate "$store" | tail -1
    [ "$(check "$store" final)" = version=4 ] || { echo "migration-kill: the store is not at version 4 after reopening" >&2; exit 1; }
else
    cp "$store" "$store.seeded"
    migrate_whole "$store"
    for round in $(seq 1 "$rounds"); do
        rm -f "$store" "$store-wal" "$store-shm"; cp "$store.seeded" "$store"
        kill_within "$store"
        version=$(check "$store" "round $round")
        "$bin" migrate "$store" >/dev/null
        [ "$(check "$store" "round $round, reopened")" = version=4 ] || { echo "migration-kill: round $round: not at version 4 after reopening" >&2; exit 1; }
        echo "round $round: killed after $delay ms at $version; reopening finished at version 4"
    done
    rm -f "$store.seeded"
fi
echo "migration-kill: every kill left one version with its rows, and reopening finished"
