#!/usr/bin/env bash
# lib.sh — what the app benchmarks share (sourced by bench/apps/throughput.sh and
# bench/apps/settings.sh, not run): their own PostgreSQL cluster, one app variant started
# pinned to APP_CPU on fresh databases with SEED_ADS ads, and the cleanup. The sourcing
# script defines ROOT, PG_CLUSTER, PORT_MIN, PORT_MAX, APP_CPU, SEED_ADS, TIMINGS_CAPACITY,
# WORK (its temp dir) and APP_PID="", and sources contract/lib/variants.sh (whose die() is
# the one here).
# shellcheck disable=SC2034

log() { echo "$(basename "$0" .sh): $*" >&2; }
die() { echo "$(basename "$0" .sh): $*" >&2; exit 1; }
# The script's header comment, from line 2 to `set -euo`, is its --help.
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }

# The bench's machine checks, temp dir, cleanup on exit and PostgreSQL cluster.
bench_setup() {
  command -v taskset >/dev/null || die "taskset not found (util-linux)"
  [[ "$(nproc)" -ge 2 ]] || die "needs 2 CPUs (app and generator on different cores)"
  APP_PID=""
  WORK="$(mktemp -d /tmp/cfscale-contract-bench-XXXXXX)"
  chmod 755 "$WORK"
  trap cleanup EXIT
  start_pg
}

cleanup() {
  [[ -n "$APP_PID" ]] && { kill "$APP_PID" 2>/dev/null || true; wait "$APP_PID" 2>/dev/null || true; }
  "$PG_CLUSTER" stop --dir "$WORK/pg" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}

start_pg() {
  local port tries
  for ((tries = 1; ; tries++)); do
    free_port port
    PG_DIR="$WORK/pg"
    PG_URL="$("$PG_CLUSTER" start --dir "$PG_DIR" --port "$port" 2>"$WORK/pg.err")" && return 0
    ((tries < 3)) || { cat "$WORK/pg.err" >&2; die "could not start PostgreSQL"; }
  done
}

# Start variant $1 pinned to APP_CPU, with the NAME=value words $2 (settings on top of the
# variant's own); sets APP_PID (the app process itself) and APP_URL.
start_app() {
  local v="$1" port app_db results_db cmd env extra=() deadline
  app_db="$(fresh_db bench_app)"
  results_db="$(fresh_db bench_results)"
  psql "$results_db" -q -v ON_ERROR_STOP=1 -f "$ROOT/results-schema.sql" >/dev/null 2>&1
  # The same file holds the ads table (the apps create it too, maybe only later).
  psql "$app_db" -q -v ON_ERROR_STOP=1 -f "$ROOT/results-schema.sql" >/dev/null 2>&1
  read -r -a cmd <<<"$(variant_cmd "$v")"
  read -r -a env <<<"$(variant_env "$v")"
  [[ -n "${2:-}" ]] && read -r -a extra <<<"$2"
  free_port port
  (cd "$ROOT" && exec env -u VCAP_SERVICES -u VCAP_APPLICATION PORT="$port" DATABASE_URL="$app_db" \
    RESULTS_DATABASE_URL="$results_db" TIMINGS_CAPACITY="$TIMINGS_CAPACITY" APP_NAME="bench-$v" \
    "${env[@]}" "${extra[@]}" taskset -c "$APP_CPU" "${cmd[@]}" >"$WORK/$v.log" 2>&1) &
  APP_PID=$!
  APP_URL="http://127.0.0.1:$port"
  deadline=$((SECONDS + 60))
  until curl -fsS -o /dev/null "$APP_URL/health" 2>/dev/null; do
    if ! kill -0 "$APP_PID" 2>/dev/null || ((SECONDS >= deadline)); then
      tail -n 20 "$WORK/$v.log" >&2
      die "$v did not start"
    fi
    sleep 0.2
  done
  psql "$app_db" -q -c "INSERT INTO ads (title, body, price, contact)
    SELECT 'Ad ' || g, 'Body of ad ' || g, g % 1000, 'seller' || g || '@example.com'
    FROM generate_series(1, $SEED_ADS) g" >/dev/null
}

stop_app() {
  kill "$APP_PID" 2>/dev/null || true
  wait "$APP_PID" 2>/dev/null || true
  APP_PID=""
}

