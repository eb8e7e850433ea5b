#!/usr/bin/env bash
# teardown.sh — stop and delete the apps, leaving nothing running.
#
# Usage: scripts/teardown.sh [--all] [--platform local|cf] [--dry-run]
#   --all          also delete the services node-db, java-db and results-db (all data,
#                  the results too)
#   --platform P   local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --dry-run      print each command, shell-quoted, one per line; run none (also DRY_RUN=1)
#   -h, --help     this help
#
# cf: `cf delete APP -f` for node-app, java-app and loadgen (then `cf delete-service NAME -f`
# with --all). local: `cfl down` stops every instance, the router and PostgreSQL (data is
# kept unless --all deleted the services first). Exit: 0 ok, 1 usage/configuration error.
set -euo pipefail

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

usage() { usage_from_header; }

main() {
  local all=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --all) all=1 ;;
      --platform) require_value "$1" "$#"; opt_platform "$2"; shift ;;
      --dry-run) opt_dry_run ;;
      -h|--help) usage; exit 0 ;;
      *) usage_error "unknown option: $1" ;;
    esac
    shift
  done
  select_platform
  local app s
  if [[ "$PLATFORM" == cf ]]; then
    command -v cf >/dev/null 2>&1 || die "the cf CLI is not installed: run scripts/setup.sh"
    for app in "${ALL_APPS[@]}"; do cf_run delete "$app" -f; done
    if [[ "$all" == 1 ]]; then
      for s in "${SERVICES[@]}"; do cf_run delete-service "$s" -f; done
    fi
  else
    if [[ "$all" == 1 ]]; then
      cf_run up
      for app in "${ALL_APPS[@]}"; do cf_run delete "$app" -f; done
      for s in "${SERVICES[@]}"; do cf_run delete-service "$s" -f; done
    fi
    cf_run down
  fi
}

main "$@"
