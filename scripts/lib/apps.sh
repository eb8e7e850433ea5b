# shellcheck shell=bash
# apps.sh — pushing, scaling and addressing the apps, the same command sequence on both
# platforms (sourced after common.sh and select_platform).

readonly JAVA_DIR=java-app
readonly JAVA_JAR="$JAVA_DIR/target/java-app.jar"
# Longest wait for instances to be RUNNING after a scale (cf pushes wait by themselves).
readonly RUNNING_TIMEOUT_SEC="${CFSCALE_RUNNING_TIMEOUT_SEC:-180}"
readonly RUNNING_POLL_SEC=0.5

# What a local round needs that a fresh clone lacks: the Debian packages (HAProxy,
# PostgreSQL server) and the npm dependencies of the apps, the loadgen and the scripts.
local_install_needed() {
  command -v haproxy >/dev/null 2>&1 || return 0
  compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || return 0
  local part
  for part in node-app loadgen scripts; do
    [[ -d "$CFSCALE_ROOT/$part/node_modules" ]] || return 0
  done
  return 1
}

# The local platform up (idempotent `cfl up`), installing on first use.
local_platform_up() {
  if local_install_needed; then
    log "first local run on this machine: installing what it needs (scripts/setup.sh --no-tools)"
    run_cmd scripts/setup.sh --no-tools
  fi
  cf_run up
}

# The services every manifest binds, created when missing (idempotent `cfl create-service`).
local_services() {
  local s
  for s in "${SERVICES[@]}"; do
    cf_run create-service postgres local "$s"
  done
}

# Build the java-app jar when it is missing or older than its sources.
build_java_if_stale() {
  if [[ -f "$JAVA_JAR" ]] && [[ -z "$(find "$JAVA_DIR/src" "$JAVA_DIR/pom.xml" -newer "$JAVA_JAR" -print -quit)" ]]; then
    return 0
  fi
  log "building java-app (mvn package)"
  run_cmd mvn -q -B -f "$JAVA_DIR/pom.xml" -DskipTests package
}

# Locally the loadgen instances get no CPU quota: they are the instrument, not the subject,
# and a throttled generator would measure itself (a quota given explicitly still wins).
readonly LOADGEN_LOCAL_CPU=none

# push_app APP [INSTANCES] — cf push from the app's manifest with the platform's vars.
push_app() {
  local app="$1" instances="${2:-}"
  [[ "$app" == java-app ]] && build_java_if_stale
  local args=(push "$app" -f "$MANIFEST_DIR/$app.yml" --vars-file "$VARS_FILE")
  [[ -n "$instances" ]] && args+=(-i "$instances")
  cf_run "${args[@]}"
  [[ "$PLATFORM" == local && "$app" == loadgen ]] && local_cpu_quota "$app" "$LOADGEN_LOCAL_CPU"
  return 0
}

# local_cpu_quota APP CORES|none — `cfl scale APP --cpu C`: scripts/cfl only, cf has no
# such flag (CPU follows memory there, shared/reference/cloud-foundry-contracts.md §7).
local_cpu_quota() {
  local args=(scale "$1" --cpu "$2")
  cf_run "${args[@]}"
}

# scale_app APP INSTANCES [CPU] — CPU (cores or none) is a local-platform quota.
scale_app() {
  local app="$1" instances="$2" cpu="${3:-}"
  [[ -z "$cpu" && "$PLATFORM" == local && "$app" == loadgen ]] && cpu="$LOADGEN_LOCAL_CPU"
  local args=(scale "$app" -i "$instances")
  [[ -n "$cpu" ]] && args+=(--cpu "$cpu")
  cf_run "${args[@]}"
}

# wait_running GUID N — until the process has N instances, all RUNNING.
wait_running() {
  local guid="$1" want="$2" states running total deadline
  [[ "$DRY_RUN" == 1 ]] && return 0
  deadline=$((SECONDS + RUNNING_TIMEOUT_SEC))
  while :; do
    # A failed look-up right after a push or scale is retried until the deadline.
    states="$(instance_states "$guid" 2>&1)" || states="look-up failed: $states"
    total="$(grep -c . <<<"$states" || true)"
    running="$(grep -cx RUNNING <<<"$states" || true)"
    [[ "$total" == "$want" && "$running" == "$want" ]] && return 0
    [[ $SECONDS -lt $deadline ]] \
      || die "instances not running after ${RUNNING_TIMEOUT_SEC}s: $running of $want RUNNING ($(tr '\n' ' ' <<<"$states"))"
    sleep "$RUNNING_POLL_SEC"
  done
}

# ensure_app APP INSTANCES [CPU] [MODE] — push when absent, else start/scale. MODE exact
# (default): exactly INSTANCES, and CPU (cores|none, local) applied every time; at-least:
# scale up only when fewer run. Waits until all are RUNNING; sets ENSURED_GUID. The usual
# case (already right) costs two look-ups.
ensure_app() {
  local app="$1" want="$2" cpu="${3:-}" mode="${4:-exact}" guid states have
  # shellcheck disable=SC2034 # read by the sourcing script
  ENSURED_GUID=""
  guid="$(app_guid "$app")"
  if [[ -z "$guid" ]]; then
    [[ "$PLATFORM" == local ]] && local_services
    push_app "$app" "$want"
    [[ -n "$cpu" ]] && scale_app "$app" "$want" "$cpu"
    [[ "$DRY_RUN" == 1 ]] && return 0
    guid="$(app_guid "$app")"
    [[ -n "$guid" ]] || die "$app: pushed, but cf app $app --guid finds nothing"
  else
    states="$(instance_states "$guid")"
    have="$(grep -c . <<<"$states" || true)"
    [[ "$mode" == at-least && "$have" -ge "$want" ]] && want="$have"
    if [[ "$have" != "$want" ]]; then
      scale_app "$app" "$want" "$cpu"
    elif [[ -n "$cpu" && "$mode" == exact ]]; then
      scale_app "$app" "$want" "$cpu"
    elif [[ "$(grep -cx RUNNING <<<"$states" || true)" == "$want" ]]; then
      # shellcheck disable=SC2034
      ENSURED_GUID="$guid"
      return 0
    fi
    [[ "$(app_state "$guid")" == STARTED ]] || cf_run start "$app"
  fi
  # shellcheck disable=SC2034
  ENSURED_GUID="$guid"
  wait_running "$guid" "$want"
}

# The base URL of an app's route: local → the router (Host header app_host); cf → https://ROUTE.
app_base_url() {
  local app="$1" guid="$2" route
  if [[ "$PLATFORM" == local ]]; then
    cf_query router-url
  elif [[ "$DRY_RUN" == 1 && "$guid" == "<"* ]]; then
    echo "https://<$app-route>"
  else
    route="$(cf_curl_json "/v3/apps/$guid/routes" | jq -r '.resources[0].url // empty')"
    [[ -n "$route" ]] || die "$app has no route (cf curl /v3/apps/$guid/routes)"
    echo "https://$route"
  fi
}

# The Host header the local router needs (empty on cf: the URL carries the host).
app_host_header() {
  [[ "$PLATFORM" == local ]] && echo "$1.$LOCAL_DOMAIN"
  return 0
}

# instance_request BASE HOST GUID INDEX METHOD PATH — one request pinned to one instance
# with X-Cf-App-Instance: GUID:INDEX (Gorouter; the local router honours it too,
# shared/reference/cloud-foundry-contracts.md §5). The body goes to stderr.
instance_request() {
  local base="$1" host="$2" guid="$3" index="$4" method="$5" path="$6"
  local args=(curl -sS --fail-with-body --max-time 60 -X "$method" -H "X-Cf-App-Instance: $guid:$index")
  [[ -n "$host" ]] && args+=(-H "Host: $host")
  args+=("$base$path")
  run_cmd "${args[@]}"
}
