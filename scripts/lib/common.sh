# shellcheck shell=bash
# common.sh — shared by the cfscale scripts (sourced, never run): platform selection, the one
# place where cf / scripts/cfl commands run (honouring --dry-run), look-ups through
# `cf app NAME --guid` and `cf curl /v3/...` + jq (never human tables), cf preflight.
#
# Globals a script sets before calling select_platform:
#   PLATFORM_OPT  value of --platform (empty: PLATFORM env, else auto)
#   DRY_RUN       1 = print each mutating command (shell-quoted, one per line), run none
# After select_platform: PLATFORM (local|cf), CF (array: the command), VARS_FILE.
# Environment: PLATFORM, DRY_RUN, DEBUG=1 (trace), CFSCALE_MANIFEST_DIR (default manifests/),
# CFSCALE_VARS_FILE (default vars-local.yml | vars.yml in the manifest dir).

CFSCALE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly CFSCALE_ROOT
# The running script, resolved before the cd below (usage() reads its header).
SCRIPT_PATH="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
readonly SCRIPT_PATH
# Scripts run from the repository root, so printed commands read as typed there.
cd "$CFSCALE_ROOT" || exit 1
readonly MANIFEST_DIR="${CFSCALE_MANIFEST_DIR:-manifests}"
readonly CFL=scripts/cfl
# The apps of the harness, in push order (loadgen last: it is the instrument).
# shellcheck disable=SC2034 # used by the scripts that source this file
readonly ALL_APPS=(node-app java-app loadgen)
# Services every app manifest binds (manifests/*.yml).
readonly SERVICES=(node-db java-db results-db)
# The local router routes by Host = APP.<domain>; manifests/vars-local.yml sets domain: localhost.
# shellcheck disable=SC2034
readonly LOCAL_DOMAIN=localhost
# cf builds the cf CLI into .tools/bin (scripts/setup.sh); a cf already on PATH wins.
PATH="$PATH:$CFSCALE_ROOT/.tools/bin"

[[ "${DEBUG:-}" == 1 ]] && set -x
DRY_RUN="${DRY_RUN:-0}"
PLATFORM_OPT="${PLATFORM_OPT:-}"

# The script's name as message prefix, e.g. "run-round".
SCRIPT_NAME="$(basename "$0" .sh)"

# Print the script's header comment (from line 2 to `set -euo`): the one source of help.
usage_from_header() {
  sed -n '2,/^set -euo/p' "$SCRIPT_PATH" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

log() { echo "$SCRIPT_NAME: $*" >&2; }
die() { echo "$SCRIPT_NAME: $*" >&2; exit 1; }
# A usage error: one line, exit 1 (the scripts' usage() is the full help).
usage_error() { echo "$SCRIPT_NAME: $* (see --help)" >&2; exit 1; }

# Setters for the flags every script takes (--platform, --dry-run).
opt_platform() { PLATFORM_OPT="$1"; }
opt_dry_run() { DRY_RUN=1; }

# Quote one word for a shell, readably: bare when safe, else in single quotes.
shell_quote() {
  local w="$1"
  if [[ -n "$w" && "$w" =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
    printf '%s' "$w"
  else
    printf "'%s'" "${w//\'/\'\\\'\'}"
  fi
}

# Print a command line, shell-quoted, on one line.
print_cmd() {
  local out="" w
  for w in "$@"; do out+="$(shell_quote "$w") "; done
  echo "${out% }"
}

# Run a command that changes something (or print it under --dry-run). Its output goes to
# stderr: stdout is for the dry-run listing and the scripts' results (summaries, ids).
run_cmd() {
  if [[ "$DRY_RUN" == 1 ]]; then
    print_cmd "$@"
    return 0
  fi
  "$@" >&2
}

# cf_run ARGS... — a mutating cf / cfl command (printed under --dry-run).
cf_run() { run_cmd "${CF[@]}" "$@"; }

# cf_query ARGS... — a read-only look-up; runs even under --dry-run.
cf_query() { "${CF[@]}" "$@"; }

# Has a cf target: cf installed and `cf target` exits 0.
cf_targeted() { command -v cf >/dev/null 2>&1 && cf target >/dev/null 2>&1; }

# Decide the platform: --platform, else PLATFORM, else cf when a cf target is configured,
# else local. Sets PLATFORM, CF and VARS_FILE.
select_platform() {
  PLATFORM="${PLATFORM_OPT:-${PLATFORM:-}}"
  if [[ -z "$PLATFORM" ]]; then
    if cf_targeted; then PLATFORM=cf; else PLATFORM=local; fi
  fi
  case "$PLATFORM" in
    local)
      CF=("$CFL")
      VARS_FILE="${CFSCALE_VARS_FILE:-$MANIFEST_DIR/vars-local.yml}"
      ;;
    cf)
      CF=(cf)
      VARS_FILE="${CFSCALE_VARS_FILE:-$MANIFEST_DIR/vars.yml}"
      ;;
    *) usage_error "--platform must be local or cf, got \"$PLATFORM\"" ;;
  esac
  readonly PLATFORM VARS_FILE
}

# Parse a human duration (250ms, 10s, 2m, 1h; a bare number is seconds) into milliseconds.
# duration_ms VALUE FLAG → prints ms, or a usage error naming FLAG.
duration_ms() {
  local v="$1" flag="$2" n unit
  [[ "$v" =~ ^([0-9]+(\.[0-9]+)?)(ms|s|m|h)?$ ]] \
    || usage_error "$flag must be a duration like 500ms, 10s, 2m or 1h, got \"$v\""
  n="${BASH_REMATCH[1]}"
  unit="${BASH_REMATCH[3]:-s}"
  case "$unit" in
    ms) awk -v n="$n" 'BEGIN { printf "%d\n", n }' ;;
    s) awk -v n="$n" 'BEGIN { printf "%d\n", n * 1000 }' ;;
    m) awk -v n="$n" 'BEGIN { printf "%d\n", n * 60000 }' ;;
    h) awk -v n="$n" 'BEGIN { printf "%d\n", n * 3600000 }' ;;
  esac
}

# Check a positive integer flag value.
require_positive_int() {
  [[ "$1" =~ ^[1-9][0-9]*$ ]] || usage_error "$2 must be a positive integer, got \"$1\""
}

# A positive decimal number (10, 0.5; not 0, not 1e3).
is_positive_number() { [[ "$1" =~ ^[0-9]+(\.[0-9]+)?$ && ! "$1" =~ ^0+(\.0+)?$ ]]; }

# A local CPU quota flag: a positive number of cores, or none.
require_cpu() {
  [[ "$1" == none ]] || is_positive_number "$1" \
    || usage_error "--cpu must be a positive number of cores or none, got \"$1\""
}

# Check a flag has a value: require_value FLAG "$#".
require_value() { [[ "$2" -ge 2 ]] || usage_error "$1 needs a value"; }

# An app of the harness: it has a manifest manifests/APP.yml.
require_known_app() {
  local app="$1"
  [[ "$app" =~ ^[a-z][a-z0-9-]*$ && "$app" != vars* && -f "$MANIFEST_DIR/$app.yml" ]] \
    || usage_error "unknown app \"$app\" (known: $(known_apps))"
}

known_apps() {
  local f names=()
  for f in "$MANIFEST_DIR"/*.yml; do
    f="$(basename "$f" .yml)"
    [[ "$f" == vars* ]] || names+=("$f")
  done
  echo "${names[*]}"
}

# ---------------------------------------------------------------- look-ups (JSON only)

# app_guid APP → the guid, or nothing when the app does not exist.
app_guid() {
  local out
  out="$(cf_query app "$1" --guid 2>/dev/null)" || return 0
  [[ "$out" =~ ^[0-9A-Za-z-]+$ ]] && echo "$out"
  return 0
}

# cf_curl_json PATH → the JSON document (fails on a CF API error document).
cf_curl_json() {
  local out
  out="$(cf_query curl "$1")" || die "cf curl $1 failed"
  if jq -e 'type == "object" and has("errors")' >/dev/null 2>&1 <<<"$out"; then
    die "cf curl $1: $(jq -c -r '[.errors[] | "\(.title // "error") \(.code // ""): \(.detail // "")"] | join("; ")' <<<"$out")"
  fi
  jq -e . >/dev/null 2>&1 <<<"$out" || die "cf curl $1: not JSON: ${out:0:200}"
  echo "$out"
}

# instance_states GUID → one state per instance (index order), from the v3 process stats.
instance_states() {
  cf_curl_json "/v3/apps/$1/processes/web/stats" | jq -r '.resources | sort_by(.index) | .[].state'
}

# app_state GUID → STARTED | STOPPED (v3 app resource).
app_state() {
  cf_curl_json "/v3/apps/$1" | jq -r '.state // empty'
}

# The results database URL: local `cfl service-url results-db`; cf RESULTS_DATABASE_URL.
results_db_url() {
  if [[ "$PLATFORM" == local ]]; then
    cf_query service-url results-db
  else
    [[ -n "${RESULTS_DATABASE_URL:-}" ]] \
      || die "RESULTS_DATABASE_URL is not set: open the tunnel with scripts/tunnel.sh and export the URL it prints"
    echo "$RESULTS_DATABASE_URL"
  fi
}

# ---------------------------------------------------------------- cf preflight

# The space targeted by the cf CLI, from its JSON config (cf CLI v7/v8 layout).
cf_space_guid() {
  local config="${CF_HOME:-$HOME}/.cf/config.json"
  [[ -f "$config" ]] || return 0
  jq -r '.SpaceFields.GUID // empty' "$config"
}

# Everything a cf run needs; each missing piece named with the command that fixes it.
cf_preflight() {
  command -v cf >/dev/null 2>&1 \
    || die "the cf CLI is not installed: run scripts/setup.sh (builds it into .tools/bin) or install cf v8"
  cf oauth-token >/dev/null 2>&1 || die "not logged in to Cloud Foundry: run cf login -a https://api.YOUR-SYSTEM-DOMAIN"
  cf target >/dev/null 2>&1 || die "no cf target: run cf target -o ORG -s SPACE"
  local space
  space="$(cf_space_guid)"
  [[ -n "$space" ]] || die "no space targeted: run cf target -o ORG -s SPACE"
  local names found missing=() s
  names="$(IFS=,; echo "${SERVICES[*]}")"
  found="$(cf_curl_json "/v3/service_instances?names=$names&space_guids=$space" | jq -r '.resources[].name')"
  for s in "${SERVICES[@]}"; do
    grep -qxF "$s" <<<"$found" || missing+=("$s")
  done
  [[ ${#missing[@]} -eq 0 ]] || die "missing services: ${missing[*]}: create each with cf create-service OFFERING PLAN NAME (see cf marketplace)"
  [[ -f "$VARS_FILE" ]] || die "$VARS_FILE missing: cp $MANIFEST_DIR/vars-example.yml $VARS_FILE and edit it"
}
