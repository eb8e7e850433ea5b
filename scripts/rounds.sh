#!/usr/bin/env bash
# rounds.sh — summary table of past rounds (newest first), from the round_summary view.
#
# Usage: scripts/rounds.sh [--last N] [--app APP] [--round ID] [--platform local|cf]
#   --last N         how many rounds (default 20)
#   --app APP        only rounds of this app
#   --round ID       the full summary of one round instead (as run-round.sh printed it)
#   --platform P     where the results database is: local (`cfl service-url results-db`)
#                    or cf (RESULTS_DATABASE_URL, see scripts/tunnel.sh); default: PLATFORM,
#                    else cf when `cf target` succeeds, else local
#   -h, --help       this help
#
# Columns: id, created (UTC), app, platform, status, app instances, loadgens x parallel
# (pN) or rate (R/s), length, samples after warm-up, error %, throughput, p50 and p99 ms,
# label. Exit: 0 ok, 1 usage or database error.
set -euo pipefail

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

readonly DEFAULT_LAST=20

usage() { usage_from_header; }

main() {
  local last="$DEFAULT_LAST" app="" round=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --last) require_value "$1" "$#"; last="$2"; shift ;;
      --app) require_value "$1" "$#"; app="$2"; shift ;;
      --round) require_value "$1" "$#"; round="$2"; shift ;;
      --platform) require_value "$1" "$#"; opt_platform "$2"; shift ;;
      -h|--help) usage; exit 0 ;;
      *) usage_error "unknown option: $1" ;;
    esac
    shift
  done
  require_positive_int "$last" --last
  [[ -z "$app" ]] || require_known_app "$app"
  [[ -z "$round" ]] || require_positive_int "$round" --round
  select_platform
  local db
  db="$(results_db_url)"
  if [[ -n "$round" ]]; then
    node scripts/round/show-round.js --db "$db" --round "$round"
    return
  fi
  local args=(--db "$db" --last "$last")
  [[ -n "$app" ]] && args+=(--app "$app")
  node scripts/round/rounds-table.js "${args[@]}"
}

main "$@"
