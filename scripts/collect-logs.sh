#!/usr/bin/env bash
# collect-logs.sh — the router's access-log lines of an app into router_timings, until killed (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/collect-logs.js" "$@"
