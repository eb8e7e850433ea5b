#!/usr/bin/env bash
# efficiency.sh — requests per generator CPU-second: loadgen vs autocannon.
#
# Usage: loadgen/bench/efficiency.sh [--connections N] [--duration SEC] [--gen-core C]
#                                    [--repeat N] [--target-core C] [--pg-core C] [--port P] [--no-pg]
#                                    [--target haproxy|node|go] [--net]
#   --connections  keep-alive connections, both tools (default 32)
#   --duration     seconds per run (default 10)
#   --repeat       interleaved repeats; medians are compared (default 3)
#   --gen-core     CPU core of the generator under test (default 0)
#   --target-core  CPU core of the target server and PostgreSQL (default 1)
#   --pg-core      CPU core of PostgreSQL (default: the generator's core, so the target keeps
#                  its core to itself; PostgreSQL's CPU is not the generator's and is not counted)
#   --port         port of the throw-away PostgreSQL cluster (default 44700; the target
#                  takes a free port)
#   --no-pg        skip the run that persists every sample into PostgreSQL
#   --target T     haproxy (default): HAProxy answering every request itself on one thread
#                  (no backend), the fastest target here, so that the generators, not the
#                  target, set the pace and both run at full CPU; node (bench/target.js,
#                  node:http) or go (bench/gotarget, Go net/http): slower than either
#                  generator on one core, see "Why the target" below
#   --net          also run loadgen on net.Socket (CFSCALE_LOADGEN_SOCKETS=net) instead of
#                  its raw libuv sockets (lib/raw-tcp.js), to show what those save
#
# Same target, same connections and duration, generator and target pinned to different
# cores with taskset. CPU time is the generator process's user+system time from
# /usr/bin/time. loadgen sends a unique UUIDv7 X-Correlation-ID per request (every target
# echoes it); with persistence every sample is also COPYed into `requests` of a throw-away
# cluster (scripts/pg-cluster.sh).
#
# Why the target: requests per generator CPU-second is the generator's cost per request
# only when the generator is what sets the pace. Against a target slower than it, a
# generator waits for responses, sleeps in epoll_wait and pays a scheduler round trip for
# every few responses (the faster the generator, the fewer responses per wake-up): the
# figure then measures the target's pace as much as the generator. A node:http target on
# one core is slower than both generators (--target node shows it); HAProxy is not.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
# shellcheck source=loadgen/bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

run_autocannon() {
  cpu_time taskset -c "$GEN_CORE" node "$LOADGEN_DIR/node_modules/autocannon/autocannon.js" \
    -c "$CONNECTIONS" -d "$DURATION" --json "$TARGET_URL"
  REQS="$(jq '.requests.total' "$CPU_OUT")"
  warn_errors autocannon "$(jq '.errors + .timeouts + .non2xx' "$CPU_OUT")"
}

run_loadgen() {
  cpu_time env CFSCALE_LOADGEN_SOCKETS="${SOCKETS:-}" taskset -c "$GEN_CORE" node "$LOADGEN_DIR/bin/loadgen.js" --url "$TARGET_URL" \
    --parallel "$CONNECTIONS" --duration "${DURATION}s" --json --no-progress "$@"
  REQS="$(jq '.requests.total' "$CPU_OUT")"
  warn_errors loadgen "$(jq '.requests.errors' "$CPU_OUT")"
}

# warn_errors TOOL N: a run with failed requests compares unlike work; say so beside the figures.
warn_errors() { [[ "$2" == 0 ]] || log "warning: $1 had $2 failed requests in this run (counted in its req/cpu_s)"; }

# record NAME: appends this run's requests and CPU seconds to the results file.
record() { echo "$1 $REQS $CPU_SEC" >>"$RESULTS"; }

# summary: per tool the median of req/cpu_s over the repeats, and the ratio to autocannon's.
summary() {
  awk -v d="$DURATION" '
    { n[$1]++; r[$1, n[$1]] = $2; c[$1, n[$1]] = $3; e[$1, n[$1]] = ($3 > 0) ? $2 / $3 : 0
      if (!($1 in seen)) { seen[$1] = 1; order[++tools] = $1 } }
    function median(t,   i, j, k, v, m) {
      m = n[t]; for (i = 1; i <= m; i++) v[i] = e[t, i]
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { k = v[i]; v[i] = v[j]; v[j] = k }
      return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    END {
      base = median("autocannon")
      printf "%-22s %12s %14s %8s   %s\n", "tool", "req/s(wall)", "req/cpu_s(med)", "ratio", "req/cpu_s of each run"
      for (t = 1; t <= tools; t++) {
        name = order[t]; runs = ""; wall = 0
        for (i = 1; i <= n[name]; i++) { runs = runs sprintf(" %.0f", e[name, i]); wall += r[name, i] / d }
        printf "%-22s %12.0f %14.0f %7.2fx  %s\n", name, wall / n[name], median(name), median(name) / base, runs
      }
    }' "$RESULTS"
}

main() {
  CONNECTIONS=32 DURATION=10 GEN_CORE=0 TARGET_CORE=1
  local port=44700 pg=1 pg_core='' with_net=0 target=haproxy
  REPEAT=3
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --connections) CONNECTIONS="$2"; shift ;;
      --duration) DURATION="$2"; shift ;;
      --gen-core) GEN_CORE="$2"; shift ;;
      --target-core) TARGET_CORE="$2"; shift ;;
      --port) port="$2"; shift ;;
      --repeat) REPEAT="$2"; shift ;;
      --pg-core) pg_core="$2"; shift ;;
      --no-pg) pg=0 ;;
      --net) with_net=1 ;;
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
    db="$DB_URL"
    round="$(new_round "$db" "$TARGET_URL")"
  fi
  RESULTS="$(mktemp /tmp/cfscale-loadgen-bench-res-XXXXXX)"
  CLEANUP_DIRS+=("$RESULTS")
  # Interleaved repeats: a shared machine's load drifts; the median of each tool is compared.
  for rep in $(seq "$REPEAT"); do
    log "repeat $rep of $REPEAT"
    run_autocannon && record autocannon
    run_loadgen && record loadgen
    if [[ "$with_net" == 1 ]]; then SOCKETS=net run_loadgen && record loadgen-net-sockets; fi
    if [[ "$pg" == 1 ]]; then
      run_loadgen --results-db "$db" --round "$round" --spool-dir "$PG_DIR/spool" && record loadgen+persist
    fi
  done
  summary
  if [[ "$pg" == 1 ]]; then
    echo "rows in requests: $(psql "$db" -Atq -c "SELECT count(*) FROM requests WHERE round_id = $round")" \
      "of $(awk '$1 == "loadgen+persist" { s += $2 } END { print s + 0 }' "$RESULTS") sent with persistence"
  fi
}

main "$@"
