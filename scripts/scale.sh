#!/usr/bin/env bash
# scale.sh — set an app's instance count (and, on the local platform, its CPU quota).
#
# Usage: scripts/scale.sh APP -i N [--cpu CORES|none] [--platform local|cf] [--dry-run]
#   APP            node-app, java-app or loadgen
#   -i N           instances (required)
#   --cpu CORES    local only: per-instance CPU quota in cores (e.g. 0.5, 2), or none for
#                  no quota (default: unchanged; the local platform starts apps with
#                  manifest memory in GB x CFSCALE_CPU_PER_GB cores, as CF shares CPU by
#                  memory; the loadgen: none, it is the instrument, not the subject)
#   --platform P   local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --dry-run      print each command, shell-quoted, one per line; run none (also DRY_RUN=1)
#   -h, --help     this help
#
# Runs `cf scale APP -i N` (locally `cfl scale APP -i N [--cpu C]`), then waits until the
# v3 process stats show N instances RUNNING. Exit: 0 ok, 1 usage/configuration error.
set -euo pipefail

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=lib/apps.sh
source "$CFSCALE_ROOT/scripts/lib/apps.sh"

usage() { usage_from_header; }

main() {
  local app="" instances="" cpu=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -i|--instances) require_value "$1" "$#"; instances="$2"; shift ;;
      --cpu) require_value "$1" "$#"; cpu="$2"; shift ;;
      --platform) require_value "$1" "$#"; opt_platform "$2"; shift ;;
      --dry-run) opt_dry_run ;;
      -h|--help) usage; exit 0 ;;
      -*) usage_error "unknown option: $1" ;;
      *) [[ -z "$app" ]] || usage_error "one APP only, got \"$app\" and \"$1\""; app="$1" ;;
    esac
    shift
  done
  [[ -n "$app" ]] || usage_error "APP is required (one of: $(known_apps))"
  require_known_app "$app"
  [[ -n "$instances" ]] || usage_error "-i N is required"
  require_positive_int "$instances" -i
  [[ -z "$cpu" ]] || require_cpu "$cpu"
  select_platform
  [[ -z "$cpu" || "$PLATFORM" == local ]] || usage_error "--cpu is local only (on CF, CPU follows memory)"
  [[ "$PLATFORM" == cf ]] && cf_preflight
  local guid
  guid="$(app_guid "$app")"
  [[ -n "$guid" ]] || die "$app is not pushed: run scripts/push.sh $app"
  scale_app "$app" "$instances" "$cpu"
  wait_running "$guid" "$instances"
}

main "$@"
