#!/usr/bin/env bash
# harness-cost.sh — the harness's CPU per request in a round's measured window, this checkout against another (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/harness-cost.js" "$@"
