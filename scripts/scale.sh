#!/usr/bin/env bash
# scale.sh — set an app's instance count (and, on the local platform, its CPU quota) (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/scale.js" "$@"
