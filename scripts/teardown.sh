#!/usr/bin/env bash
# teardown.sh — stop and delete the apps, leaving nothing running (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/teardown.js" "$@"
