#!/usr/bin/env bash
# cfs-period.sh — which CFS period makes the local platform's latency closest to CF's CPU shares (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/cfs-period.js" "$@"
