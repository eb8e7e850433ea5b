#!/usr/bin/env bash
# report.sh — render the results of rounds or an experiment: HTML with charts, SVG, CSV (options: --help).
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT

main() {
  [[ -d "$ROOT/report/node_modules" ]] \
    || { echo "report: report/node_modules missing: run scripts/setup.sh" >&2; exit 1; }
  exec node "$ROOT/report/bin/report.js" "$@"
}

main "$@"
