# shellcheck shell=bash
# collect.sh — run a producer (a cf command or a polling function) into an ingest CLI
# until SIGTERM/SIGINT: then the producer's whole process group is stopped (a cf plugin
# or a sleeping poll included), the ingest CLI reads to end of input, flushes its rows
# and the collector exits with the ingest CLI's status (0 when all rows were written).

# require_collector_args ROUND — the checks every collector makes of its common flags
# (--app is in APP; --round ROUND is a positive integer unless this is a dry run).
require_collector_args() {
  [[ -n "$APP" ]] || usage_error "--app is required"
  require_known_app "$APP"
  [[ -n "$1" ]] || usage_error "--round is required"
  [[ "$DRY_RUN" == 1 ]] || require_positive_int "$1" --round
}

# pipe_until_term PRODUCER_FN -- CONSUMER... (sourced after common.sh)
pipe_until_term() {
  local producer="$1"
  shift 2
  local dir
  dir="$(mktemp -d /tmp/cfscale-collect.XXXXXX)"
  mkfifo "$dir/pipe"
  "$@" <"$dir/pipe" &
  local consumer_pid=$!
  # Monitor mode for this one job: the producer gets a process group of its own.
  set -m
  "$producer" >"$dir/pipe" &
  PRODUCER_PID=$!
  set +m
  trap 'kill -TERM -- "-$PRODUCER_PID" 2>/dev/null || true' TERM INT
  while kill -0 "$PRODUCER_PID" 2>/dev/null; do wait "$PRODUCER_PID" || true; done
  trap - TERM INT
  local rc=0
  wait "$consumer_pid" || rc=$?
  rm -rf "$dir"
  return "$rc"
}
