#!/usr/bin/env bash
# push.sh — push an app (or all of them) from its manifest to the local platform or CF.
#
# Usage: scripts/push.sh APP|all [-i N] [--platform local|cf] [--dry-run]
#   APP            node-app, java-app or loadgen (a manifests/APP.yml); all = every one
#   -i N           instances (default: the manifest's, from the vars file)
#   --platform P   local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --dry-run      print each command, shell-quoted, one per line; run none (also DRY_RUN=1)
#   -h, --help     this help
#
# local: starts the platform (scripts/cfl up), creates the services node-db, java-db and
# results-db when missing, builds the java-app jar when missing or stale, then
# `cfl push APP -f manifests/APP.yml --vars-file manifests/vars-local.yml [-i N]` (for the
# loadgen then `cfl scale loadgen --cpu none`: the instrument gets no CPU quota).
# cf: checks the cf CLI, login, target and services first, then
# `cf push APP -f manifests/APP.yml --vars-file manifests/vars.yml [-i N]`.
# Exit: 0 ok, 1 usage or configuration error. DEBUG=1 traces.
set -euo pipefail

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=lib/apps.sh
source "$CFSCALE_ROOT/scripts/lib/apps.sh"

usage() { usage_from_header; }

main() {
  local target="" instances=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -i|--instances) require_value "$1" "$#"; instances="$2"; shift ;;
      --platform) require_value "$1" "$#"; opt_platform "$2"; shift ;;
      --dry-run) opt_dry_run ;;
      -h|--help) usage; exit 0 ;;
      -*) usage_error "unknown option: $1" ;;
      *) [[ -z "$target" ]] || usage_error "one APP (or all) only, got \"$target\" and \"$1\""; target="$1" ;;
    esac
    shift
  done
  [[ -n "$target" ]] || usage_error "APP is required (one of: $(known_apps), all)"
  [[ -z "$instances" ]] || require_positive_int "$instances" -i
  local apps=("$target")
  [[ "$target" == all ]] && apps=("${ALL_APPS[@]}")
  local app
  for app in "${apps[@]}"; do require_known_app "$app"; done
  select_platform
  if [[ "$PLATFORM" == local ]]; then
    local_platform_up
    local_services
  else
    cf_preflight
  fi
  for app in "${apps[@]}"; do push_app "$app" "$instances"; done
}

main "$@"
