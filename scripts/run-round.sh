#!/usr/bin/env bash
# run-round.sh — one measured round: app and loadgen up and scaled, the round run, its summary printed (options: --help).
set -euo pipefail
SCRIPTS="$(dirname "${BASH_SOURCE[0]}")"
readonly SCRIPTS
# A fresh clone: the Node scripts need their npm packages before they can start (setup.sh
# installs what a local round needs, the cf CLI included).
[[ -d "$SCRIPTS/node_modules" ]] || "$SCRIPTS/setup.sh" >&2
exec node "$SCRIPTS/round/run-round.js" "$@"
