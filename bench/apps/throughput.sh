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

# shellcheck source=contract/lib/variants.sh
source "$ROOT/contract/lib/variants.sh"
# shellcheck source=bench/apps/lib.sh
source "$ROOT/bench/apps/lib.sh"

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
  bench_setup
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
