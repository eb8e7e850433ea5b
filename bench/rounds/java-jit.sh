#!/usr/bin/env bash
# java-jit.sh — what a JVM under a small CPU quota spends besides requests: the JIT and the collector per start (options: --help).
set -euo pipefail
exec node "$(dirname "${BASH_SOURCE[0]}")/java-jit.js" "$@"
