# shellcheck shell=bash
# common.sh — shared by the cfscale bash scripts (sourced, never run): platform selection, the
# one place where cf / scripts/cfl commands run (honouring --dry-run), the flag checks and
# look-ups they need. Used by collect-stats.sh, collect-logs.sh, rounds.sh and teardown.sh;
# the Node scripts (run-round, push, scale, tunnel) have its twin in scripts/ops/.
#
# Globals a script sets before calling select_platform:
#   PLATFORM_OPT  value of --platform (empty: PLATFORM env, else auto)
#   DRY_RUN       1 = print each mutating command (shell-quoted, one per line), run none
# After select_platform: PLATFORM (local|cf), CF (array: the command).
# Environment: PLATFORM, DRY_RUN, DEBUG=1 (trace), CFSCALE_MANIFEST_DIR (default manifests/).

CFSCALE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly CFSCALE_ROOT
# The running script, resolved before the cd below (usage() reads its header).
SCRIPT_PATH="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
readonly SCRIPT_PATH
# Scripts run from the repository root, so printed commands read as typed there.
cd "$CFSCALE_ROOT" || exit 1
readonly MANIFEST_DIR="${CFSCALE_MANIFEST_DIR:-manifests}"
readonly CFL=scripts/cfl
# The apps of the harness, in push order (loadgen last: it is the instrument), and the
# services every app manifest binds (manifests/*.yml); scripts/ops/platform.js has the same.
# shellcheck disable=SC2034 # used by the scripts that source this file
readonly ALL_APPS=(node-app java-app loadgen)
# shellcheck disable=SC2034
readonly SERVICES=(node-db java-db results-db)
# cf builds the cf CLI into .tools/bin (scripts/setup.sh); a cf already on PATH wins.
PATH="$PATH:$CFSCALE_ROOT/.tools/bin"

[[ "${DEBUG:-}" == 1 ]] && set -x
DRY_RUN="${DRY_RUN:-0}"
PLATFORM_OPT="${PLATFORM_OPT:-}"

# The script's name as message prefix, e.g. "rounds".
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
# else local. Sets PLATFORM and CF.
select_platform() {
  PLATFORM="${PLATFORM_OPT:-${PLATFORM:-}}"
  if [[ -z "$PLATFORM" ]]; then
    if cf_targeted; then PLATFORM=cf; else PLATFORM=local; fi
  fi
  case "$PLATFORM" in
    local) CF=("$CFL") ;;
    cf) CF=(cf) ;;
    *) usage_error "--platform must be local or cf, got \"$PLATFORM\"" ;;
  esac
  readonly PLATFORM
}

# Check a positive integer flag value.
require_positive_int() {
  [[ "$1" =~ ^[1-9][0-9]*$ ]] || usage_error "$2 must be a positive integer, got \"$1\""
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
