#!/usr/bin/env bash
# ingest.sh — samples per second into PostgreSQL through loadgen's sink (target >= 150,000/s).
#
# Usage: loadgen/bench/ingest.sh [--samples N] [--batch-rows N] [--port P] [--pg-core C] [--gen-core C] [--smoke]
#   --samples     synthetic samples to load (default 1000000)
#   --batch-rows  rows per COPY batch (default 10000, the worker's default)
#   --port        port of the throw-away PostgreSQL cluster (default 44710)
#   --smoke       2,000 samples: that it runs here (CI), not a figure
#
# Encodes synthetic samples exactly as a run does (SampleBatch -> binary COPY; the
# text encoding is measured beside it for comparison) and
# streams them with the Sink into `requests` (primary key and indexes as in
# results-schema.sql) of a throw-away cluster (scripts/pg-cluster.sh), then
# verifies the row count.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
# shellcheck source=loadgen/bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  local samples=1000000 batch_rows=10000 port=44710 pg_core=1 gen_core=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --samples) samples="$2"; shift ;;
      --batch-rows) batch_rows="$2"; shift ;;
      --port) port="$2"; shift ;;
      --pg-core) pg_core="$2"; shift ;;
      --gen-core) gen_core="$2"; shift ;;
      --smoke) samples=2000 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac
    shift
  done
  trap cleanup EXIT
  local db round result rows format cpu0 cpu1
  start_pg "$port" "$pg_core"
  db="$DB_URL"
  log "loading $samples samples in batches of $batch_rows (loader on core $gen_core, PostgreSQL on core $pg_core)"
  printf "%-8s %10s %14s %8s %13s %14s %18s %16s\n" format samples/s encode_only/s seconds loader_cpu_s pg_cpu_s samples/pg_cpu_s rows_in_requests
  for format in binary text; do
    round="$(new_round "$db" "http://127.0.0.1/")"
    cpu0="$(pg_cpu_sec)"
    result="$(taskset -c "$gen_core" node "$BENCH_DIR/ingest.js" "$db" "$round" "$samples" "$batch_rows" "$format")"
    cpu1="$(pg_cpu_sec)"
    rows="$(psql "$db" -Atq -c "SELECT count(*) FROM requests WHERE round_id = $round")"
    echo "$result" | jq -r --arg rows "$rows" --arg pg "$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { printf "%.2f", b - a }')" \
      '"\(.format)\t\(.samples_per_sec)\t\(.encode_only_per_sec)\t\(.seconds)\t\(.loader_cpu_s)\t\($pg)\t\(if ($pg|tonumber) > 0 then (.samples / ($pg|tonumber) | floor) else "-" end)\t\($rows)/\(.samples)"' |
      awk -F'\t' '{ printf "%-8s %10s %14s %8s %13s %14s %18s %16s\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
  done
  echo "target: >= 150000 samples/s (runs use binary); samples/pg_cpu_s = what one dedicated PostgreSQL core ingests"
}

main "$@"
