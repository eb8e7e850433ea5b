#!/usr/bin/env bash
# efficiency.sh — requests per generator CPU-second: loadgen vs autocannon.
#
# Usage: loadgen/bench/efficiency.sh [--connections N] [--duration SEC] [--gen-core C]
#                                    [--repeat N] [--target-core C] [--pg-core C] [--port P] [--no-pg]
#                                    [--target haproxy|node|go] [--net] [--uuid] [--smoke]
#   --connections  keep-alive connections, both tools (default 32)
#   --duration     seconds per run (default 10)
#   --repeat       interleaved repeats; medians are compared (default 3)
#   --gen-core     CPU core of the generator under test (default 0)
#   --target-core  CPU core of the target server and PostgreSQL (default 1)
#   --pg-core      CPU core of PostgreSQL (default: the generator's core, so the target keeps
#                  its core to itself; PostgreSQL's CPU is not the generator's and is not counted)
#   --port         port of the throw-away PostgreSQL cluster (default 44700; the target: a free one)
#   --no-pg        skip the run that persists every sample into PostgreSQL
#   --target T     haproxy (default): HAProxy answering every request itself, one thread, no
#                  backend: the fastest target, so the generators set the pace; node (target.js)
#                  or go (gotarget/): slower than either generator on one core (loadgen/README.md,
#                  "Why the target")
#   --net          also run loadgen on net.Socket (CFSCALE_LOADGEN_SOCKETS=net) instead of
#                  its raw libuv sockets (lib/raw-tcp.js), to show what those save
#   --uuid         also run loadgen with bench/own-uuidv7.js's hand-written UUIDv7 (the package's cost)
#   --smoke        1 s runs, once: that it runs here (CI), not a figure
# Same target, connections and duration; generator and target on different cores (taskset).
# CPU time: the generator's user+system (/usr/bin/time). loadgen sends a UUIDv7 X-Correlation-ID
# per request (echoed); persisting COPYs every sample into a throw-away cluster's `requests`.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
# shellcheck source=loadgen/bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

run_autocannon() {
  cpu_time taskset -c "$GEN_CORE" node "$LOADGEN_DIR/node_modules/autocannon/autocannon.js" \
    -c "$CONNECTIONS" -d "$DURATION" --json "$TARGET_URL"
  REQS="$(total_requests autocannon)"
  warn_errors autocannon "$(jq '.errors + .timeouts + .non2xx' "$CPU_OUT")"
}

run_loadgen() {
  cpu_time env CFSCALE_LOADGEN_SOCKETS="${SOCKETS:-}" taskset -c "$GEN_CORE" node ${PRELOAD:+-r "$PRELOAD"} "$LOADGEN_DIR/bin/loadgen.js" --url "$TARGET_URL" \
    --parallel "$CONNECTIONS" --duration "${DURATION}s" --json --no-progress "$@"
  REQS="$(total_requests loadgen)"
  warn_errors loadgen "$(jq '.requests.errors' "$CPU_OUT")"
}

# warn_errors TOOL N: a run with failed requests compares unlike work; say so beside the figures.
warn_errors() { [[ "$2" == 0 ]] || log "warning: $1 had $2 failed requests in this run (counted in its req/cpu_s)"; }

record() { echo "$1 $REQS $CPU_SEC" >>"$RESULTS"; }  # record NAME: this run's requests and CPU seconds

main() {
  CONNECTIONS=32 DURATION=10 GEN_CORE=0 TARGET_CORE=1 REPEAT=3
  local port=44700 pg=1 pg_core='' with_net=0 with_uuid=0 target=haproxy
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --connections) CONNECTIONS="$2"; shift ;;
      --duration) DURATION="$2"; shift ;;
      --gen-core) GEN_CORE="$2"; shift ;;
      --target-core) TARGET_CORE="$2"; shift ;;
      --port) port="$2"; shift ;;
      --repeat) REPEAT="$2"; shift ;;
      --pg-core) pg_core="$2"; shift ;;
      --no-pg) pg=0 ;;  --smoke) DURATION=1 REPEAT=1 ;;
      --net) with_net=1 ;;  --uuid) with_uuid=1 ;;
      --target) target="$2"; shift ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac
    shift
  done
  trap cleanup EXIT
  CPU_OUT="$(mktemp /tmp/cfscale-loadgen-bench-out-XXXXXX)"
  CLEANUP_DIRS+=("$CPU_OUT")
  start_target "$TARGET_CORE" "$target"
  TARGET_URL="http://127.0.0.1:$TARGET_PORT/"
  log "$target target on core $TARGET_CORE, generators on core $GEN_CORE, $CONNECTIONS connections, ${DURATION}s each"
  local db="" round="" rep
  if [[ "$pg" == 1 ]]; then
    start_pg "$port" "${pg_core:-$GEN_CORE}"
    db="$DB_URL" round="$(new_round "$DB_URL" "$TARGET_URL")"
  fi
  RESULTS="$(mktemp /tmp/cfscale-loadgen-bench-res-XXXXXX)"
  CLEANUP_DIRS+=("$RESULTS")
  # Interleaved repeats: a shared machine's load drifts; the median of each tool is compared.
  for rep in $(seq "$REPEAT"); do
    log "repeat $rep of $REPEAT"
    run_autocannon; record autocannon
    run_loadgen; record loadgen
    if [[ "$with_net" == 1 ]]; then SOCKETS=net run_loadgen; record loadgen-net-sockets; fi
    if [[ "$with_uuid" == 1 ]]; then PRELOAD="$BENCH_DIR/own-uuidv7.js" run_loadgen; record loadgen-own-uuid; fi
    if [[ "$pg" == 1 ]]; then
      run_loadgen --results-db "$db" --round "$round" --spool-dir "$PG_DIR/spool"; record loadgen+persist
    fi
  done
  node "$BENCH_DIR/efficiency-summary.js" "$RESULTS" "$DURATION"
  [[ "$pg" == 0 ]] || echo "rows in requests: $(psql "$db" -Atq -c "SELECT count(*) FROM requests WHERE round_id = $round")" \
    "of $(awk '$1 == "loadgen+persist" { s += $2 } END { print s + 0 }' "$RESULTS") sent with persistence"
}

main "$@"
