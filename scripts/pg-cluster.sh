#!/usr/bin/env bash
# pg-cluster.sh — a real, throw-away PostgreSQL cluster for the local platform and tests.
#
# Usage:
#   scripts/pg-cluster.sh start --dir DIR [--port PORT] [--tls] [--max-connections N]
#                                                         init if needed, start, print superuser URL
#                                                         (--tls: also TLS, CA in DIR/tls/ca.crt, a client
#                                                         certificate and database cfscale_clientcert that needs one;
#                                                         --max-connections: max_connections, default 400)
#   scripts/pg-cluster.sh stop  --dir DIR                 fast shutdown (no-op when not running)
#   scripts/pg-cluster.sh url   --dir DIR                 print superuser URL
#   scripts/pg-cluster.sh status --dir DIR                exit 0 when running
#   scripts/pg-cluster.sh createdb --dir DIR NAME         create database NAME if missing, print its URL
#
# The work is done by local-platform/lib/pg-cluster.js (same options, output and exit codes);
# this name stays because every suite and script calls it.
set -euo pipefail

exec node "$(dirname "${BASH_SOURCE[0]}")/../local-platform/lib/pg-cluster.js" "$@"
