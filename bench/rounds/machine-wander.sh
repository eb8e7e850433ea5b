#!/usr/bin/env bash
# machine-wander.sh — how steady this machine is for an app's kind of work: fixed JavaScript loops, work per second (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/machine-wander.js" "$@"
