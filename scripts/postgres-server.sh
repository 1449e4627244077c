#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests: `start` makes a cluster in a temporary directory and
# starts it on 127.0.0.1 (trust authentication, user postgres), printing its URL; `restart` stops it
# immediately (as a crash would) and starts it again; `stop` stops it and removes the directory; `ca`
# prints the server's TLS certificate. PostgreSQL 15 from Debian's
# `postgresql` package and `openssl` (`make deps-postgres`).
set -euo pipefail
dir=${MODELGEN_PG_DIR:-/tmp/modelgen-postgres-test}
port=${MODELGEN_PG_PORT:-54329}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$bin" ] || bin=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")
as_owner() {
    # initdb and postgres refuse to run as root: run them as the postgres user then.
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "${1:-}" in
start)
    [ -x "$bin/initdb" ] || { echo "postgres-server: no PostgreSQL server binaries (initdb) found; install Debian's postgresql (make deps-postgres)" >&2; exit 3; }
    "$0" stop >/dev/null 2>&1 || true
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    # TLS with a throw-away certificate for 127.0.0.1 and localhost (`ca` prints it: clients trust it
    # with sslrootcert=…); clients that say sslmode=disable still connect without TLS.
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=localhost" \
        -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$dir/server.key" -out "$dir/server.crt" >"$dir/openssl.log" 2>&1 \
        || { cat "$dir/openssl.log" >&2; exit 1; }
    chmod 600 "$dir/server.key"
    [ "$(id -u)" = 0 ] && chown postgres "$dir/server.key" "$dir/server.crt"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key" start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
ca)
    echo "$dir/server.crt"
    ;;
restart)
    # An immediate restart: the server stops without a checkpoint (as a crash does), every connection
    # is cut, and the next start recovers from the write-ahead log.
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m immediate -w restart >/dev/null \
        || { tail -20 "$dir/server.log" >&2; exit 1; }
    ;;
stop)
    if [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|restart|ca|stop" >&2; exit 2
    ;;
esac
