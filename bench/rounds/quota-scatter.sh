#!/usr/bin/env bash
# quota-scatter.sh — a Node.js server's per-second throughput under a CFS quota and its block means (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/quota-scatter.js" "$@"
