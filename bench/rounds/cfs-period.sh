#!/usr/bin/env bash
# cfs-period.sh — which CFS period makes the local platform's latency closest to CF's CPU
# shares: node-app x1 serving the same open-model rate (so the same work and CPU) under
# CFSCALE_CPU_MODE=shares (no quota: a cell with spare CPU) and under a hard quota of
# --cpu cores with each period; p50/p90/p99 per configuration and each period's distance
# to shares (mean |ln(quota/shares)| over the three percentiles). Chooses
# CFSCALE_CPU_PERIOD_US's default (local-platform/README.md).
#
# Usage: bench/rounds/cfs-period.sh [--cpu 0.1] [--periods 100000,50000,20000,10000]
#                                   [--loads 0.2,0.35] [--duration 20] [--warmup 10] [--reps 2]
#   --cpu C        the quota, cores (default 0.1); every period x C must be >= 1000 µs
#   --periods P,.. CFS periods to compare, µs (default 100000,50000,20000,10000)
#   --loads L,..   rates as fractions of the capacity at the quota with a 100 ms period
#                  (closed model, 16 in flight) (default 0.2,0.35: the open model costs the app
#                  about twice the CPU per request, so 0.5 would saturate the quota)
#   --duration S   seconds measured per rate (default 20), after 5 s at that rate
#   --warmup S     the app warmed up without a quota before each configuration (default 10)
#   --reps N       interleaved repetitions; medians are compared (default 2)
#
# A fresh local platform per configuration (the period is the daemon's; CFSCALE_HOME
# /tmp/cfscale-bench-period-*, ports: range `cfs-period` of ports.json), torn down at the end. Heavy: run
# it under the shared lock (flock /tmp/cfscale-heavy.lock ...). On demand only, not in CI.
# Exit 0 ok, 1 usage, 2 a step failed.
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/cfs-period.js" "$@"
