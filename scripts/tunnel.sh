#!/usr/bin/env bash
# tunnel.sh — open a chisel tunnel to the results database and prove it works.
#
# Usage: scripts/tunnel.sh [--platform local|cf] [--local-port N] [--dry-run]
#        scripts/tunnel.sh --stop
#   --platform P     local | cf (default: PLATFORM, else cf when `cf target` succeeds, else local)
#   --local-port N   local end of the tunnel on 127.0.0.1 (default 15432)
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
# local results-db (`scripts/cfl service-url results-db`), with fresh random credentials.
# Either way psql SELECT 1 through the tunnel must work before the script says so; then
# it prints the psql command and `export RESULTS_DATABASE_URL=...` for run-round.sh
# (stdout). State (pids, logs) in .state/tunnel (CFSCALE_TUNNEL_DIR); the proof waits at most
# CFSCALE_TUNNEL_TIMEOUT_SEC (20) seconds.
# Exit: 0 ok, 1 usage/configuration, 2 the tunnel does not carry traffic. DEBUG=1 traces.
set -euo pipefail

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

readonly APP=chisel
readonly SERVICE=results-db
readonly DEFAULT_LOCAL_PORT=15432
readonly STATE_DIR="${CFSCALE_TUNNEL_DIR:-.state/tunnel}"
readonly BIN_DIR=.tools/bin # relative: scripts run from the repository root (lib/common.sh)
readonly PROVE_TIMEOUT_SEC="${CFSCALE_TUNNEL_TIMEOUT_SEC:-20}" # longest wait for psql through the tunnel
# Gorouter drops idle WebSockets; a keepalive under its idle timeout keeps psql sessions
# open (chisel's client flag; shared/reference/cloud-foundry-contracts.md §6).
readonly KEEPALIVE=25s
readonly SERVER_PORT_MIN=47000
readonly SERVER_PORT_SPAN=1000

usage() { usage_from_header; }

pid_alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pidfile() {
  local f="$1" pid _
  pid_alive "$f" || { rm -f "$f"; return 0; }
  pid="$(cat "$f")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
  log "stopped pid $pid ($(basename "$f" .pid))"
  rm -f "$f"
}

stop_tunnel() {
  if [[ ! -d "$STATE_DIR" ]]; then
    log "no tunnel running"
    return 0
  fi
  stop_pidfile "$STATE_DIR/client.pid"
  stop_pidfile "$STATE_DIR/server.pid"
  rm -rf "$STATE_DIR"
}

# The chisel client and server from .tools/bin, built from chisel/go.mod when missing.
ensure_chisel() {
  [[ -x "$BIN_DIR/chisel" && -x "$BIN_DIR/chisel-server" ]] && return 0
  command -v go >/dev/null || die "chisel is not built and go is missing: run scripts/setup.sh"
  log "building chisel into $BIN_DIR"
  local out="$CFSCALE_ROOT/$BIN_DIR"
  mkdir -p "$out"
  (cd "$CFSCALE_ROOT/chisel" && GOFLAGS=-mod=mod go build -o "$out/chisel" github.com/jpillora/chisel \
    && GOFLAGS=-mod=mod go build -o "$out/chisel-server" .) >&2
}

port_is_free() { ! (: >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port() {
  local p _
  for _ in $(seq 1 100); do
    p=$((SERVER_PORT_MIN + RANDOM % SERVER_PORT_SPAN))
    [[ "$p" != "$LOCAL_PORT" ]] && port_is_free "$p" && { echo "$p"; return; }
  done
  die "no free port in $SERVER_PORT_MIN-$((SERVER_PORT_MIN + SERVER_PORT_SPAN - 1))"
}

random_secret() { head -c 24 /dev/urandom | base64 | tr -d '/+='; }

# start_client AUTH FINGERPRINT SERVER_URL TARGET: background chisel client, pid in state.
# The password goes through the AUTH environment variable, not argv (ps shows argv).
start_client() {
  local auth="$1" fp="$2" server="$3" target="$4"
  AUTH="$auth" nohup "$BIN_DIR/chisel" client --fingerprint "$fp" --keepalive "$KEEPALIVE" \
    "$server" "127.0.0.1:$LOCAL_PORT:$target" >"$STATE_DIR/client.log" 2>&1 &
  echo "$!" >"$STATE_DIR/client.pid"
}

# prove_tunnel URL: psql SELECT 1 through the tunnel, retried; exit 2 with the client's log.
prove_tunnel() {
  local url="$1" deadline=$((SECONDS + PROVE_TIMEOUT_SEC))
  while ((SECONDS < deadline)); do
    if [[ "$(PGCONNECT_TIMEOUT=3 psql "$url" -Atqc 'SELECT 1' 2>/dev/null)" == 1 ]]; then return 0; fi
    pid_alive "$STATE_DIR/client.pid" || break
    sleep 0.5
  done
  local why
  why="$(grep -m1 -E 'Connection error|Invalid|denied|Authentication failed' "$STATE_DIR/client.log" || tail -1 "$STATE_DIR/client.log")"
  stop_tunnel
  echo "$SCRIPT_NAME: the tunnel does not carry traffic: psql SELECT 1 failed (client: $why)" >&2
  exit 2
}

# On any exit before report(): end what this run started, leave no orphan behind.
cleanup_on_failure() {
  [[ "${TUNNEL_UP:-0}" == 1 ]] && return 0
  stop_tunnel 2>/dev/null || true
}

report() {
  local url="$1" via="$2"
  TUNNEL_UP=1
  echo "$url" >"$STATE_DIR/url"
  log "tunnel up: 127.0.0.1:$LOCAL_PORT -> $via (psql SELECT 1 through it works); stop: scripts/tunnel.sh --stop"
  echo "psql $(shell_quote "$url")"
  echo "export RESULTS_DATABASE_URL=$(shell_quote "$url")"
}

tunnel_local() {
  local db_url
  db_url="$(cf_query service-url "$SERVICE")" \
    || die "no local $SERVICE: start the platform first (scripts/push.sh APP, or scripts/cfl up && scripts/cfl create-service postgres local $SERVICE)"
  local port auth key vcap fp info target
  port="$(free_port)"
  auth="tunnel:$(random_secret)"
  key="$(random_secret)"
  vcap="$(jq -cn --arg uri "$db_url" --arg name "$SERVICE" \
    '{postgres: [{name: $name, label: "postgres", tags: ["postgres", "postgresql"], credentials: {uri: $uri}}]}')"
  # The same look-up as on CF, from the document CF would answer.
  info="$(jq -cn --arg auth "$auth" --arg key "$key" --argjson vcap "$vcap" \
    '{environment_variables: {CHISEL_AUTH: $auth, CHISEL_KEY: $key}, system_env_json: {VCAP_SERVICES: $vcap}}' \
    | node scripts/cf/tunnel-info.js --local-port "$LOCAL_PORT" --service "$SERVICE")" || exit 1
  target="$(jq -r .target <<<"$info")"
  PORT="$port" HOST=127.0.0.1 CHISEL_AUTH="$auth" CHISEL_KEY="$key" VCAP_SERVICES="$vcap" \
    nohup "$BIN_DIR/chisel-server" >"$STATE_DIR/server.log" 2>&1 &
  echo "$!" >"$STATE_DIR/server.pid"
  fp="$(CHISEL_KEY="$key" "$BIN_DIR/chisel-server" fingerprint)"
  start_client "$auth" "$fp" "http://127.0.0.1:$port" "$target"
  prove_tunnel "$(jq -r .url <<<"$info")"
  report "$(jq -r .url <<<"$info")" "$target via the local chisel server on 127.0.0.1:$port (fingerprint $fp)"
}

# Under --dry-run every command is printed, look-ups included, and none runs.
tunnel_cf_dry_run() {
  echo "cf app $APP --guid"
  echo "# when $APP is not pushed yet:"
  print_cmd cf push -f "$MANIFEST_DIR/$APP.yml" --vars-file "$VARS_FILE"
  echo "# when $APP lacks the $SERVICE binding:"
  print_cmd cf bind-service "$APP" "$SERVICE"
  print_cmd cf restart "$APP"
  echo "cf curl /v3/apps/GUID/env"
  echo "cf curl /v3/apps/GUID/routes"
  echo "CHISEL_KEY=KEY $BIN_DIR/chisel-server fingerprint"
  echo "AUTH=USER:PASS $BIN_DIR/chisel client --fingerprint FINGERPRINT --keepalive $KEEPALIVE https://ROUTE 127.0.0.1:$LOCAL_PORT:DBHOST:DBPORT"
  echo "psql postgres://DBUSER:DBPASS@127.0.0.1:$LOCAL_PORT/DBNAME -Atqc 'SELECT 1'"
}

tunnel_cf() {
  command -v cf >/dev/null 2>&1 || die "the cf CLI is not installed: run scripts/setup.sh (builds it into .tools/bin)"
  cf oauth-token >/dev/null 2>&1 || die "not logged in to Cloud Foundry: run cf login -a https://api.YOUR-SYSTEM-DOMAIN"
  local guid
  guid="$(app_guid "$APP")"
  if [[ -z "$guid" ]]; then
    [[ -f "$VARS_FILE" ]] || die "$VARS_FILE missing: cp $MANIFEST_DIR/vars-example.yml $VARS_FILE and set chisel-auth and chisel-key"
    log "pushing $APP"
    cf_run push -f "$MANIFEST_DIR/$APP.yml" --vars-file "$VARS_FILE"
    guid="$(app_guid "$APP")"
    [[ -n "$guid" ]] || die "cf push $APP did not create the app"
  fi
  local env_doc
  env_doc="$(cf_curl_json "/v3/apps/$guid/env")"
  if ! jq -e --arg s "$SERVICE" '[.system_env_json.VCAP_SERVICES // {} | .[][] | select(.name == $s)] | length > 0' \
      >/dev/null <<<"$env_doc"; then
    log "binding $SERVICE to $APP"
    cf_run bind-service "$APP" "$SERVICE"
    cf_run restart "$APP"
    env_doc="$(cf_curl_json "/v3/apps/$guid/env")"
  fi
  local info route fp
  info="$(node scripts/cf/tunnel-info.js --local-port "$LOCAL_PORT" --service "$SERVICE" <<<"$env_doc")" || exit 1
  route="$(cf_curl_json "/v3/apps/$guid/routes" | jq -r '.resources[0].url // empty')"
  [[ -n "$route" ]] || die "$APP has no route: cf map-route $APP DOMAIN --hostname $APP"
  fp="$(CHISEL_KEY="$(jq -r .key <<<"$info")" "$BIN_DIR/chisel-server" fingerprint)"
  start_client "$(jq -r .auth <<<"$info")" "$fp" "https://$route" "$(jq -r .target <<<"$info")"
  prove_tunnel "$(jq -r .url <<<"$info")"
  report "$(jq -r .url <<<"$info")" "$(jq -r .target <<<"$info") via https://$route (fingerprint $fp)"
}

main() {
  local stop=0
  LOCAL_PORT="$DEFAULT_LOCAL_PORT"
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --platform) require_value "$1" "$#"; opt_platform "$2"; shift ;;
      --local-port) require_value "$1" "$#"; LOCAL_PORT="$2"; shift ;;
      --dry-run) opt_dry_run ;;
      --stop) stop=1 ;;
      -h|--help) usage; exit 0 ;;
      *) usage_error "unknown argument: $1" ;;
    esac
    shift
  done
  [[ "$LOCAL_PORT" =~ ^[1-9][0-9]{0,4}$ && "$LOCAL_PORT" -le 65535 ]] \
    || usage_error "--local-port must be a port number, got \"$LOCAL_PORT\""
  if [[ "$stop" == 1 ]]; then
    stop_tunnel
    exit 0
  fi
  select_platform
  if [[ "$DRY_RUN" == 1 ]]; then
    if [[ "$PLATFORM" == cf ]]; then tunnel_cf_dry_run; else
      echo "$CFL service-url $SERVICE"
      echo "PORT=PORT HOST=127.0.0.1 CHISEL_AUTH=tunnel:RANDOM CHISEL_KEY=RANDOM VCAP_SERVICES='{\"postgres\":[{\"name\":\"$SERVICE\",\"credentials\":{\"uri\":\"URL\"}}]}' $BIN_DIR/chisel-server"
      echo "AUTH=tunnel:RANDOM $BIN_DIR/chisel client --fingerprint FINGERPRINT --keepalive $KEEPALIVE http://127.0.0.1:PORT 127.0.0.1:$LOCAL_PORT:DBHOST:DBPORT"
      echo "psql postgres://DBUSER:DBPASS@127.0.0.1:$LOCAL_PORT/DBNAME -Atqc 'SELECT 1'"
    fi
    exit 0
  fi
  if pid_alive "$STATE_DIR/client.pid"; then
    die "a tunnel is already running ($(sed -E 's#:[^:@/]*@#:****@#' "$STATE_DIR/url" 2>/dev/null || echo "$STATE_DIR")): scripts/tunnel.sh --stop first"
  fi
  [[ -d "$STATE_DIR" ]] && stop_tunnel # leftovers of a run that died (a stale server pid, say)
  mkdir -p "$STATE_DIR"
  trap cleanup_on_failure EXIT
  port_is_free "$LOCAL_PORT" || die "127.0.0.1:$LOCAL_PORT is in use: pick another with --local-port"
  command -v psql >/dev/null || die "psql is missing: run scripts/setup.sh"
  ensure_chisel
  if [[ "$PLATFORM" == local ]]; then tunnel_local; else tunnel_cf; fi
}

main "$@"
