#!/usr/bin/env bash
# collect-logs.sh — the router's access-log lines of an app into router_timings, until killed.
#
# Usage: scripts/collect-logs.sh --app APP --round ID [--platform local|cf] [--dry-run]
#   --app APP          the app whose logs to follow (required)
#   --round ID         the round the records belong to (required)
#   --db URL           results database (default: local `cfl service-url results-db`,
#                      cf RESULTS_DATABASE_URL)
#   --platform P       local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --dry-run          print the platform command, run nothing
#   -h, --help         this help
#
# Streams `cf logs APP` (locally `cfl logs APP`, the same layout) into
# scripts/parsers/ingest-rtr.js, which keeps the [RTR/N] lines (Gorouter access-log
# layout, shared/reference/cloud-foundry-contracts.md §5). On CF these are a lossy sample
# under load. SIGTERM or SIGINT stops `cf logs`; what was read is flushed, exit 0 (2 when
# rows could not be written).
set -euo pipefail

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=lib/collect.sh
source "$CFSCALE_ROOT/scripts/lib/collect.sh"

usage() { usage_from_header; }

produce_logs() { exec "${CF[@]}" logs "$APP"; }

main() {
  local round="" db=""
  APP=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --app) require_value "$1" "$#"; APP="$2"; shift ;;
      --round) require_value "$1" "$#"; round="$2"; shift ;;
      --db) require_value "$1" "$#"; db="$2"; shift ;;
      --platform) require_value "$1" "$#"; opt_platform "$2"; shift ;;
      --dry-run) opt_dry_run ;;
      -h|--help) usage; exit 0 ;;
      *) usage_error "unknown option: $1" ;;
    esac
    shift
  done
  require_collector_args "$round"
  select_platform
  if [[ "$DRY_RUN" == 1 ]]; then
    print_cmd "${CF[@]}" logs "$APP"
    return 0
  fi
  [[ -n "$db" ]] || db="$(results_db_url)"
  pipe_until_term produce_logs -- node scripts/parsers/ingest-rtr.js --db "$db" --round "$round" \
    --app "$APP" --platform "$PLATFORM"
}

main "$@"
