#!/usr/bin/env bash
# tunnel.sh — open a chisel tunnel to the results database and prove it works (options: --help).
set -euo pipefail

exec node "$(dirname "${BASH_SOURCE[0]}")/cf/tunnel.js" "$@"
