#!/usr/bin/env bash
# kill-loss.sh — the samples a kill -9 would lose (bound: 250 ms of samples), without killing,
# with a fast results database and a slow one (every COPY answered 1-2 s late) side by side.
#
# Usage: loadgen/bench/kill-loss.sh [--duration S] [--runs N] [--connections N,N] [--batch-age MS]
#                                   [--slow-copy-ms MIN-MAX] [--port P] [--smoke]
#   --duration      seconds per run (default 6)
#   --runs          runs per database and connections, interleaved (default 3)
#   --connections   closed-model connections (default 8,32)
#   --batch-age     the batches' age limit in ms (default 100, the worker's)
#   --slow-copy-ms  the slow database's delay of each COPY, drawn per COPY (default 1000-2000)
#   --port          port of the throw-away PostgreSQL cluster (default 44730)
#   --smoke         1 s runs, once, 8 connections: that it runs here (CI), not a figure
#
# Runs the worker's path (Run + Sink, batches of a round with their loadgen_runs counts) against
# the node:http target and a throw-away cluster (scripts/pg-cluster.sh), directly (fast) and
# through bench/slow-copy-proxy.js (slow). For each batch: first sample -> the moment a kill can
# no longer take it (its COPY committed, or it was written to the spool, which the next start
# replays). A kill loses the samples since the first sample of the oldest batch not yet safe,
# so the largest span is the worst loss window of a run; max_loss_samples is that span at the
# run's rate.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
# shellcheck source=loadgen/bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly BOUND_MS=250
readonly ROW='%-5s %4s %6s %9s %8s %8s %7s %7s %7s %17s\n'

# start_slow_proxy PG_PORT MIN MAX: bench/slow-copy-proxy.js in front of the cluster; sets SLOW_PORT.
start_slow_proxy() {
  local portfile _
  portfile="$(mktemp /tmp/cfscale-loadgen-bench-port-XXXXXX)"
  CLEANUP_DIRS+=("$portfile")
  taskset -c 1 node "$BENCH_DIR/slow-copy-proxy.js" 127.0.0.1 "$1" "$2" "$3" >"$portfile" &
  CLEANUP_PIDS+=("$!")
  for _ in $(seq 50); do
    SLOW_PORT="$(head -1 "$portfile")"
    [[ -n "$SLOW_PORT" ]] && return 0
    sleep 0.1
  done
  die "slow-copy-proxy did not start"
}

main() {
  local duration=6 runs=3 conns_list=8,32 age=100 slow=1000-2000 port=44730 db slow_db round conns run kind url
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --duration) duration="$2"; shift ;;
      --runs) runs="$2"; shift ;;
      --connections) conns_list="$2"; shift ;;
      --batch-age) age="$2"; shift ;;
      --slow-copy-ms) slow="$2"; shift ;;
      --port) port="$2"; shift ;;
      --smoke) duration=1 runs=1 conns_list=8 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac
    shift
  done
  [[ "$slow" =~ ^([0-9]+)-([0-9]+)$ ]] || die "--slow-copy-ms wants MIN-MAX in ms, got $slow"
  trap cleanup EXIT
  start_pg "$port" 1
  db="$DB_URL"
  start_slow_proxy "$(psql "$db" -Atqc 'SHOW port')" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
  slow_db="$(sed -E "s#@[^/]*/#@127.0.0.1:$SLOW_PORT/#" <<<"$db")"
  start_target 0 node
  log "batches of ${age} ms, ${duration} s runs; slow database: every COPY ${slow} ms late"
  # shellcheck disable=SC2059
  printf "$ROW" db run conns req/s batches spooled p50_ms p99_ms max_ms max_loss_samples
  IFS=, read -ra conns_list <<<"$conns_list"
  for run in $(seq "$runs"); do
    for conns in "${conns_list[@]}"; do
      for kind in fast slow; do
        url="$db"; [[ "$kind" == slow ]] && url="$slow_db"
        round="$(new_round "$db" "http://127.0.0.1:$TARGET_PORT/")"
        psql "$db" -Atq -c "INSERT INTO loadgen_runs (round_id, instance_index) VALUES ($round, 0)"
        node "$BENCH_DIR/kill-loss.js" "$url" "$round" "http://127.0.0.1:$TARGET_PORT/" "$conns" "$duration" "$age" |
          jq -r --arg k "$kind" --arg r "$run" '[$k, $r, .parallel, .req_per_s, .batches, .spooled_batches,
            .span_ms.p50, .span_ms.p99, .span_ms.max, .max_loss_samples] | @tsv' |
          awk -F'\t' -v row="$ROW" '{ printf row, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
      done
    done
  done
  echo "bound: a kill loses at most ${BOUND_MS} ms of samples: max_ms <= ${BOUND_MS} (the worker's batch age is 100 ms)"
}

main "$@"
