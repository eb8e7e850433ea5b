#!/usr/bin/env bash
# efficiency.sh — requests per generator CPU-second: loadgen vs autocannon and wrk.
#
# Usage: loadgen/bench/efficiency.sh [--connections N] [--duration SEC] [--gen-core C] [--repeat N]
#   [--target-core C] [--pg-core C] [--port P] [--no-pg] [--target haproxy|node|go] [--net] [--uuid]
#   [--queue-in-memory] [--smoke]
#   --connections  keep-alive connections, every tool (default 32)
#   --duration     seconds per run (default 10)
#   --repeat       interleaved repeats; medians are compared (default 3)
#   --gen-core     CPU core of the generator under test (default 0)
#   --target-core  CPU core of the target server (default 1)
#   --pg-core      CPU core of PostgreSQL (default: the generator's, so the target keeps its own; not counted)
#   --port         port of the throw-away PostgreSQL cluster (default 44700; the target: a free one)
#   --no-pg        skip the run that persists every sample into PostgreSQL
#   --target T     haproxy (default): HAProxy answering by itself, the fastest target, so the
#                  generators set the pace; node (target.js) or go (gotarget/): slower (README)
#   --net          also run loadgen on net.Socket instead of its raw libuv sockets (lib/raw-tcp.js)
#   --uuid         also run loadgen with bench/own-uuidv7.js's hand-written UUIDv7 (the package's cost)
#   --queue-in-memory  also persist with batches queued in memory behind a COPY in flight instead
#                  of spooled (bench/queue-in-memory.js): what spooling them costs
#   --smoke        1 s runs, once: that it runs here (CI), not a figure
# Same target, connections and duration; generator and target on different cores (taskset); wrk
# with one thread. CPU time: the generator's user+system (/usr/bin/time). loadgen sends a UUIDv7
# X-Correlation-ID per request; persisting COPYs every sample into a throw-away cluster.
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

# wrk: one thread (one core, as the others), its result as JSON (wrk-result.lua).
run_wrk() {
  cpu_time taskset -c "$GEN_CORE" wrk -t1 -c "$CONNECTIONS" -d "${DURATION}s" -s "$BENCH_DIR/wrk-result.lua" "$TARGET_URL"
  sed -i -n '/^{/p' "$CPU_OUT"  # wrk's human table, then its JSON line
  REQS="$(total_requests wrk)"
  warn_errors wrk "$(jq '.errors' "$CPU_OUT")"
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
  local port=44700 pg=1 pg_core='' with_net=0 with_uuid=0 with_memq=0 target=haproxy
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --connections) CONNECTIONS="$2"; shift ;;  --duration) DURATION="$2"; shift ;;
      --gen-core) GEN_CORE="$2"; shift ;;  --target-core) TARGET_CORE="$2"; shift ;;
      --port) port="$2"; shift ;;  --repeat) REPEAT="$2"; shift ;;  --pg-core) pg_core="$2"; shift ;;
      --no-pg) pg=0 ;;  --smoke) DURATION=1 REPEAT=1 ;;  --net) with_net=1 ;;  --uuid) with_uuid=1 ;;
      --target) target="$2"; shift ;;  --queue-in-memory) with_memq=1 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac
    shift
  done
  command -v wrk >/dev/null || die "needs wrk (scripts/setup.sh installs it)"
  trap cleanup EXIT
  CPU_OUT="$(mktemp /tmp/cfscale-loadgen-bench-out-XXXXXX)"
  RESULTS="$(mktemp /tmp/cfscale-loadgen-bench-res-XXXXXX)"
  CLEANUP_DIRS+=("$CPU_OUT" "$RESULTS")
  start_target "$TARGET_CORE" "$target"
  TARGET_URL="http://127.0.0.1:$TARGET_PORT/"
  log "$target target on core $TARGET_CORE, generators on core $GEN_CORE, $CONNECTIONS connections, ${DURATION}s each"
  local db="" round="" rep
  if [[ "$pg" == 1 ]]; then
    start_pg "$port" "${pg_core:-$GEN_CORE}"
    db="$DB_URL" round="$(new_round "$DB_URL" "$TARGET_URL")"
  fi
  # Interleaved repeats: a shared machine's load drifts; the median of each tool is compared.
  for rep in $(seq "$REPEAT"); do
    log "repeat $rep of $REPEAT"
    run_autocannon; record autocannon
    run_wrk; record wrk
    run_loadgen; record loadgen
    if [[ "$with_net" == 1 ]]; then SOCKETS=net run_loadgen; record loadgen-net-sockets; fi
    if [[ "$with_uuid" == 1 ]]; then PRELOAD="$BENCH_DIR/own-uuidv7.js" run_loadgen; record loadgen-own-uuid; fi
    [[ "$pg" == 0 ]] || { run_loadgen --results-db "$db" --round "$round" --spool-dir "$PG_DIR/spool"; record loadgen+persist; }
    [[ "$pg" == 0 || "$with_memq" == 0 ]] || { PRELOAD="$BENCH_DIR/queue-in-memory.js" run_loadgen --results-db "$db" \
      --round "$round" --spool-dir "$PG_DIR/spool"; record loadgen+persist-memq; }
  done
  node "$BENCH_DIR/efficiency-summary.js" "$RESULTS" "$DURATION"
  [[ "$pg" == 0 ]] || echo "rows in requests: $(psql "$db" -Atq -c "SELECT count(*) FROM requests WHERE round_id = $round")" \
    "of $(awk '$1 ~ /^loadgen\+persist/ { s += $2 } END { print s + 0 }' "$RESULTS") sent with persistence"
}

main "$@"
