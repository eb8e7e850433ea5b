#!/usr/bin/env bash
# cells.sh — the steady-state procedure with and without cells, interleaved: do rounds repeat (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/cells.js" "$@"
