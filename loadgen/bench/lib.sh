#!/usr/bin/env bash
# lib.sh — helpers shared by the loadgen benchmarks (sourced, not run).
# Ports come from loadgen's range (44000-44999); temp dirs are /tmp/cfscale-loadgen-bench-*.
# Results are handed back in globals (CPU_SEC), read by the sourcing script.
# shellcheck disable=SC2034

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOADGEN_DIR="$(dirname "$BENCH_DIR")"
REPO_DIR="$(dirname "$LOADGEN_DIR")"
readonly BENCH_DIR LOADGEN_DIR REPO_DIR
readonly PG_CLUSTER="$REPO_DIR/scripts/pg-cluster.sh"
CLEANUP_PIDS=()
CLEANUP_DIRS=()
PG_DIR=""

log() { echo "bench: $*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }

cleanup() {
  local pid dir
  for pid in "${CLEANUP_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [[ -n "$PG_DIR" ]]; then "$PG_CLUSTER" stop --dir "$PG_DIR" >/dev/null 2>&1 || true; fi
  for dir in "${CLEANUP_DIRS[@]}"; do rm -rf "$dir"; done
}

# start_target CORE [node|go|haproxy]: the minimal target pinned to CORE — node:http
# (target.js), Go net/http (gotarget/, built here, needs go) or HAProxy answering by itself
# (haproxy-target.js) — on a free port the kernel picks (fixed ports collide with other users
# of the ephemeral range), which each prints first; sets TARGET_PORT. All three answer alike:
# 200, "ok\n", the request's X-Correlation-ID echoed, X-Instance-Index 0 (as the apps' /health).
start_target() {
  local core="$1" kind="${2:-node}" portfile _ cmd
  portfile="$(mktemp /tmp/cfscale-loadgen-bench-port-XXXXXX)"
  CLEANUP_DIRS+=("$portfile")
  case "$kind" in
    node) cmd=(node "$BENCH_DIR/target.js" 0) ;;
    haproxy)
      command -v haproxy >/dev/null || die "--target haproxy needs haproxy (scripts/setup.sh installs it)"
      cmd=(node "$BENCH_DIR/haproxy-target.js") ;;
    go)
      command -v go >/dev/null || die "--target go needs the go toolchain (scripts/setup.sh installs it)"
      (cd "$BENCH_DIR/gotarget" && GOFLAGS=-mod=mod go build -o "$portfile.bin" .) || die "building gotarget failed"
      CLEANUP_DIRS+=("$portfile.bin")
      cmd=("$portfile.bin" 0) ;;
    *) die "unknown target: $kind (node, go or haproxy)" ;;
  esac
  taskset -c "$core" "${cmd[@]}" >"$portfile" 2>/dev/null &
  CLEANUP_PIDS+=("$!")
  for _ in $(seq 50); do
    TARGET_PORT="$(head -1 "$portfile")"
    [[ -n "$TARGET_PORT" ]] && (: >"/dev/tcp/127.0.0.1/$TARGET_PORT") 2>/dev/null && return 0
    sleep 0.1
  done
  die "target did not start"
}

# start_pg PORT CORE: a throw-away cluster pinned to CORE; sets DB_URL (a db with the schema).
# Not to be called in $(...): the cleanup list must reach the caller's shell.
start_pg() {
  local port="$1" core="$2" pid
  local attempt
  PG_DIR="$(mktemp -d /tmp/cfscale-loadgen-bench-pg-XXXXXX)"
  CLEANUP_DIRS+=("$PG_DIR")
  # The port may be taken for a moment (it lies in the kernel's ephemeral range): try a few.
  for attempt in 0 1 2 3 4; do
    "$PG_CLUSTER" start --dir "$PG_DIR" --port $((port + attempt * 17)) >/dev/null 2>&1 && break
    [[ "$attempt" == 4 ]] && die "PostgreSQL did not start, see $PG_DIR/server.log"
  done
  pid="$(head -1 "$PG_DIR/data/postmaster.pid")"
  taskset -a -c -p "$core" "$pid" >/dev/null
  DB_URL="$("$PG_CLUSTER" createdb --dir "$PG_DIR" bench)"
  psql "$DB_URL" -q -v ON_ERROR_STOP=1 -c 'SET client_min_messages = warning' -f "$REPO_DIR/results-schema.sql" >/dev/null
}

# new_round DB_URL TARGET_URL: inserts a rounds row, prints its id.
new_round() {
  psql "$1" -Atq -c "INSERT INTO rounds (start_at, platform, app, target_url, app_instances, loadgens, model, parallel, duration_ms, label)
    VALUES (now(), 'local', 'bench', '$2', 1, 1, 'closed', 1, 1000, 'loadgen bench') RETURNING id"
}

# cpu_time CMD...: runs CMD, its stdout to $CPU_OUT; sets CPU_SEC (user+system of CMD and its children).
cpu_time() {
  local tf
  tf="$(mktemp /tmp/cfscale-loadgen-bench-time-XXXXXX)"
  /usr/bin/time -o "$tf" -f '%U %S' "$@" >"$CPU_OUT" 2>/dev/null || true
  CPU_SEC="$(awk 'END { printf "%.2f", $1 + $2 }' "$tf")"
  rm -f "$tf"
}

# total_requests TOOL: the requests of the run cpu_time just timed (its JSON); a run that gave
# none (the tool failed: its stderr is not kept) stops the bench.
total_requests() {
  local n
  n="$(jq '.requests.total // empty' "$CPU_OUT" 2>/dev/null)"
  [[ -n "$n" ]] || die "$1 gave no result (run it by hand to see why)"
  echo "$n"
}

# pg_cpu_sec: CPU seconds used so far by the bench cluster (pg-cpu.js).
pg_cpu_sec() { node "$BENCH_DIR/pg-cpu.js" "$PG_DIR"; }
