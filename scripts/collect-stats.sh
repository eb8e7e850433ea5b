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
#                      15 s, docs/cf-platform.md §1, duplicates dropped)
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
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/collect-stats.js" "$@"
