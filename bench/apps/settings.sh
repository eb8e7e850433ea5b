#!/usr/bin/env bash
# settings.sh — one app under several settings, side by side (req/s, app CPU per request); see bench/apps/settings.js or --help.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
exec node "$(dirname "${BASH_SOURCE[0]}")/settings.js" "$@"
