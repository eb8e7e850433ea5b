#!/usr/bin/env bash
# push.sh — push an app (or all of them) from its manifest to the local platform or CF.
#
# Usage: scripts/push.sh APP|all [-i N] [--platform local|cf] [--skip-ssl-validation] [--dry-run]
#   APP            node-app, java-app or loadgen (a manifests/APP.yml); all = every one
#   -i N           instances (default: the manifest's, from the vars file)
#   --platform P   local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --skip-ssl-validation  a foundation with self-signed certificates: push makes no HTTPS
#                  request of its own, and cf push has no such flag (the cf CLI reads its
#                  stored setting, `cf api URL --skip-ssl-validation`, docs/cf-platform.md
#                  §13); on cf a line says so when the cf CLI still verifies
#   --dry-run      print each command, shell-quoted, one per line; run none (also DRY_RUN=1)
#   -h, --help     this help
#
# Both platforms are driven by the real cf CLI (.tools/bin/cf). local: starts the platform
# (scripts/cfl up) and logs the cf CLI in to its Cloud Controller (`cf login -a
# $(scripts/cfl api-url) -u admin -p admin -o local -s local`, with CF_HOME in the
# platform's own dir, so your own cf target is untouched), creates the services node-db,
# java-db and results-db (cf create-service postgres local NAME), builds the java-app jar
# when missing or stale, then `cf push APP -f manifests/APP.yml --vars-file
# manifests/vars-local.yml [-i N]` (for the loadgen then no CPU quota: the instrument, see
# scale.sh --cpu).
# cf: checks the cf CLI, login, target and services first, and that a Node app's modules
# are installed (package-lock.json) and not in its .cfignore: cf push uploads them, so
# staging builds pg-native without internet (docs/cf-platform.md §12); then
# `cf push APP -f manifests/APP.yml --vars-file manifests/vars.yml [-i N]`.
# Exit: 0 ok, 1 usage or configuration error. DEBUG=1 traces.
set -euo pipefail
SCRIPTS="$(dirname "${BASH_SOURCE[0]}")"
readonly SCRIPTS
# A fresh clone: the Node scripts need their npm packages before they can start (setup.sh
# installs what a local round needs, the cf CLI included).
[[ -d "$SCRIPTS/node_modules" ]] || "$SCRIPTS/setup.sh" >&2
exec node "$SCRIPTS/ops/push.js" "$@"
