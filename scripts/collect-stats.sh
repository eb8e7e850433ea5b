#!/usr/bin/env bash
# collect-stats.sh — per-instance CPU and memory of an app into instance_stats, until killed.
#
# Usage: scripts/collect-stats.sh --app APP --round ID [--source v3|plugin|auto]
#          [--interval SEC] [--guid GUID] [--platform local|cf] [--dry-run]
#   --app APP          the app to watch (required)
#   --guid GUID        the app's guid for the v3 stats (default: `cf app APP --guid`;
#                      run-round.sh passes the one it has, a placeholder under --dry-run)
#   --round ID         the round the samples belong to (required)
#   --source S         v3: `cf curl /v3/apps/GUID/processes/web/stats` every --interval
#                      seconds; plugin: `cf statistics APP --debug --full` (the swisscom
#                      statistics plugin, one poll per second; it calls only v2 endpoints,
#                      off on current foundations, docs/cf-platform.md §1, so on CF it must
#                      be chosen and installed: listed in the cf CLI's plugin config,
#                      ${CF_PLUGIN_HOME:-${CF_HOME:-$HOME}}/.cf/plugins/config.json; when it
#                      ends by itself the v3 stats are polled instead); auto (default): v3
#   --interval SEC     v3 polling interval in seconds (default 5 on CF, which refreshes about
#                      every 15 s, docs/cf-platform.md §1, repeats are dropped; 1 locally,
#                      where the figures are refreshed every second)
#   --db URL           results database (default: local the service key of results-db,
#                      see run-round.sh; cf RESULTS_DATABASE_URL)
#   --platform P       local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --dry-run          print the platform command, run nothing
#   -h, --help         this help
#
# The samples are piped into scripts/parsers/ingest-stats.js. SIGTERM or SIGINT stops the
# platform command; what was read is flushed and the script exits 0 (2 when rows could not
# be written). The cf CLI is the client on both platforms (locally logged in by push.sh).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/collect-stats.js" "$@"
