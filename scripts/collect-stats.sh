#!/usr/bin/env bash
# collect-stats.sh — per-instance CPU and memory of an app into instance_stats, until killed (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/collect-stats.js" "$@"
