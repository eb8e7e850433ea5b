#!/usr/bin/env bash
# push.sh — push an app (or all of them) from its manifest to the local platform or CF (options: --help).
set -euo pipefail
SCRIPTS="$(dirname "${BASH_SOURCE[0]}")"
readonly SCRIPTS
# A fresh clone: the Node scripts need their npm packages before they can start (setup.sh
# installs what a local round needs, the cf CLI included).
[[ -d "$SCRIPTS/node_modules" ]] || "$SCRIPTS/setup.sh" >&2
exec node "$SCRIPTS/ops/push.js" "$@"
