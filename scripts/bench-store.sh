#!/usr/bin/env bash
# How long `runner history --store` takes as the store grows: synthetic runs
# (scripts/bench-store-fill.py) imported with `runner store import`, then
# `runner history --store` timed TIMES times per size, SQLite and (when
# PostgreSQL 15 and the user runner-pg exist) PostgreSQL. Prints figures;
# never a test. Usage: scripts/bench-store.sh [SIZES] (default
# "250x50 250x200 500x200 1000x200", RUNSxCONFIGS); RUNNER=path/to/runner
# (default target/release/runner); TIMES=3.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNNER=${RUNNER:-target/release/runner}
TIMES=${TIMES:-3}
SIZES=${1:-"250x50 250x200 500x200 1000x200"}
RUNNER=$(realpath "$RUNNER" 2>/dev/null || echo "$RUNNER")
[ -x "$RUNNER" ] || { echo "build it first: cargo build --release (or RUNNER=...)" >&2; exit 2; }
work=$(mktemp -d)
pg_pid=""
cleanup() { [ -n "$pg_pid" ] && kill "$pg_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

pg_url=""
if [ -x /usr/lib/postgresql/15/bin/postgres ] && id runner-pg >/dev/null 2>&1; then
  chmod 777 "$work"; echo bench > "$work/pw"; chmod 644 "$work/pw"
  as_pg="setpriv --reuid=runner-pg --regid=runner-pg --clear-groups --"
  $as_pg /usr/lib/postgresql/15/bin/initdb -D "$work/pg" -U runner -A scram-sha-256 --pwfile="$work/pw" --no-sync >/dev/null
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  $as_pg /usr/lib/postgresql/15/bin/postgres -D "$work/pg" -h 127.0.0.1 -p "$port" -k "$work" -c fsync=off >/dev/null 2>&1 &
  pg_pid=$!
  # Bounded wait for the port (20 s), then a clear stop rather than timing a store that is not up.
  for _ in $(seq 1 100); do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.2; done
  (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null ||
    { echo "bench-store: PostgreSQL did not accept on 127.0.0.1:$port within 20 s" >&2; exit 1; }
  pg_url="postgres://runner:bench@127.0.0.1:$port/postgres"
fi

printf '%-8s %-6s %-8s %-10s %s\n' engine runs configs import_s "history_s (each of $TIMES; median)"
for size in $SIZES; do
  runs=${size%x*}; configs=${size#*x}
  rm -rf "$work/runs"; python3 scripts/bench-store-fill.py "$runs" "$configs" "$work/runs"
  for engine in sqlite postgres; do
    case $engine in
      sqlite) url="sqlite:$work/store-$size.db" ;;
      postgres) [ -n "$pg_url" ] || continue
        url="$pg_url"
        PGPASSWORD=bench psql -h 127.0.0.1 -p "$port" -U runner -d postgres -qc \
          'DROP TABLE IF EXISTS runs, run_labels, run_files, configurations, repeats, schema_version' 2>/dev/null || true ;;
    esac
    t0=$(date +%s.%N)
    "$RUNNER" store import "$url" "$work/runs" >/dev/null
    import_s=$(echo "$(date +%s.%N) - $t0" | bc)
    times=()
    for _ in $(seq 1 "$TIMES"); do
      t0=$(date +%s.%N)
      code=0; (cd "$work" && "$RUNNER" history --store "$url" store-bench --format json >/dev/null 2>"$work/err") || code=$?
      # 0 or 1 are verdicts; anything else is a failure, shown.
      [ "$code" -le 1 ] || { cat "$work/err" >&2; exit 2; }
      times+=("$(echo "$(date +%s.%N) - $t0" | bc)")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (TIMES + 1) / 2 ))p")
    printf '%-8s %-6s %-8s %-10.2f %s; median %.2f\n' "$engine" "$runs" "$configs" "$import_s" "${times[*]}" "$median"
  done
done
