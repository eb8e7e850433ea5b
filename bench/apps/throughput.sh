#!/usr/bin/env bash
# throughput.sh — what timing recording costs each app: req/s of GET /ads/{id} and
# POST /ads with recording ON and OFF, measured in the same run, interleaved.
#
# Usage: bench/apps/throughput.sh [--only VARIANT[,VARIANT...]] [--duration 10s] [--reps 3]
#                                 [--parallel 32]
#   variants: node-raw node-express node-cluster java (default: all)
#
# Starts a PostgreSQL cluster of its own (temp dir /tmp/cfscale-contract-bench-*, port
# 43000-43999), then per variant: fresh databases with 1000 ads, the app pinned to CPU 0,
# the load generator (loadgen CLI, else npx autocannon) pinned to CPU 1, and
# bench/apps/measure.js doing the interleaved runs. Prints a table: median req/s with
# recording on and off and the ratio off/on (target: <= 1.03, recording costs <= 3 %).
# On demand only (not in CI). Exit 0 ok, 1 usage/setup error, 2 a measurement failed.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly ROOT
readonly PG_CLUSTER="$ROOT/scripts/pg-cluster.sh"
readonly PORT_MIN=43000
readonly PORT_MAX=43999
readonly APP_CPU=0
readonly LOAD_CPU=1
readonly SEED_ADS=1000
readonly TIMINGS_CAPACITY=2000000 # never full within one run: drops would make "on" cheaper

log() { echo "throughput: $*" >&2; }
die() { echo "throughput: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }

# shellcheck source=contract/lib/variants.sh
source "$ROOT/contract/lib/variants.sh"

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

# Start variant $1 pinned to APP_CPU; sets APP_PID and APP_URL.
start_app() {
  local v="$1" port app_db results_db cmd env deadline
  app_db="$(fresh_db bench_app)"
  results_db="$(fresh_db bench_results)"
  psql "$results_db" -q -v ON_ERROR_STOP=1 -f "$ROOT/results-schema.sql" >/dev/null 2>&1
  # The same file holds the ads table (the apps create it too, maybe only later).
  psql "$app_db" -q -v ON_ERROR_STOP=1 -f "$ROOT/results-schema.sql" >/dev/null 2>&1
  read -r -a cmd <<<"$(variant_cmd "$v")"
  read -r -a env <<<"$(variant_env "$v")"
  free_port port
  (cd "$ROOT" && exec env -u VCAP_SERVICES -u VCAP_APPLICATION PORT="$port" DATABASE_URL="$app_db" \
    RESULTS_DATABASE_URL="$results_db" TIMINGS_CAPACITY="$TIMINGS_CAPACITY" APP_NAME="bench-$v" \
    "${env[@]}" taskset -c "$APP_CPU" "${cmd[@]}" >"$WORK/$v.log" 2>&1) &
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

main() {
  local only="" duration=10s reps=3 parallel=32 v
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --only) only="${2:-}"; shift ;;
      --duration) duration="${2:-}"; shift ;;
      --reps) reps="${2:-}"; shift ;;
      --parallel) parallel="${2:-}"; shift ;;
      -h|--help) usage; exit 0 ;;
      *) usage >&2; die "unknown option: $1" ;;
    esac
    shift
  done
  local variants=("${ALL_VARIANTS[@]}")
  [[ -n "$only" ]] && IFS=, read -r -a variants <<<"$only"
  for v in "${variants[@]}"; do variant_cmd "$v" >/dev/null; done
  command -v taskset >/dev/null || die "taskset not found (util-linux)"
  [[ "$(nproc)" -ge 2 ]] || die "needs 2 CPUs (app and generator on different cores)"

  APP_PID=""
  WORK="$(mktemp -d /tmp/cfscale-contract-bench-XXXXXX)"
  chmod 755 "$WORK"
  trap cleanup EXIT
  start_pg
  local rows=() out
  for v in "${variants[@]}"; do
    log "$v: start, seed $SEED_ADS ads, measure ($reps x on/off, $duration each, $parallel in flight)"
    start_app "$v"
    out="$(node "$ROOT/bench/apps/measure.js" --url "$APP_URL" --app "$v" --duration "$duration" \
      --reps "$reps" --parallel "$parallel" --cpu "$LOAD_CPU" --ids "1-$SEED_ADS")" || { stop_app; exit 2; }
    rows+=("$out")
    stop_app
  done
  {
    printf 'app\toperation\ton req/s\toff req/s\toff/on\tpairs off/on\tpair range\treps\n'
    printf '%s\n' "${rows[@]}"
  } | column -t -s $'\t'
}

main "$@"
