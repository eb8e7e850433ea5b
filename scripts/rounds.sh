#!/usr/bin/env bash
# rounds.sh — summary table of past rounds (newest first), from the round_summary view.
#
# Usage: scripts/rounds.sh [--last N] [--app APP] [--round ID | --reap] [--platform local|cf]
#   --last N         how many rounds (default 20)
#   --app APP        only rounds of this app
#   --round ID       the full summary of one round instead (as run-round.sh printed it)
#   --reap           mark failed, with the reason, every round still pending or running
#                    whose control process is gone (no heartbeat for
#                    round_heartbeat_timeout() in results-schema.sql); one line per round
#   --platform P     where the results database is: local (results-db's service key, see run-round.sh)
#                    or cf (RESULTS_DATABASE_URL, see scripts/tunnel.sh); default: PLATFORM,
#                    else cf when `cf target` succeeds, else local
#   -h, --help       this help
#
# Columns: id, created (UTC), app, platform, status, app instances, loadgens x parallel
# (pN) or rate (R/s), length, samples after warm-up, error %, throughput, p50 and p99 ms,
# label. Exit: 0 ok, 1 usage or database error.
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/rounds.js" "$@"
