#!/usr/bin/env bash
# scale.sh — set an app's instance count (and, on the local platform, its CPU quota).
#
# Usage: scripts/scale.sh APP -i N [--cpu CORES|none] [--platform local|cf] [--dry-run]
#   APP            node-app, java-app or loadgen
#   -i N           instances (required)
#   --cpu CORES    local only: per-instance CPU quota in cores (e.g. 0.5, 2), or none for
#                  no quota (default: unchanged; the local platform starts apps with
#                  manifest memory in GB x CFSCALE_CPU_PER_GB cores, as CF shares CPU by
#                  memory; the loadgen: none, it is the instrument, not the subject)
#   --platform P   local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --dry-run      print each command, shell-quoted, one per line; run none (also DRY_RUN=1)
#   -h, --help     this help
#
# Runs `cf scale APP -i N` (locally after `scripts/cfl up` and the cf login of push.sh; a
# --cpu quota first, as the process annotation cfscale.local/cpu-quota: `cf curl -X PATCH
# /v3/processes/GUID`), then waits until the v3 process stats show N instances RUNNING.
# Exit: 0 ok, 1 usage/configuration error.
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/ops/scale.js" "$@"
