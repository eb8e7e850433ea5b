#!/usr/bin/env bash
# settings.sh — one app under several settings, side by side in one run: req/s of
# GET /ads/{id} and the app's CPU time per request (all its processes; steadier than req/s
# on a busy machine), each as a ratio to the first setting.
#
# Usage: bench/apps/settings.sh [--app node-app|java-app] [--setting 'NAME|VARIANT|ENV...']...
#                               [--duration 10s] [--warmup 5s] [--parallel 32] [--reps 3]
#   --app A        the default settings of node-app (raw; raw, timings off; express; raw,
#                  2 workers) or java-app (200 Jetty threads; the same, timings off; 10
#                  threads, the study's smallest pool) (default node-app)
#   --setting S    instead of the defaults, repeatable: a name, a variant of
#                  contract/lib/variants.sh (node-raw node-express node-cluster java) and
#                  NAME=value settings, e.g. 'pool 20|node-raw|DB_POOL_SIZE=20'
#   --duration D   each measured run (default 10s); --warmup D a run before it, not
#                  counted (default 5s: the JIT, pool connections)
#   --parallel N   requests in flight (default 32); --reps N interleaved repetitions,
#                  medians compared (default 3)
#
# Like throughput.sh: a PostgreSQL cluster of its own, fresh databases with 1000 ads for
# each start, the app pinned to CPU 0, the project's loadgen CLI (--scenario read) pinned to
# CPU 1. Each repetition starts every setting anew, in turn. On demand only (not in CI).
# Exit 0 ok, 1 usage/setup error, 2 a measurement failed (errors, or the app died).
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly ROOT
readonly PG_CLUSTER="$ROOT/scripts/pg-cluster.sh"
readonly LOADGEN="$ROOT/loadgen/bin/loadgen.js"
readonly PORT_MIN=43000
readonly PORT_MAX=43999
readonly APP_CPU=0
readonly LOAD_CPU=1
readonly SEED_ADS=1000
readonly TIMINGS_CAPACITY=2000000
readonly NODE_SETTINGS=(
  "raw|node-raw|"
  "raw, timings off|node-raw|TIMINGS_ENABLED=false"
  "express|node-express|"
  "raw, 2 workers|node-cluster|"
)
readonly JAVA_SETTINGS=(
  "200 threads|java|JETTY_THREADS_MAX=200"
  "200 threads, timings off|java|JETTY_THREADS_MAX=200 TIMINGS_ENABLED=false"
  "10 threads|java|JETTY_THREADS_MIN=8 JETTY_THREADS_MAX=10"
)

# shellcheck source=contract/lib/variants.sh
source "$ROOT/contract/lib/variants.sh"
# shellcheck source=bench/apps/lib.sh
source "$ROOT/bench/apps/lib.sh"

# CPU ticks (user + system) used so far by process $1 and its children (cluster workers).
cpu_ticks() {
  local p total=0 ticks
  for p in "$1" $(pgrep -P "$1"); do
    ticks="$(awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$p/stat" 2>/dev/null)" || continue
    total=$((total + ticks))
  done
  echo "$total"
}

# One loadgen run of duration $1 on the started app; prints "requests req/s"; fails on errors.
load() {
  taskset -c "$LOAD_CPU" node "$LOADGEN" --url "$APP_URL" --scenario read --ids "1-$SEED_ADS" \
    --parallel "$PARALLEL" --duration "$1" --json --no-progress --max-error-rate 0 \
    | jq -r '"\(.requests.total) \(.requests.per_sec | round)"'
}

# Setting $1 (NAME|VARIANT|ENV) started, warmed up and measured; sets RESULT to
# "req/s cpu-us-per-request". Not in a subshell: the EXIT trap must see APP_PID.
run_setting() {
  local variant env out ticks0 ticks1 requests
  IFS='|' read -r _ variant env <<<"$1"
  start_app "$variant" "$env"
  load "$WARMUP" >/dev/null || exit 2
  ticks0="$(cpu_ticks "$APP_PID")"
  out="$(load "$DURATION")" || exit 2
  ticks1="$(cpu_ticks "$APP_PID")"
  stop_app
  requests="${out% *}"
  ((requests > 0)) || exit 2
  RESULT="${out#* } $(((ticks1 - ticks0) * 1000000 / $(getconf CLK_TCK) / requests))"
}

median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }

main() {
  local app=node-app settings=() rep s out rps cpu name rps_base="" cpu_base=""
  DURATION=10s WARMUP=5s PARALLEL=32
  local reps=3
  while [[ $# -gt 0 ]]; do
    [[ "$1" == -h || "$1" == --help ]] && { usage; exit 0; }
    [[ $# -ge 2 ]] || die "$1 needs a value (see --help)"
    case "$1" in
      --app) app="$2" ;;
      --setting) settings+=("$2") ;;
      --duration) DURATION="$2" ;;
      --warmup) WARMUP="$2" ;;
      --parallel) PARALLEL="$2" ;;
      --reps) reps="$2" ;;
      *) die "unknown option: $1 (see --help)" ;;
    esac
    shift 2
  done
  if [[ ${#settings[@]} -eq 0 ]]; then
    case "$app" in
      node-app) settings=("${NODE_SETTINGS[@]}") ;;
      java-app) settings=("${JAVA_SETTINGS[@]}") ;;
      *) die "--app must be node-app or java-app, got \"$app\"" ;;
    esac
  fi
  [[ "$reps" =~ ^[1-9][0-9]*$ && "$PARALLEL" =~ ^[1-9][0-9]*$ ]] || die "--reps and --parallel must be positive integers"
  for s in "${settings[@]}"; do
    [[ "$s" == *'|'*'|'* ]] || die "a setting is NAME|VARIANT|ENV..., got \"$s\""
    IFS='|' read -r _ out _ <<<"$s"
    variant_cmd "$out" >/dev/null
  done
  [[ "${settings[*]}" != *'|java|'* || -f "$ROOT/java-app/target/java-app.jar" ]] \
    || die "no java-app/target/java-app.jar: run scripts/setup.sh (or mvn -q package in java-app)"
  bench_setup
  local -a rps_runs=() cpu_runs=()
  for ((rep = 1; rep <= reps; rep++)); do
    for s in "${!settings[@]}"; do
      run_setting "${settings[$s]}"
      out="$RESULT"
      rps_runs[s]="${rps_runs[s]:-} ${out% *}"
      cpu_runs[s]="${cpu_runs[s]:-} ${out#* }"
      log "rep $rep ${settings[$s]%%|*}: ${out% *} req/s, ${out#* } CPU us/request"
    done
  done
  printf '%-26s %8s %6s %12s %6s  %s\n' setting 'req/s' ratio 'CPU us/req' ratio 'runs (req/s)'
  for s in "${!settings[@]}"; do
    name="${settings[$s]%%|*}"
    # shellcheck disable=SC2086 # the runs are space-separated numbers
    rps="$(median ${rps_runs[s]})"
    # shellcheck disable=SC2086
    cpu="$(median ${cpu_runs[s]})"
    [[ -z "$rps_base" ]] && rps_base="$rps" && cpu_base="$cpu"
    printf '%-26s %8s %6s %12s %6s  %s\n' "$name" "$rps" "$(ratio "$rps" "$rps_base")" "$cpu" \
      "$(ratio "$cpu" "$cpu_base")" "${rps_runs[s]# }"
  done
}

main "$@"
