#!/usr/bin/env bash
# tunnel.sh — open a chisel tunnel to the results database and prove it works.
#
# Usage: scripts/tunnel.sh [--platform local|cf] [--local-port N] [--skip-ssl-validation] [--dry-run]
#        scripts/tunnel.sh --stop
#   --platform P     local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --local-port N   local end of the tunnel on 127.0.0.1 (default 15432)
#   --skip-ssl-validation  cf: the chisel client skips TLS verification of the app's route
#                    (--tls-skip-verify); default: the cf CLI's own setting (SSLDisabled in
#                    $CF_HOME/.cf/config.json, else ~/.cf; docs/cf-platform.md §13)
#   --dry-run        print the exact commands, one per line; run none (also DRY_RUN=1)
#   --stop           end the tunnel this script started (and the local chisel server)
#   -h, --help       this help
#
# cf: pushes the chisel app when absent (cf push -f manifests/chisel.yml --vars-file
# manifests/vars.yml; the manifest binds results-db) and binds results-db when the app
# lacks it; reads the tunnel credentials, the key and the results-db binding with
# `cf curl /v3/apps/GUID/env` and the route with `cf curl /v3/apps/GUID/routes`; starts
# the chisel client pinned to the server's fingerprint (computed from the key).
# local: runs the same chisel server (chisel/) as a background process in front of the
# local results-db (its service key cfscale-scripts, through the cf CLI logged in to the
# local platform as by push.sh), with fresh random credentials.
# Either way psql SELECT 1 through the tunnel must work before the script says so; then
# it prints the psql command and `export RESULTS_DATABASE_URL=...` for run-round.sh
# (stdout). State (pids, logs) in .state/tunnel (CFSCALE_TUNNEL_DIR); the proof waits at most
# CFSCALE_TUNNEL_TIMEOUT_SEC (20) seconds.
# Exit: 0 ok, 1 usage/configuration, 2 the tunnel does not carry traffic. DEBUG=1 traces.
set -euo pipefail

# The work is done by scripts/cf/tunnel.js; the header above is its --help.
exec node "$(dirname "${BASH_SOURCE[0]}")/cf/tunnel.js" "$@"
