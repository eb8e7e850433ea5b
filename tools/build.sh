#!/usr/bin/env bash
# build.sh — build the Go tools cfscale runs on a workstation into OUTDIR.
#
# Usage: cd tools && GONOSUMDB=code.cloudfoundry.org/cli/v8 GOFLAGS=-mod=mod ./build.sh OUTDIR
#   (scripts/setup.sh calls it so, with OUTDIR = <repo>/.tools/bin)
#
# Builds:
#   cf             the cf CLI, code.cloudfoundry.org/cli/v8 v8.17.0 (pinned in go.mod;
#                  GONOSUMDB because the checksum database does not list that module)
#   chisel         the chisel client, from chisel/vendor: the same version as the server
#   chisel-server  cfscale's tunnel server (chisel/), run by scripts/tunnel.sh --platform local
#                  (both -mod=vendor, as the Go buildpack builds the server)
#   vegeta         the open-model HTTP load generator, github.com/tsenart/vegeta/v12 at
#                  VEGETA_VERSION (go install at an exact version; the proxy lists none):
#                  loadgen/bench/floor.sh's peer
# Each is rebuilt only when missing or older than its go.mod/go.sum/sources. DEBUG=1 traces.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
readonly CHISEL_DIR="$HERE/../chisel"
readonly CF_MODULE=code.cloudfoundry.org/cli/v8
readonly CF_VERSION=8.17.0
readonly VEGETA_MODULE=github.com/tsenart/vegeta/v12
readonly VEGETA_VERSION=v12.13.0

log() { echo "build: $*" >&2; }
die() { echo "build: $*" >&2; exit 1; }

# up_to_date BINARY DIR: the binary exists and is newer than the module files in DIR
up_to_date() {
  local bin="$1" dir="$2"
  [[ -x "$bin" ]] || return 1
  [[ -z "$(find "$dir" -maxdepth 1 \( -name 'go.mod' -o -name 'go.sum' -o -name '*.go' \) -newer "$bin" -print -quit)" ]]
}

main() {
  [[ $# -eq 1 ]] || die "usage: build.sh OUTDIR"
  local out
  mkdir -p "$1"
  out="$(cd "$1" && pwd)"
  export GOFLAGS="${GOFLAGS:--mod=mod}"
  export GONOSUMDB="${GONOSUMDB:-$CF_MODULE}"
  if up_to_date "$out/cf" "$HERE"; then
    log "cf is up to date"
  else
    log "cf $CF_VERSION"
    (cd "$HERE" && go build -trimpath -o "$out/cf" \
      -ldflags "-s -w -X $CF_MODULE/version.binaryVersion=$CF_VERSION" "$CF_MODULE")
  fi
  if up_to_date "$out/chisel" "$CHISEL_DIR" && up_to_date "$out/chisel-server" "$CHISEL_DIR"; then
    log "chisel is up to date"
  else
    log "chisel client and server"
    (cd "$CHISEL_DIR" && go build -mod=vendor -trimpath -o "$out/chisel" github.com/jpillora/chisel \
      && go build -mod=vendor -trimpath -o "$out/chisel-server" .)
  fi
  if go version -m "$out/vegeta" 2>/dev/null | grep -q "mod[[:space:]]*${VEGETA_MODULE}[[:space:]]*${VEGETA_VERSION}"; then
    log "vegeta is up to date"
  else
    log "vegeta $VEGETA_VERSION"
    GOBIN="$out" GOFLAGS="" go install -trimpath "$VEGETA_MODULE@$VEGETA_VERSION"
  fi
  "$out/cf" version >&2
}

main "$@"
