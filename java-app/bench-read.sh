#!/usr/bin/env bash
# bench-read.sh — a quick GET /ads/{id} throughput comparison of java-app settings, side by
# side in one run (a benchmark that prints figures, not a test).
#
# Usage: DATABASE_URL=postgres://... java-app/bench-read.sh [DURATION_SEC] [CONNECTIONS] [REPEATS]
#   Builds nothing: runs target/java-app.jar (`mvn -q package` first). Starts each variant in
#   turn on port 42900 against DATABASE_URL (one ad is posted if the table is empty), warms
#   the JIT with a 5 s run that is not counted, then runs `npx autocannon` for DURATION_SEC
#   (default 10) with CONNECTIONS (default 32) keep-alive connections on GET /ads/{newest id}
#   and prints req/s and the ratio to the first variant. Variants: 200 Jetty threads (the
#   default), the same with timings off, 10 threads (the study's smallest pool). With
#   REPEATS (default 1) > 1 the variants run interleaved that many times and the median is
#   printed (a shared machine is noisy). Needs the npm registry for autocannon once (the
#   same version node-app/bench-read.sh uses). DEBUG=1 traces.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

APP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly APP_DIR
readonly JAR="$APP_DIR/target/java-app.jar"
readonly PORT=42900
readonly WARMUP_SEC=5
readonly AUTOCANNON=autocannon@8.0.0
readonly VARIANTS=(
  "200 threads|JETTY_THREADS_MAX=200"
  "200 threads, no timings|JETTY_THREADS_MAX=200 TIMINGS_ENABLED=false"
  "10 threads|JETTY_THREADS_MIN=8 JETTY_THREADS_MAX=10"
)

die() { echo "bench-read: $*" >&2; exit 1; }

wait_healthy() {
  local i
  for ((i = 0; i < 300; i++)); do
    curl -fs "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "app did not become healthy on port $PORT"
}

# Mean req/s of one autocannon run on $1 for $2 seconds; fails on any non-2xx or error.
autocannon_rps() {
  npx -y "$AUTOCANNON" -j -d "$2" -c "$CONNECTIONS" "$1" 2>/dev/null \
    | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);if(r.non2xx||r.errors)process.exit(2);console.log(Math.round(r.requests.average))})'
}

# Print the mean req/s of one variant; $1 is its space-separated env assignments.
run_variant() {
  local env_words pid rps id url
  read -r -a env_words <<<"$1"
  env "${env_words[@]}" DATABASE_URL="$DATABASE_URL" PORT="$PORT" TIMINGS_CAPACITY=2000000 \
    java -jar "$JAR" >/dev/null 2>&1 &
  pid=$!
  wait_healthy
  id="$(curl -fs "http://127.0.0.1:$PORT/ads?limit=1" | cut -f1)"
  [[ -n "$id" ]] || id="$(curl -fs -d 'title=Bike&body=Almost+new.&price=120' "http://127.0.0.1:$PORT/ads")"
  url="http://127.0.0.1:$PORT/ads/$id"
  autocannon_rps "$url" "$WARMUP_SEC" >/dev/null || { kill "$pid"; die "autocannon failed or saw errors (warm-up)"; }
  rps="$(autocannon_rps "$url" "$DURATION_SEC")" || { kill "$pid"; die "autocannon failed or saw errors"; }
  kill -TERM "$pid"
  wait "$pid" || true
  echo "$rps"
}

main() {
  DURATION_SEC="${1:-10}"
  CONNECTIONS="${2:-32}"
  REPEATS="${3:-1}"
  [[ -n "${DATABASE_URL:-}" ]] || die "DATABASE_URL is required"
  [[ -f "$JAR" ]] || die "no $JAR: run 'mvn -q package' in java-app first"
  [[ "$DURATION_SEC" =~ ^[1-9][0-9]*$ && "$CONNECTIONS" =~ ^[1-9][0-9]*$ && "$REPEATS" =~ ^[1-9][0-9]*$ ]] \
    || die "DURATION_SEC, CONNECTIONS and REPEATS must be positive integers"
  local i v name base="" rps median
  local -a runs=()
  for ((i = 0; i < REPEATS; i++)); do
    for v in "${!VARIANTS[@]}"; do
      rps="$(run_variant "${VARIANTS[$v]#*|}")"
      runs[v]="${runs[v]:-} $rps"
      echo "bench-read: run $((i + 1)) ${VARIANTS[$v]%%|*}: $rps req/s" >&2
    done
  done
  printf '%-24s %10s %8s  %s\n' variant 'req/s' ratio runs
  for v in "${!VARIANTS[@]}"; do
    name="${VARIANTS[$v]%%|*}"
    # shellcheck disable=SC2086 # the runs are space-separated numbers
    median="$(printf '%s\n' ${runs[v]} | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')"
    [[ -z "$base" ]] && base="$median"
    printf '%-24s %10s %8s  %s\n' "$name" "$median" "$(awk -v m="$median" -v b="$base" 'BEGIN {printf "%.2f", m / b}')" "${runs[v]# }"
  done
}

main "$@"
