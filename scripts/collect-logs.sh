#!/usr/bin/env bash
# collect-logs.sh — the router's access-log lines of an app into router_timings, until killed.
#
# Usage: scripts/collect-logs.sh --app APP --round ID [--platform local|cf] [--dry-run]
#   --app APP          the app whose logs to follow (required)
#   --round ID         the round the records belong to (required)
#   --db URL           results database (default: local the service key of results-db,
#                      see run-round.sh; cf RESULTS_DATABASE_URL)
#   --platform P       local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --dry-run          print the platform command, run nothing
#   -h, --help         this help
#
# Streams `cf logs APP` (on both platforms: the local one serves log-cache) into
# scripts/parsers/ingest-rtr.js, which keeps the [RTR/N] lines (Gorouter access-log
# layout, docs/cf-platform.md §5). On CF these are a lossy sample under load. `cf logs`
# ends by itself after 5 log-cache errors in a row (§10): it is then restarted, after
# `cf logs APP --recent` has caught up on the gap (one line on stderr each time; records
# already stored are dropped). SIGTERM or SIGINT stops `cf logs`; what was read is flushed,
# exit 0 (2 when rows could not be written).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/collect-logs.js" "$@"
