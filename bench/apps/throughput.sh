#!/usr/bin/env bash
# throughput.sh — what timing recording costs each app variant (req/s on vs off); see bench/apps/throughput.js or --help.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
exec node "$(dirname "${BASH_SOURCE[0]}")/throughput.js" "$@"
