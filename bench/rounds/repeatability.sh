#!/usr/bin/env bash
# repeatability.sh — identical local rounds back to back: does the instrument read the same twice (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/repeatability.js" "$@"
