#!/usr/bin/env bash
# test.sh — the one test command: installs what is missing, then runs every suite.
#
# Usage: scripts/test.sh [--no-setup] [--only NAME[,NAME...]] [--list]
#   --no-setup   do not run scripts/setup.sh first
#   --only       run only these suites (see --list)
#   --list       print the suites in order and exit
#
# Suites run one after another against one shared PostgreSQL cluster started here
# (superuser URL in CFSCALE_TEST_PG_URL, cluster dir in CFSCALE_TEST_PG_DIR; it serves TLS
# too, its CA in CFSCALE_TEST_PG_DIR/tls/ca.crt); each
# suite creates its own databases in it. Tests that need a database outage start a
# cluster of their own with scripts/pg-cluster.sh. Exit 0 only when every suite passed.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly TEST_PG_PORT="${CFSCALE_TEST_PG_PORT:-55433}"
# Fixed ports the suites and the local platform use (router, PostgreSQL, instances). They lie
# inside Linux's ephemeral range (32768-60999), so any outgoing connection could take one;
# reserving them keeps the kernel from handing them out while still letting us bind them.
readonly RESERVED_PORTS="41000-48999,54320-55499,61000-61999"

# name|command, in the order they run (cheap and fundamental first); not vendored code.
readonly SUITES=(
  "shellcheck|git ls-files -z -- '*.sh' '.ci/run' ':(exclude)*/vendor/*' | xargs -0 shellcheck -S warning"
  "node-app|cd node-app && npm test"
  "java-app|cd java-app && mvn -q -B test"
  "contract|contract/run.sh"
  "loadgen|cd loadgen && npm test"
  "scripts|cd scripts && npm test"
  "chisel|chisel/test.sh"
  "e2e|cd scripts && npm run test:e2e"
  "report|cd report && npm test"
)

log() { echo "test: $*" >&2; }

suite_names() { local s; for s in "${SUITES[@]}"; do echo "${s%%|*}"; done; }

reserve_ports() {
  local f=/proc/sys/net/ipv4/ip_local_reserved_ports
  if [[ -w "$f" ]] && echo "$RESERVED_PORTS" > "$f" 2>/dev/null; then
    log "reserved ports $RESERVED_PORTS (not handed out as ephemeral ports)"
  else
    log "cannot reserve ports $RESERVED_PORTS: a fixed port may now and then be taken"
  fi
}

start_pg() {
  export CFSCALE_TEST_PG_DIR="${CFSCALE_TEST_PG_DIR:-/tmp/cfscale-test-pg}"
  CFSCALE_TEST_PG_URL="$("$ROOT/scripts/pg-cluster.sh" start --dir "$CFSCALE_TEST_PG_DIR" --port "$TEST_PG_PORT" --tls)"
  export CFSCALE_TEST_PG_URL
  log "PostgreSQL test cluster on port $TEST_PG_PORT ($CFSCALE_TEST_PG_DIR)"
}

stop_pg() {
  "$ROOT/scripts/pg-cluster.sh" stop --dir "$CFSCALE_TEST_PG_DIR" || true
}

main() {
  local setup=1 only=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --no-setup) setup=0 ;;
      --only) only="$2"; shift ;;
      --list) suite_names; exit 0 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) echo "test: unknown option: $1" >&2; exit 1 ;;
    esac
    shift
  done
  cd "$ROOT"
  [[ "$setup" == 1 ]] && "$ROOT/scripts/setup.sh" --with-browser
  export PATH="$ROOT/.tools/bin:$PATH"
  reserve_ports
  start_pg
  trap stop_pg EXIT

  local failed=() passed=() entry name cmd t0
  for entry in "${SUITES[@]}"; do
    name="${entry%%|*}"
    cmd="${entry#*|}"
    if [[ -n "$only" && ",$only," != *",$name,"* ]]; then continue; fi
    log "=== $name: $cmd"
    t0=$SECONDS
    if (cd "$ROOT" && bash -c "set -euo pipefail; $cmd"); then
      passed+=("$name ($((SECONDS - t0))s)")
    else
      failed+=("$name")
      log "FAILED: $name ($((SECONDS - t0))s)"
    fi
  done
  log "passed: ${passed[*]:-none}"
  if [[ ${#failed[@]} -gt 0 ]]; then
    log "FAILED: ${failed[*]}"
    exit 1
  fi
  log "all suites passed"
}

main "$@"
