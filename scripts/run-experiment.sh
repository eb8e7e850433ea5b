#!/usr/bin/env bash
# run-experiment.sh — run an experiment plan (experiments/*.yml) unattended, resumable (options: --help).
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT

main() {
  [[ -d "$ROOT/scripts/node_modules" ]] \
    || { echo "run-experiment: scripts/node_modules missing: run scripts/setup.sh" >&2; exit 1; }
  exec node "$ROOT/scripts/experiment/run-experiment.js" "$@"
}

main "$@"
