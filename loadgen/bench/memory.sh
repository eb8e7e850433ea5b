#!/usr/bin/env bash
# memory.sh — loadgen memory: RSS growth over a full-speed run (<= 20 MB) and the
# RSS of an idle worker (must fit a 128M container).
#
# Usage: loadgen/bench/memory.sh [--duration SEC] [--connections N] [--port P] [--no-pg] [--smoke]
#   --duration     length of the full-speed run in seconds (default 300)
#   --connections  keep-alive connections (default 32)
#   --port         port of the throw-away PostgreSQL cluster (default 44730)
#   --no-pg        run without persistence (samples are then only counted)
#   --smoke        an 8 s run: that it runs here (CI), not a figure
#
# The run persists every sample into a throw-away PostgreSQL cluster (as a worker
# does). RSS (VmRSS from /proc) is sampled every second; the baseline is taken after
# a warm-up of 10% of the run (at least 5 s), growth = highest RSS after it - baseline.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
# shellcheck source=loadgen/bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly GROWTH_LIMIT_MB=20
readonly IDLE_LIMIT_MB=128

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

main() {
  local duration=300 connections=32 port=44730 pg=1
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --duration) duration="$2"; shift ;;
      --connections) connections="$2"; shift ;;
      --port) port="$2"; shift ;;
      --no-pg) pg=0 ;;
      --smoke) duration=8 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac
    shift
  done
  trap cleanup EXIT
  local target_url persist=() db=""
  start_target 1
  target_url="http://127.0.0.1:$TARGET_PORT/"
  if [[ "$pg" == 1 ]]; then
    start_pg "$port" 1
    db="$DB_URL"
    persist=(--results-db "$db" --round "$(new_round "$db" "$target_url")" --spool-dir "$PG_DIR/spool")
  fi
  local warmup=$((duration / 10))
  ((warmup < 5)) && warmup=5
  log "full-speed run: ${duration}s, $connections connections, persistence $([[ "$pg" == 1 ]] && echo on || echo off), baseline at ${warmup}s"
  local out
  out="$(mktemp /tmp/cfscale-loadgen-bench-out-XXXXXX)"
  CLEANUP_DIRS+=("$out")
  taskset -c 0 node "$LOADGEN_DIR/bin/loadgen.js" --url "$target_url" --parallel "$connections" \
    --duration "${duration}s" --json --no-progress "${persist[@]}" >"$out" &
  local pid=$! t=0 rss base=0 max=0 first=0
  while kill -0 "$pid" 2>/dev/null; do
    rss="$(rss_kb "$pid")"
    [[ "$t" == 1 ]] && first="$rss"
    [[ "$t" == "$warmup" ]] && base="$rss"
    ((t > warmup && rss > max)) && max="$rss"
    sleep 1
    t=$((t + 1))
  done
  wait "$pid" || true
  ((base == 0)) && die "run ended before the baseline was taken; use a longer --duration"
  local growth_kb=$((max - base))
  echo "requests: $(jq '.requests.total' "$out") at $(jq '.requests.per_sec' "$out") req/s"
  awk -v f="$first" -v b="$base" -v m="$max" -v g="$growth_kb" -v lim="$GROWTH_LIMIT_MB" 'BEGIN {
    printf "rss at 1 s %.1f MB, baseline %.1f MB, max after %.1f MB, growth %.1f MB (limit %d MB: %s)\n",
      f / 1024, b / 1024, m / 1024, g / 1024, lim, (g / 1024 <= lim) ? "ok" : "OVER" }'

  if [[ "$pg" == 1 ]]; then
    local spool
    spool="$(mktemp -d /tmp/cfscale-loadgen-bench-spool-XXXXXX)"
    CLEANUP_DIRS+=("$spool")
    RESULTS_DATABASE_URL="$db" CF_INSTANCE_INDEX=0 LOADGEN_SPOOL_DIR="$spool" node "$LOADGEN_DIR/bin/worker.js" >/dev/null &
    local wpid=$!
    CLEANUP_PIDS+=("$wpid")
    sleep 5
    rss="$(rss_kb "$wpid")"
    awk -v r="$rss" -v lim="$IDLE_LIMIT_MB" 'BEGIN {
      printf "idle worker rss %.1f MB (container %dM: %s)\n", r / 1024, lim, (r / 1024 < lim) ? "fits" : "DOES NOT FIT" }'
  fi
}

main "$@"
