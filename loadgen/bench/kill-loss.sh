#!/usr/bin/env bash
# kill-loss.sh — the samples a kill -9 would lose (bound: 250 ms of samples), without killing.
#
# Usage: loadgen/bench/kill-loss.sh [--duration S] [--port P]
#   --duration  seconds per run (default 10)
#   --port      port of the throw-away PostgreSQL cluster (default 44730)
#
# Runs the worker's path (Run + Sink, batches of a round with their loadgen_runs counts)
# against the node:http target and a throw-away cluster (scripts/pg-cluster.sh), with the
# worker's batch age (100 ms) and twice it side by side, at 8 and 32 connections. For each
# batch: first sample -> commit of its COPY transaction. A kill loses the samples since the
# first sample of the oldest batch not committed, so the largest span is the worst loss
# window of the run; max_loss_samples is that span at the run's rate.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
# shellcheck source=loadgen/bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly BATCH_AGES_MS=(100 200)
readonly CONNECTIONS=(8 32)
readonly BOUND_MS=250

main() {
  local duration=10 port=44730 db round age conns
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --duration) duration="$2"; shift ;;
      --port) port="$2"; shift ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac
    shift
  done
  trap cleanup EXIT
  start_pg "$port" 1
  db="$DB_URL"
  start_target 0 node
  printf "%-12s %6s %9s %8s %9s %9s %9s %17s\n" batch_age_ms conns req/s batches p50_ms p99_ms max_ms max_loss_samples
  for conns in "${CONNECTIONS[@]}"; do
    for age in "${BATCH_AGES_MS[@]}"; do
      round="$(new_round "$db" "http://127.0.0.1:$TARGET_PORT/")"
      psql "$db" -Atq -c "INSERT INTO loadgen_runs (round_id, instance_index) VALUES ($round, 0)"
      node "$BENCH_DIR/kill-loss.js" "$db" "$round" "http://127.0.0.1:$TARGET_PORT/" "$conns" "$duration" "$age" |
        jq -r '[.batch_age_ms, .parallel, .req_per_s, .batches, .span_ms.p50, .span_ms.p99, .span_ms.max, .max_loss_samples] | @tsv' |
        awk -F'\t' '{ printf "%-12s %6s %9s %8s %9s %9s %9s %17s\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
    done
  done
  echo "bound: a kill loses at most ${BOUND_MS} ms of samples: max_ms <= ${BOUND_MS} (the worker's batch age is 100 ms)"
}

main "$@"
