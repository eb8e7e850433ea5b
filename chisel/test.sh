#!/usr/bin/env bash
# test.sh — the chisel tunnel server's tests: unit tests, vendor/ current (vendor_test.go) and a real end-to-end run (e2e_test.go).
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
[[ $# -eq 0 ]] || { echo "Usage: chisel/test.sh   (run by scripts/test.sh as the \"chisel\" suite; no options)" >&2; exit 1; }
cd "$(dirname "${BASH_SOURCE[0]}")"
GOFLAGS=-mod=vendor CFSCALE_CHISEL_E2E=1 exec go test -count=1 -v ./...
