#!/usr/bin/env bash
# run.sh — the contract suite against every app variant, on real PostgreSQL; see contract/run.js or --help.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
exec node "$(dirname "${BASH_SOURCE[0]}")/run.js" "$@"
