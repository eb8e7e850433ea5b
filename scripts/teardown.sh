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
# with --all; locally after `scripts/cfl up` and the cf login of push.sh). local: then
# `scripts/cfl down` stops every instance, the router and PostgreSQL (data is kept unless
# --all deleted the services first). Exit: 0 ok, 1 usage/configuration error.
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/teardown.js" "$@"
