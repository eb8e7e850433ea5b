#!/usr/bin/env bash
# efficiency.sh — requests per generator CPU-second: loadgen vs autocannon.
#
# Usage: loadgen/bench/efficiency.sh [--connections N] [--duration SEC] [--gen-core C]
#                                    [--target-core C] [--pg-core C] [--port P] [--no-pg]
#   --connections  keep-alive connections, both tools (default 32)
#   --duration     seconds per run (default 10)
#   --gen-core     CPU core of the generator under test (default 0)
#   --target-core  CPU core of the target server and PostgreSQL (default 1)
#   --pg-core      CPU core of PostgreSQL (default: the generator's core, so the target keeps
#                  its core to itself; PostgreSQL's CPU is not the generator's and is not counted)
#   --port         port of the throw-away PostgreSQL cluster (default 44700; the target
#                  takes a free port)
#   --no-pg        skip the run that persists every sample into PostgreSQL
#
# Same target (bench/target.js, a minimal node:http server), same connections and
# duration, generator and target pinned to different cores with taskset. CPU time
# is the generator process's user+system time from /usr/bin/time. loadgen sends a
# unique UUIDv7 X-Correlation-ID per request; with persistence every sample is also
# COPYed into `requests` of a throw-away cluster (scripts/pg-cluster.sh).
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
# shellcheck source=loadgen/bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

run_autocannon() {
  cpu_time taskset -c "$GEN_CORE" node "$LOADGEN_DIR/node_modules/autocannon/autocannon.js" \
    -c "$CONNECTIONS" -d "$DURATION" --json "$TARGET_URL"
  REQS="$(jq '.requests.total' "$CPU_OUT")"
}

run_loadgen() {
  cpu_time taskset -c "$GEN_CORE" node "$LOADGEN_DIR/bin/loadgen.js" --url "$TARGET_URL" \
    --parallel "$CONNECTIONS" --duration "${DURATION}s" --json --no-progress "$@"
  REQS="$(jq '.requests.total' "$CPU_OUT")"
}

report_line() {
  local name="$1" reqs="$2" cpu="$3" base="$4"
  awk -v n="$name" -v r="$reqs" -v c="$cpu" -v d="$DURATION" -v b="$base" 'BEGIN {
    eff = (c > 0) ? r / c : 0
    printf "%-28s %10d %12.0f %8.2f %14.0f %8s\n", n, r, r / d, c, eff, (b > 0) ? sprintf("%.2fx", eff / b) : "1.00x"
  }'
}

main() {
  CONNECTIONS=32 DURATION=10 GEN_CORE=0 TARGET_CORE=1
  local port=44700 pg=1 pg_core=
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --connections) CONNECTIONS="$2"; shift ;;
      --duration) DURATION="$2"; shift ;;
      --gen-core) GEN_CORE="$2"; shift ;;
      --target-core) TARGET_CORE="$2"; shift ;;
      --port) port="$2"; shift ;;
      --pg-core) pg_core="$2"; shift ;;
      --no-pg) pg=0 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac
    shift
  done
  trap cleanup EXIT
  CPU_OUT="$(mktemp /tmp/cfscale-loadgen-bench-out-XXXXXX)"
  CLEANUP_DIRS+=("$CPU_OUT")
  start_target "$TARGET_CORE"
  TARGET_URL="http://127.0.0.1:$TARGET_PORT/"
  log "target on core $TARGET_CORE, generators on core $GEN_CORE, $CONNECTIONS connections, ${DURATION}s each"

  run_autocannon
  local ac_reqs="$REQS" ac_cpu="$CPU_SEC" ac_eff
  ac_eff="$(awk -v r="$ac_reqs" -v c="$ac_cpu" 'BEGIN { print (c > 0) ? r / c : 0 }')"
  run_loadgen
  local lg_reqs="$REQS" lg_cpu="$CPU_SEC"
  local pg_reqs="" pg_cpu="" rows=""
  if [[ "$pg" == 1 ]]; then
    local db round
    start_pg "$port" "${pg_core:-$GEN_CORE}"
    db="$DB_URL"
    round="$(new_round "$db" "$TARGET_URL")"
    run_loadgen --results-db "$db" --round "$round"
    pg_reqs="$REQS" pg_cpu="$CPU_SEC"
    rows="$(psql "$db" -Atq -c "SELECT count(*) FROM requests WHERE round_id = $round")"
  fi

  printf "%-28s %10s %12s %8s %14s %8s\n" tool requests "req/s(wall)" cpu_s "req/cpu_s" ratio
  report_line "autocannon" "$ac_reqs" "$ac_cpu" 0
  report_line "loadgen" "$lg_reqs" "$lg_cpu" "$ac_eff"
  if [[ "$pg" == 1 ]]; then
    report_line "loadgen + persist (COPY)" "$pg_reqs" "$pg_cpu" "$ac_eff"
    echo "rows in requests: $rows of $pg_reqs sent"
  fi
}

main "$@"
