#!/usr/bin/env bash
# compare.sh — compare two sets of rounds by the verdict engine: same / different / unknown per metric (options: --help).
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT

main() {
  [[ -d "$ROOT/report/node_modules" ]] \
    || { echo "compare: report/node_modules missing: run scripts/setup.sh" >&2; exit 1; }
  exec node "$ROOT/report/bin/compare.js" "$@"
}

main "$@"
