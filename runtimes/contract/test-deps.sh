#!/usr/bin/env bash
# The downstreams of the microservices scenarios, for the services' own tests:
# a throwaway PostgreSQL seeded with products.sql and the three stubs of
# microservices.json's `dashboard.downstreams`, all on 127.0.0.1.
#
#   eval "$(runtimes/contract/test-deps.sh start /tmp/deps)"   # exports TEST_* variables
#   runtimes/contract/test-deps.sh reset /tmp/deps             # reseed the products table
#   runtimes/contract/test-deps.sh stop /tmp/deps              # stop everything, remove the folder
#
# `start` prints the exports on stdout (DATABASE_URL-style URL and the stub
# base URLs) and also writes them to DIR/env. Every process is recorded in
# DIR/pids and ended by PID at `stop`; nothing is found by name. As root the
# database runs as the system user runner-pg (scripts/install-postgres.sh
# creates it), because PostgreSQL refuses to run as root.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cmd="${1:?usage: test-deps.sh start|reset|stop DIR}"
dir="${2:?usage: test-deps.sh start|reset|stop DIR}"
pgbin="${PG_BIN:-/usr/lib/postgresql/15/bin}"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
as_pg() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=runner-pg --regid=runner-pg --init-groups "$@"; else "$@"; fi; }
# Runs in a subshell `( ... ) &` and replaces it (exec, and setpriv execs in
# turn), so the `$!` recorded in pids is the server's own PID: a function run
# with `&` would leave a bash in between, which `stop` would end while the
# server, never signalled, lived on without its folder.
exec_as_pg() { if [ "$(id -u)" = 0 ]; then exec setpriv --reuid=runner-pg --regid=runner-pg --init-groups "$@"; else exec "$@"; fi; }
psql_db() { PGOPTIONS=--client-min-messages=warning "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$(cat "$dir/pg-port")" -U bench "$@"; }
wait_http() {
  for _ in $(seq 1 100); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "test-deps: $1 did not answer within 10 s" >&2
  return 1
}

seed() {
  psql_db -d bench -c 'DROP SCHEMA public CASCADE' -c 'CREATE SCHEMA public' >/dev/null
  psql_db -d bench -f "$here/products.sql" >/dev/null
}

case "$cmd" in
start)
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  # runner-pg must reach DIR/pg even when DIR came from mktemp -d (0700)
  [ "$(id -u)" = 0 ] && chmod go+x "$dir"
  : >"$dir/pids"
  mkdir -p "$dir/pg"
  [ "$(id -u)" = 0 ] && chown runner-pg:runner-pg "$dir/pg" && chmod 0700 "$dir/pg"
  as_pg "$pgbin/initdb" -D "$dir/pg/data" -U bench --auth=trust --no-locale --encoding=UTF8 --no-sync >"$dir/initdb.log"
  port="$(free_port)"
  echo "$port" >"$dir/pg-port"
  (exec_as_pg "$pgbin/postgres" -D "$dir/pg/data" -c listen_addresses=127.0.0.1 -c port="$port" \
    -c unix_socket_directories="$dir/pg" -c fsync=off -c synchronous_commit=off \
    -c full_page_writes=off -c max_connections=100) >"$dir/postgres.log" 2>&1 &
  echo $! >>"$dir/pids"
  for _ in $(seq 1 100); do "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$port" && break; sleep 0.1; done
  # $! above may be a shell around postgres rather than postgres: record the
  # postmaster's own PID too, or `stop` leaves the server running.
  head -n 1 "$dir/pg/data/postmaster.pid" >>"$dir/pids"
  psql_db -d postgres -c 'CREATE DATABASE bench' >/dev/null
  seed
  (cd "$here/../stub" && go build -trimpath -o build/stub .)
  declare -A urls
  for name in profile orders recommendations; do
    sport="$(free_port)"
    mapfile -t routes < <(python3 -c "import json,sys; print('\n'.join(json.load(open('$here/microservices.json'))['dashboard']['downstreams'][sys.argv[1]]))" "$name")
    (cd "$here/../stub" && exec ./build/stub --port "$sport" --seed 1 "${routes[@]}") >"$dir/stub-$name.log" 2>&1 &
    echo $! >>"$dir/pids"
    wait_http "http://127.0.0.1:$sport/health"
    urls[$name]="http://127.0.0.1:$sport"
  done
  {
    echo "export TEST_DATABASE_URL=postgresql://bench:bench@127.0.0.1:$port/bench"
    echo "export TEST_PROFILE_URL=${urls[profile]}"
    echo "export TEST_ORDERS_URL=${urls[orders]}"
    echo "export TEST_RECOMMENDATIONS_URL=${urls[recommendations]}"
    echo "export TEST_DEPS_DIR=$dir"
  } | tee "$dir/env"
  ;;
reset)
  seed
  ;;
stop)
  if [ -f "$dir/pids" ]; then
    while read -r pid; do kill -INT "$pid" 2>/dev/null || true; done <"$dir/pids"
    for _ in $(seq 1 50); do
      alive=0
      while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=1; done <"$dir/pids"
      [ "$alive" = 0 ] && break
      sleep 0.1
    done
    while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$dir/pids"
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: test-deps.sh start|reset|stop DIR" >&2
  exit 2
  ;;
esac
