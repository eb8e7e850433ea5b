#!/usr/bin/env bash
# repeatability.sh — identical local rounds back to back: their throughput and p99, with the
# coefficient of variation per instance count, with a guessed warm-up (`fixed`: --warmup 2s
# --prewarm 200) and with the steady-state gate (`gate`), interleaved round by round.
#
# Usage: bench/rounds/repeatability.sh [--app node-app] [--cpu 0.1] [--instances 1,2]
#          [--rounds 5] [--loadgens 1] [--parallel 16] [--duration 10s] [--ways fixed,gate]
#          [-- RUN-ROUND-FLAGS...]
#   --app A          the app (default node-app)
#   --cpu C          per-instance CPU quota, cores (default 0.1; '' = the platform's)
#   --instances K,.. instance counts, one block each (default 1,2)
#   --rounds R       counted rounds per instance count and way (default 5)
#   --loadgens N, --parallel N, --duration D   the load of every round (default 1, 16, 10s)
#   --ways W,..      fixed and/or gate (default fixed,gate)
#   -- FLAGS         passed to every run-round.sh, e.g. -- --steady-window 5s
#
# Each instance count starts with a settle round (shown, not counted: the first round after a
# change). A local platform of its own (CFSCALE_HOME /tmp/cfscale-bench-repeat-*, ports
# `repeatability` of ports.json), torn down at the end. Heavy: run it under the shared lock (flock
# /tmp/cfscale-heavy.lock ...). On demand only, not in CI. Read the CVs of one run side by
# side, not absolute rates: the machine is shared. Exit 0 ok, 1 usage, 2 a round failed.
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/repeatability.js" "$@"
