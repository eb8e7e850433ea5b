#!/usr/bin/env bash
# pg-cluster.sh — a real, throw-away PostgreSQL cluster for the local platform and tests; the work is done by local-platform/lib/pg-cluster.js (options: --help).
set -euo pipefail

exec node "$(dirname "${BASH_SOURCE[0]}")/../local-platform/lib/pg-cluster.js" "$@"
