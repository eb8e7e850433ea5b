#!/usr/bin/env bash
# run.sh — the contract suite against every app variant, on real PostgreSQL.
#
# Usage: contract/run.sh [--only VARIANT[,VARIANT...]] [--no-lifecycle] [--keep]
#   --only          run only these variants: node-raw node-express node-cluster java
#   --no-lifecycle  skip lifecycle.test.js (outage, SIGTERM) and settings.test.js (the
#                   ranges of settings.json on every variant; bad settings, VCAP_SERVICES)
#   --keep          keep the temp dir (app logs, test logs) and print its path
#
# Uses the cluster of CFSCALE_TEST_PG_URL/CFSCALE_TEST_PG_DIR when set (scripts/test.sh),
# else starts its own in its temp dir /tmp/cfscale-contract-XXXXXX (port 43000-43999; every
# run has its own dirs, so two runs at once do not collide). Per variant: an app
# and a results database, the app on a free port with CF_INSTANCE_INDEX=3 and a small
# TIMINGS_CAPACITY, contract.test.js against it; then identity.js (each node variant and
# java must answer byte-identically); then lifecycle.test.js per variant (it starts its own app
# processes and, for the outage, its own cluster). Everything started is stopped on exit.
# Exit 0 when every part passed, 2 when one failed, 1 on usage or setup errors. DEBUG=1 traces.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly CONTRACT="$ROOT/contract"
readonly PG_CLUSTER="$ROOT/scripts/pg-cluster.sh"
readonly PORT_MIN=43000
readonly PORT_MAX=43999
readonly INSTANCE_INDEX=3
readonly TIMINGS_CAPACITY=64
readonly HEALTH_TIMEOUT_SEC=60
# Short slow-client times, so the framing cases wait seconds, not the defaults' 10 s and 95 s.
readonly HEADER_TIMEOUT_MS=1000
readonly IDLE_TIMEOUT_MS=2000

log() { echo "contract: $*" >&2; }
die() { echo "contract: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }

# shellcheck source=contract/lib/variants.sh
source "$CONTRACT/lib/variants.sh"

# The variant's environment here: java with a smaller thread pool than its default 200.
contract_env() {
  case "$1" in
    java) echo "JETTY_THREADS_MAX=50" ;;
    *) variant_env "$1" ;;
  esac
}

variant_workers() { [[ "$1" == node-cluster ]] && echo 2 || echo 1; }

cleanup() {
  local v pid
  for v in "${!PIDS[@]}"; do
    pid="${PIDS[$v]}"
    kill "$pid" 2>/dev/null || true
  done
  for v in "${!PIDS[@]}"; do wait "${PIDS[$v]}" 2>/dev/null || true; done
  "$PG_CLUSTER" stop --dir "$WORK/outage-pg" >/dev/null 2>&1 || true
  [[ -n "$OWN_PG" ]] && { "$PG_CLUSTER" stop --dir "$WORK/pg" >/dev/null 2>&1 || true; }
  if [[ "$KEEP" == 1 ]]; then log "logs kept in $WORK"; else rm -rf "$WORK"; fi
}

start_pg() {
  if [[ -n "${CFSCALE_TEST_PG_URL:-}" && -n "${CFSCALE_TEST_PG_DIR:-}" ]]; then
    PG_DIR="$CFSCALE_TEST_PG_DIR"
    PG_URL="$CFSCALE_TEST_PG_URL"
    return
  fi
  local port tries
  OWN_PG=1
  PG_DIR="$WORK/pg"
  # A port free a moment ago may be taken meanwhile (client sockets use this range too): retry.
  for ((tries = 1; ; tries++)); do
    free_port port
    PG_URL="$("$PG_CLUSTER" start --dir "$PG_DIR" --port "$port" 2>"$WORK/pg-start.err")" && break
    ((tries < 3)) || { cat "$WORK/pg-start.err" >&2; die "could not start PostgreSQL"; }
  done
  log "PostgreSQL on port $port ($PG_DIR)"
}

start_variant() {
  local v="$1" port app_db results_db cmd extra
  local db_name="${v//-/_}"
  free_port port
  app_db="$(fresh_db "contract_${db_name}_app")"
  results_db="$(fresh_db "contract_${db_name}_results")"
  psql "$results_db" -q -v ON_ERROR_STOP=1 -f "$ROOT/results-schema.sql" >/dev/null
  read -r -a cmd <<<"$(variant_cmd "$v")"
  read -r -a extra <<<"$(contract_env "$v")"
  (cd "$ROOT" && exec env -u VCAP_SERVICES -u VCAP_APPLICATION -u DB_SERVICE_NAME \
    PORT="$port" DATABASE_URL="$app_db" RESULTS_DATABASE_URL="$results_db" \
    CF_INSTANCE_INDEX="$INSTANCE_INDEX" APP_NAME="contract-$v" TIMINGS_CAPACITY="$TIMINGS_CAPACITY" \
    HTTP_HEADER_TIMEOUT_MS="$HEADER_TIMEOUT_MS" HTTP_IDLE_TIMEOUT_MS="$IDLE_TIMEOUT_MS" \
    "${extra[@]}" "${cmd[@]}" >"$WORK/$v.app.log" 2>&1) &
  PIDS[$v]=$!
  URLS[$v]="http://127.0.0.1:$port"
  APP_DBS[$v]="$app_db"
  RESULTS_DBS[$v]="$results_db"
}

wait_healthy() {
  local v="$1" deadline=$((SECONDS + HEALTH_TIMEOUT_SEC))
  while ((SECONDS < deadline)); do
    curl -fsS -o /dev/null --max-time 2 "${URLS[$v]}/health" 2>/dev/null && return 0
    kill -0 "${PIDS[$v]}" 2>/dev/null || break
    sleep 0.2
  done
  log "$v did not become healthy; its log:"
  tail -n 20 "$WORK/$v.app.log" >&2
  return 1
}

stop_variant() {
  local v="$1"
  kill "${PIDS[$v]}" 2>/dev/null || true
  wait "${PIDS[$v]}" 2>/dev/null || true
  unset "PIDS[$v]"
}

# Run node's test runner on $2 for variant $1 with the contract env; summary + failures to stderr.
run_tests() {
  local v="$1" file="$2" out
  out="$WORK/$v.${file%.js}.log"
  shift 2
  if (cd "$ROOT" && env "$@" node --test --test-reporter=spec "contract/$file" >"$out" 2>&1); then
    log "PASS $v $file ($(grep -E '^ℹ (pass|fail|skipped) ' "$out" | tr '\n' ' '))"
    return 0
  fi
  log "FAIL $v $file:"
  sed -n '/failing tests:/,$p' "$out" >&2
  grep -qE 'failing tests:' "$out" || tail -n 40 "$out" >&2
  return 1
}

# The apps' logs (settings are logged at start, errors later) never show the database password.
check_logs() {
  local password v ok=0
  password="${PG_URL#*://*:}"
  password="${password%%@*}"
  for v in "${VARIANTS[@]}"; do
    [[ -f "$WORK/$v.app.log" ]] || continue
    if grep -qF -- "$password" "$WORK/$v.app.log"; then
      log "FAIL $v: its log contains the database password"
      ok=1
    fi
  done
  return "$ok"
}

check_prerequisites() {
  [[ -d "$CONTRACT/node_modules/pg" ]] || die "contract deps missing: run scripts/setup.sh (npm ci in contract)"
  local v
  for v in "${VARIANTS[@]}"; do
    case "$v" in
      node-*) [[ -f "$ROOT/node-app/server.js" && -d "$ROOT/node-app/node_modules" ]] \
        || die "node-app missing or not installed (node-app/server.js, npm ci)" ;;
      java) [[ -f "$ROOT/java-app/target/java-app.jar" ]] || {
        log "building java-app (mvn package)"
        (cd "$ROOT/java-app" && mvn -q -B -DskipTests package >/dev/null) || die "java-app build failed"
      } ;;
      *) die "unknown variant: $v (${ALL_VARIANTS[*]})" ;;
    esac
  done
}

main() {
  local only="" lifecycle=1 v
  KEEP=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --only) only="${2:-}"; shift ;;
      --no-lifecycle) lifecycle=0 ;;
      --keep) KEEP=1 ;;
      -h|--help) usage; exit 0 ;;
      *) usage >&2; die "unknown option: $1" ;;
    esac
    shift
  done
  VARIANTS=("${ALL_VARIANTS[@]}")
  [[ -n "$only" ]] && IFS=, read -r -a VARIANTS <<<"$only"
  check_prerequisites

  declare -gA PIDS=() URLS=() APP_DBS=() RESULTS_DBS=()
  OWN_PG=""
  WORK="$(mktemp -d /tmp/cfscale-contract-XXXXXX)"
  chmod 755 "$WORK" # the clusters in it run as postgres when we are root
  trap cleanup EXIT
  start_pg

  local failed=()
  run_tests spec readme-tables.test.js || failed+=("settings spec")
  for v in "${VARIANTS[@]}"; do start_variant "$v"; done
  for v in "${VARIANTS[@]}"; do
    if ! wait_healthy "$v"; then failed+=("$v: start"); stop_variant "$v"; continue; fi
    run_tests "$v" contract.test.js CONTRACT_BASE_URL="${URLS[$v]}" CONTRACT_INSTANCE_INDEX="$INSTANCE_INDEX" \
      CONTRACT_APP_NAME="contract-$v" CONTRACT_DB_URL="${APP_DBS[$v]}" CONTRACT_RESULTS_DB_URL="${RESULTS_DBS[$v]}" \
      CONTRACT_TIMINGS_CAPACITY="$((TIMINGS_CAPACITY * $(variant_workers "$v")))" \
      CONTRACT_HEADER_TIMEOUT_MS="$HEADER_TIMEOUT_MS" CONTRACT_IDLE_TIMEOUT_MS="$IDLE_TIMEOUT_MS" || failed+=("$v: contract")
  done
  for v in node-raw node-express node-cluster; do
    [[ -n "${PIDS[$v]:-}" && -n "${PIDS[java]:-}" ]] || continue
    if (cd "$ROOT" && node contract/identity.js "${URLS[$v]}" "${APP_DBS[$v]}" "${URLS[java]}" "${APP_DBS[java]}"); then
      log "PASS identity $v = java"
    else
      failed+=("identity $v/java")
    fi
  done
  for v in "${!PIDS[@]}"; do stop_variant "$v"; done
  check_logs || failed+=("logs")
  if [[ "$lifecycle" == 1 ]]; then
    for v in "${VARIANTS[@]}"; do
      run_tests "$v" lifecycle.test.js CONTRACT_VARIANT="$v" CONTRACT_APP_CMD="$(variant_cmd "$v")" \
        CONTRACT_APP_ENV="$(contract_env "$v")" CONTRACT_PG_URL="$PG_URL" CONTRACT_OUTAGE_DIR="$WORK/outage-pg" || failed+=("$v: lifecycle")
      run_tests "$v" settings.test.js CONTRACT_VARIANT="$v" CONTRACT_APP_CMD="$(variant_cmd "$v")" \
        CONTRACT_APP_ENV="$(contract_env "$v")" CONTRACT_PG_URL="$PG_URL" || failed+=("$v: settings")
    done
  fi
  if [[ ${#failed[@]} -gt 0 ]]; then
    log "FAILED: ${failed[*]}"
    exit 2
  fi
  log "all variants passed"
}

main "$@"
