#!/usr/bin/env bash
# setup.sh — install everything cfscale needs on a fresh Debian machine, idempotently.
#
# Usage: scripts/setup.sh [--no-apt] [--with-browser] [--no-tools]
#   --no-apt        skip Debian packages (for machines where they are known present)
#   --with-browser  also install Debian's chromium (report tests)
#   --no-tools      skip the Go tools (cf CLI, chisel, vegeta): for machines with a cf CLI on PATH
#
# Installs Debian packages (PostgreSQL, HAProxy, libpq-dev, jq, shellcheck, wrk for the loadgen benches), then at once: the npm
# dependencies of every Node part and the root's lint (pg-native built against libpq and
# /usr/include/node; kept per lockfile in ~/.cache/cfscale for the next clone), the java-app
# jar, the Go tools (chisel, cf CLI, vegeta) into .tools/bin.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cfscale"
readonly APT_PACKAGES=(haproxy libpq-dev jq shellcheck postgresql-15 postgresql-client-15 build-essential python3 curl wrk)
# . is the root: the lint and format tools (eslint.config.js) for every part.
readonly NODE_PARTS=(. node-app loadgen contract local-platform plans scripts report)

log() { echo "setup: $*" >&2; }
die() { log "$*"; exit 1; }

install_apt() {
  local pkgs=("${APT_PACKAGES[@]}") p todo=()
  [[ "$WITH_BROWSER" == 1 ]] && pkgs+=(chromium)
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || todo+=("$p")
  done
  [[ ${#todo[@]} -eq 0 ]] && return 0
  [[ "$(id -u)" == 0 ]] || die "missing Debian packages (${todo[*]}); run as root or install them"
  log "apt-get install ${todo[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${todo[@]}" >/dev/null
  # The Debian postgresql package starts a system cluster on 5432; cfscale runs its own.
  { systemctl is-active -q postgresql && systemctl stop postgresql; } 2>/dev/null || true
}

# One part's npm ci, skipped when its node_modules came from this very lockfile and Node (the
# stamp written last); else unpacked from the cache of an earlier install of that lockfile.
npm_ci() {
  local dir="$ROOT/$1" want cache
  want="$(cat "$dir/package-lock.json" <(node --version) | sha256sum | cut -c1-64)"
  [[ "$(cat "$dir/node_modules/.cfscale-installed" 2>/dev/null)" == "$want" ]] && return 0
  cache="$CACHE/node_modules-$want.tar"
  if [[ -f "$cache" ]] && rm -rf "$dir/node_modules" && tar -xf "$cache" -C "$dir"; then log "$1/node_modules from $cache"; return 0; fi
  log "npm ci in $1"
  (cd "$dir" && npm_config_nodedir=/usr npm ci --no-audit --no-fund --loglevel=error && echo "$want" >node_modules/.cfscale-installed)
  mkdir -p "$CACHE" && tar -cf "$cache.$$" -C "$dir" node_modules && mv "$cache.$$" "$cache"
}

build_java() {
  local jar=("$ROOT"/java-app/target/*.jar)
  [[ -f "${jar[0]}" && -z "$(find "$ROOT/java-app/pom.xml" "$ROOT/java-app/src/main" -newer "${jar[0]}" -print -quit)" ]] && return 0
  log "mvn package in java-app"
  (cd "$ROOT/java-app" && mvn -q -B -DskipTests package)
}

build_go_tools() {
  log "go build tools (chisel, cf CLI, vegeta)"
  (cd "$ROOT/tools" && GONOSUMDB=code.cloudfoundry.org/cli/v8 GOFLAGS=-mod=mod ./build.sh "$ROOT/.tools/bin")
}

# Every step at once (on two cores: ~35 s from a fresh clone, ~55 s one after another); a
# step's whole output is shown only when it fails.
run_all() {
  local logs pids=() names=() i failed=0; logs="$(mktemp -d)"
  for i in "$@"; do
    $i >"$logs/${#pids[@]}" 2>&1 &  # "npm_ci PART": a function and its argument
    pids+=($!); names+=("$i")
  done
  for i in "${!pids[@]}"; do
    if wait "${pids[$i]}"; then grep -E '^(setup|build): ' "$logs/$i" >&2 || true
    else failed=1; log "FAILED: ${names[$i]}"; cat "$logs/$i" >&2; fi
  done
  rm -rf "$logs"
  [[ "$failed" == 0 ]] || die "setup failed"
}

main() {
  WITH_BROWSER=0; local apt=1 tools=1
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --no-apt) apt=0 ;;
      --with-browser) WITH_BROWSER=1 ;;
      --no-tools) tools=0 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac; shift
  done
  [[ "$apt" == 1 ]] && install_apt
  local steps=(build_java) part
  for part in "${NODE_PARTS[@]}"; do [[ -f "$ROOT/$part/package-lock.json" ]] && steps+=("npm_ci $part"); done
  [[ "$tools" == 1 ]] && steps+=(build_go_tools)
  run_all "${steps[@]}"
  log "done"
}

main "$@"
