#!/usr/bin/env bash
# collect-stats.sh — per-instance CPU and memory of an app into instance_stats, until killed.
#
# Usage: scripts/collect-stats.sh --app APP --round ID [--source plugin|v3|auto]
#          [--interval SEC] [--platform local|cf] [--dry-run]
#   --app APP          the app to watch (required)
#   --round ID         the round the samples belong to (required)
#   --source S         plugin: `cf statistics APP --debug --full` (the swisscom statistics
#                      plugin, one poll per second); v3: `cf curl /v3/apps/GUID/processes/web/stats`
#                      every --interval seconds; auto (default): the plugin when installed
#                      (cf's plugin config lists "Statistics"), else v3. Locally the
#                      plugin's shape comes from `cfl statistics`.
#   --interval SEC     v3 polling interval in seconds (default 5; CF refreshes about every
#                      15 s, shared/reference/cloud-foundry-contracts.md §1, duplicates dropped)
#   --db URL           results database (default: local `cfl service-url results-db`,
#                      cf RESULTS_DATABASE_URL)
#   --platform P       local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --dry-run          print the platform command, run nothing
#   -h, --help         this help
#
# The samples are piped into scripts/parsers/ingest-stats.js. SIGTERM or SIGINT stops the
# platform command; what was read is flushed and the script exits 0 (2 when rows could not
# be written). Results database: local `cfl service-url results-db`, cf RESULTS_DATABASE_URL.
set -euo pipefail

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=lib/collect.sh
source "$CFSCALE_ROOT/scripts/lib/collect.sh"

readonly DEFAULT_INTERVAL_SEC=5

usage() { usage_from_header; }

# The cf statistics plugin is installed: the cf CLI's plugin config (JSON) lists it.
plugin_installed() {
  local config="${CF_PLUGIN_HOME:-$HOME}/.cf/plugins/config.json"
  [[ -f "$config" ]] && jq -e '.Plugins | has("Statistics")' "$config" >/dev/null 2>&1
}

produce_plugin() { exec "${CF[@]}" statistics "$APP" --debug --full; }

produce_v3() {
  while :; do
    cf_query curl "/v3/apps/$GUID/processes/web/stats" || true
    sleep "$INTERVAL"
  done
}

main() {
  local round="" db=""
  APP="" source=auto
  INTERVAL="$DEFAULT_INTERVAL_SEC"
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --app) require_value "$1" "$#"; APP="$2"; shift ;;
      --round) require_value "$1" "$#"; round="$2"; shift ;;
      --db) require_value "$1" "$#"; db="$2"; shift ;;
      --source) require_value "$1" "$#"; source="$2"; shift ;;
      --interval) require_value "$1" "$#"; INTERVAL="$2"; shift ;;
      --platform) require_value "$1" "$#"; opt_platform "$2"; shift ;;
      --dry-run) opt_dry_run ;;
      -h|--help) usage; exit 0 ;;
      *) usage_error "unknown option: $1" ;;
    esac
    shift
  done
  require_collector_args "$round"
  [[ "$source" =~ ^(plugin|v3|auto)$ ]] || usage_error "--source must be plugin, v3 or auto, got \"$source\""
  require_positive_int "$INTERVAL" --interval
  select_platform
  if [[ "$source" == auto ]]; then
    source=v3
    if [[ "$PLATFORM" == local ]] || plugin_installed; then source=plugin; fi
  fi
  local producer=produce_plugin
  if [[ "$source" == v3 ]]; then
    producer=produce_v3
    GUID="$(app_guid "$APP")"
    [[ -n "$GUID" ]] || die "$APP is not pushed"
  fi
  if [[ "$DRY_RUN" == 1 ]]; then
    if [[ "$source" == v3 ]]; then print_cmd "${CF[@]}" curl "/v3/apps/$GUID/processes/web/stats"
    else print_cmd "${CF[@]}" statistics "$APP" --debug --full; fi
    return 0
  fi
  [[ -n "$db" ]] || db="$(results_db_url)"
  pipe_until_term "$producer" -- node scripts/parsers/ingest-stats.js --db "$db" --round "$round" \
    --app "$APP" --platform "$PLATFORM"
}

main "$@"
