#!/usr/bin/env bash
# report.sh — render the results of rounds or an experiment: HTML with charts, SVG, CSV.
#
# Usage: scripts/report.sh [--rounds IDS | --experiment NAME] [--out DIR] [--db URL] [--platform local|cf]
#
# Reads the report views of results-schema.sql; the HTML inlines Vega/Vega-Lite/Vega-Embed
# and opens without network. Prints the path of index.html. The work is done by
# report/bin/report.js (statistics method: report/README.md).
# Exit: 0 ok, 1 usage/config, 2 rendering failed. DEBUG=1 traces.
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
