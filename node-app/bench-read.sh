#!/usr/bin/env bash
# bench-read.sh — a quick GET /ads/{id} throughput comparison of node-app variants, side
# by side in one run (a benchmark that prints figures, not a test).
#
# Usage: DATABASE_URL=postgres://... node-app/bench-read.sh [DURATION_SEC] [CONNECTIONS] [REPEATS]
#   Starts each variant in turn on a free port against DATABASE_URL (one ad is posted if
#   the table is empty), runs `npx autocannon` for DURATION_SEC (default 10) with
#   CONNECTIONS (default 32) keep-alive connections on GET /ads/{newest id}, prints req/s,
#   the app's CPU time per request (all its processes; steadier than req/s on a busy
#   machine) and both as ratios to the first variant. Variants: raw, raw without timings, express, raw
#   with 2 cluster workers. With REPEATS (default 1) > 1 the variants run interleaved that
#   many times and the median is printed (a shared machine is noisy). Needs the npm
#   registry for autocannon once. DEBUG=1 traces.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

APP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly APP_DIR
readonly AUTOCANNON=autocannon@8.0.0
readonly VARIANTS=(
  "raw|APP_FRAMEWORK=raw"
  "raw, timings off|APP_FRAMEWORK=raw TIMINGS_ENABLED=false"
  "express|APP_FRAMEWORK=express"
  "raw, 2 workers|APP_FRAMEWORK=raw WEB_CONCURRENCY=2"
)

die() { echo "bench-read: $*" >&2; exit 1; }

wait_healthy() {
  local i
  for ((i = 0; i < 100; i++)); do
    curl -fs "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

# CPU ticks (user + system) used so far by process $1 and its children (cluster workers).
cpu_ticks() {
  local p total=0 ticks
  for p in "$1" $(pgrep -P "$1"); do
    ticks="$(awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$p/stat" 2>/dev/null)" || continue
    total=$((total + ticks))
  done
  echo "$total"
}

# Print "req/s cpu-us-per-request" of one variant; $1 is its space-separated env assignments.
run_variant() {
  local env_words pid id ticks0 ticks1 result
  read -r -a env_words <<<"$1"
  env "${env_words[@]}" DATABASE_URL="$DATABASE_URL" PORT="$PORT" TIMINGS_CAPACITY=2000000 \
    node "$APP_DIR/server.js" >/dev/null 2>&1 &
  pid=$!
  wait_healthy || { kill "$pid"; die "app did not become healthy on port $PORT"; }
  id="$(curl -fs "http://127.0.0.1:$PORT/ads?limit=1" | cut -f1)"
  [[ -n "$id" ]] || id="$(curl -fs -d 'title=Bike&body=Almost+new.&price=120' "http://127.0.0.1:$PORT/ads")"
  ticks0="$(cpu_ticks "$pid")"
  result="$(npx -y "$AUTOCANNON" -j -d "$DURATION_SEC" -c "$CONNECTIONS" "http://127.0.0.1:$PORT/ads/$id" 2>/dev/null \
    | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);if(r.non2xx||r.errors)process.exit(2);console.log(Math.round(r.requests.average),r.requests.total)})')" \
    || { kill "$pid"; die "autocannon failed or saw errors"; }
  ticks1="$(cpu_ticks "$pid")"
  kill -TERM "$pid"
  wait "$pid" || true
  # ticks are 1/CLK_TCK s; µs per request = ticks * 1e6 / CLK_TCK / requests
  echo "${result% *} $(((ticks1 - ticks0) * 1000000 / $(getconf CLK_TCK) / ${result#* }))"
}

# The median of the numbers given as arguments.
median() {
  printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'
}

ratio() {
  node -e "console.log(($1/$2).toFixed(2))"
}

main() {
  DURATION_SEC="${1:-10}"
  CONNECTIONS="${2:-32}"
  REPEATS="${3:-1}"
  [[ -n "${DATABASE_URL:-}" ]] || die "DATABASE_URL is required"
  PORT="$(node -e 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})')"
  [[ "$DURATION_SEC" =~ ^[1-9][0-9]*$ && "$CONNECTIONS" =~ ^[1-9][0-9]*$ && "$REPEATS" =~ ^[1-9][0-9]*$ ]] \
    || die "DURATION_SEC, CONNECTIONS and REPEATS must be positive integers"
  local i v name rps_base="" cpu_base="" out rps cpu
  local -a rps_runs=() cpu_runs=()
  for ((i = 0; i < REPEATS; i++)); do
    for v in "${!VARIANTS[@]}"; do
      out="$(run_variant "${VARIANTS[$v]#*|}")"
      rps_runs[v]="${rps_runs[v]:-} ${out% *}"
      cpu_runs[v]="${cpu_runs[v]:-} ${out#* }"
      echo "bench-read: run $((i + 1)) ${VARIANTS[$v]%%|*}: ${out% *} req/s, ${out#* } CPU us/request" >&2
    done
  done
  printf '%-18s %8s %6s %12s %6s  %s\n' variant 'req/s' ratio 'CPU us/req' ratio 'runs (req/s)'
  for v in "${!VARIANTS[@]}"; do
    name="${VARIANTS[$v]%%|*}"
    # shellcheck disable=SC2086 # the runs are space-separated numbers
    rps="$(median ${rps_runs[v]})"
    # shellcheck disable=SC2086
    cpu="$(median ${cpu_runs[v]})"
    [[ -z "$rps_base" ]] && rps_base="$rps" && cpu_base="$cpu"
    printf '%-18s %8s %6s %12s %6s  %s\n' "$name" "$rps" "$(ratio "$rps" "$rps_base")" "$cpu" "$(ratio "$cpu" "$cpu_base")" "${rps_runs[v]# }"
  done
}

main "$@"
