#!/usr/bin/env bash
# rounds.sh — summary table of past rounds (newest first), from the round_summary view (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/round/rounds.js" "$@"
