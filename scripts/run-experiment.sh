#!/usr/bin/env bash
# run-experiment.sh — run an experiment plan (experiments/*.yml) unattended, resumable.
#
# Usage: scripts/run-experiment.sh PLAN [--dry-run] [--platform local|cf] [--db URL] [--run-round PATH]
#        scripts/run-experiment.sh --list   (each shipped plan and what of the study it regenerates)
#
# Every round goes through scripts/run-round.sh with a label exp:<plan>:<step>:rep<r>;
# rounds already done under that label are skipped, so running the plan again resumes it.
# The work is done by report/bin/run-experiment.js (plans, order, scale-until-SLO, capacity
# search: report/README.md). Exit: 0 ok, 1 usage/config, 2 some round failed. DEBUG=1 traces.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT

main() {
  [[ -d "$ROOT/report/node_modules" ]] \
    || { echo "run-experiment: report/node_modules missing: run scripts/setup.sh" >&2; exit 1; }
  exec node "$ROOT/report/bin/run-experiment.js" "$@"
}

main "$@"
