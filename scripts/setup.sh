#!/usr/bin/env bash
# setup.sh — install everything cfscale needs on a fresh Debian machine, idempotently.
#
# Usage: scripts/setup.sh [--no-apt] [--with-browser] [--no-tools]
#   --no-apt        skip Debian packages (for machines where they are known present)
#   --with-browser  also install Debian's chromium (report tests)
#   --no-tools      skip the Go tools (cf CLI, chisel): for machines that have a cf CLI on
#                   PATH (a local round drives the local platform with it)
#
# Installs: Debian packages (PostgreSQL server, HAProxy, libpq-dev, jq, shellcheck),
# the npm dependencies of every Node part and of the root's lint (pg-native compiled against libpq with the
# Node headers from /usr/include/node), the java-app jar, and the Go tools (chisel
# server, chisel client, cf CLI) into .tools/bin. Run as root (apt) or with them present.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly APT_PACKAGES=(haproxy libpq-dev jq shellcheck postgresql-15 postgresql-client-15 build-essential python3 curl)
# . is the root: the lint and format tools (eslint.config.js) for every part.
readonly NODE_PARTS=(. node-app loadgen contract local-platform scripts report)

log() { echo "setup: $*" >&2; }
die() { echo "setup: $*" >&2; exit 1; }

missing_apt() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

install_apt() {
  local pkgs=("${APT_PACKAGES[@]}")
  [[ "$WITH_BROWSER" == 1 ]] && pkgs+=(chromium)
  local todo
  mapfile -t todo < <(missing_apt "${pkgs[@]}")
  [[ ${#todo[@]} -eq 0 ]] && return 0
  [[ "$(id -u)" == 0 ]] || die "missing Debian packages (${todo[*]}); run as root or install them"
  log "apt-get install ${todo[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${todo[@]}" >/dev/null
  # The Debian postgresql package starts a system cluster on 5432; cfscale runs its own.
  if command -v systemctl >/dev/null && systemctl is-active -q postgresql 2>/dev/null; then
    systemctl stop postgresql || true
  fi
}

install_node_parts() {
  local part
  for part in "${NODE_PARTS[@]}"; do
    [[ -f "$ROOT/$part/package-lock.json" ]] || continue
    log "npm ci in $part"
    (cd "$ROOT/$part" && npm_config_nodedir=/usr npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  done
}

build_java() {
  [[ -f "$ROOT/java-app/pom.xml" ]] || return 0
  log "mvn package in java-app"
  (cd "$ROOT/java-app" && mvn -q -B -DskipTests package >/dev/null)
}

build_go_tools() {
  [[ -f "$ROOT/tools/go.mod" ]] || return 0
  log "go build tools (chisel, cf CLI)"
  (cd "$ROOT/tools" && GONOSUMDB=code.cloudfoundry.org/cli/v8 GOFLAGS=-mod=mod ./build.sh "$ROOT/.tools/bin" >/dev/null)
}

main() {
  WITH_BROWSER=0
  local apt=1 tools=1
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --no-apt) apt=0 ;;
      --with-browser) WITH_BROWSER=1 ;;
      --no-tools) tools=0 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac
    shift
  done
  [[ "$apt" == 1 ]] && install_apt
  install_node_parts
  build_java
  [[ "$tools" == 1 ]] && build_go_tools
  log "done"
}

main "$@"
