#!/usr/bin/env bash
# run-round.sh — one measured round: app and loadgen up and scaled, the round inserted into
# the results database (the loadgens' control plane), stats and router logs collected,
# app timings flushed, crash events ingested, the summary printed.
#
# Usage: scripts/run-round.sh --app APP --duration DUR|--requests N [options]
#   --app APP            node-app or java-app (required)
#   --instances N        app instances (default 1)
#   --loadgens N         loadgen instances that take part (default 1); the loadgen app is
#                        scaled up to at least N, never down
#   --parallel N         closed model: requests in flight per loadgen (default 1)
#   --rate R             open model: requests/s per loadgen (excludes --parallel)
#   --duration DUR       length of the round, e.g. 10s, 2m (one of --duration/--requests)
#   --requests N         requests per loadgen instead of a duration
#   --warmup DUR         samples in the first DUR are left out of the summary (default 0s)
#   --scenario NAME      read | browse | publish | mix (default read)
#   --timeout DUR        per-request timeout of the loadgens (default 10s)
#   --no-keepalive       a new connection per request (default: keep-alive)
#   --cpu CORES|none     local only: per-instance CPU quota of the app (default: the local
#                        platform's, manifest memory in GB x CFSCALE_CPU_PER_GB cores)
#   --seed-ads N         ads the app database holds before the start: posted from here
#                        before the round is created (`loadgen.js --seed N --seed-only`);
#                        reads pick ids among the newest N (default 1000; 0 = no
#                        seeding, reads then all ask for id 1)
#   --prewarm N          requests sent to each app instance before the round, pinned with
#                        X-Cf-App-Instance (default 0 = none): a freshly started instance is
#                        cold (JIT, pool connections) and under a small CPU quota stays slow for
#                        seconds; round-robin then holds every instance to its pace
#   --loadbalancing ALGO round-robin | least-connection: Gorouter's algorithm for the app's
#                        route, set before seeding with `cf update-route DOMAIN --hostname
#                        HOST -o loadbalancing=ALGO` (scripts/cfl alike; default: the route
#                        is left as it is). The route's option is recorded in rounds.plan
#                        (loadbalancing; absent = the router's default, round-robin)
#   --label TEXT         free text stored with the round
#   --experiment NAME    the experiment (plan file) the round belongs to
#   --max-error-rate F   the round fails above this fraction of errors (default 0.01 = 1 %)
#   --max-wait DUR       how long after the start to wait for the loadgens (default: duration
#                        + warm-up + timeout + 15s locally / 30s on CF; 10m with --requests)
#   --stats-source S     plugin | v3 | auto, see collect-stats.sh (default auto)
#   --platform P         local | cf (default: PLATFORM, else cf when `cf target` succeeds,
#                        else local)
#   --dry-run            print each platform command and app request, shell-quoted, one per
#                        line; run none, write nothing (the round id shows as <round>)
#   -h, --help           this help
#
# Durations: 500ms, 10s, 2m, 1h (a bare number is seconds). Locally the loadgen instances
# get no CPU quota (`cfl scale loadgen --cpu none` with every push and scale, also by
# push.sh and scale.sh): they are the instrument, not the subject, and must not be
# throttled. On CF they get what their manifest memory buys.
# Results database: local `cfl service-url results-db`; cf RESULTS_DATABASE_URL (open it with
# scripts/tunnel.sh). The round is created once every loadgen taking part is connected
# and idle (create-round.js --wait-loadgens). The last line on stdout is `round_id=N`.
# Exit: 0 round done, 1 usage or configuration error, 2 the round failed (errors above
# --max-error-rate, a loadgen that did not finish, no samples) or could not start (seeding
# failed, loadgens not ready in time). DEBUG=1 traces.
set -euo pipefail

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=lib/apps.sh
source "$CFSCALE_ROOT/scripts/lib/apps.sh"

readonly SCENARIOS=(read browse publish mix)
readonly DEFAULT_TIMEOUT=10s
readonly DEFAULT_SEED_ADS=1000
readonly PREWARM_PARALLEL=8
readonly DEFAULT_MAX_ERROR_RATE=0.01
readonly DEFAULT_REQUESTS_MAX_WAIT=10m
# Lead between inserting the round and its start_at: every loadgen must have woken and
# prepared by then. A NOTIFY is instant locally; CF adds network and the polling fallback.
readonly START_LEAD_MS_LOCAL=1500
readonly START_LEAD_MS_CF=5000
# How long to wait for every loadgen to be connected and idle before creating the round:
# just pushed or restarted instances need to start (CF: staging is done, but starting a
# container and connecting through the tunnel take longer).
readonly READY_TIMEOUT_MS_LOCAL=60000
readonly READY_TIMEOUT_MS_CF=120000
readonly MARGIN_MS_LOCAL=15000
readonly MARGIN_MS_CF=30000
# Gorouter access lines reach `cf logs` with a delay; give them time before stopping.
readonly LOG_DRAIN_SEC_LOCAL=0.5
readonly LOG_DRAIN_SEC_CF=5

usage() { usage_from_header; }

parse_args() {
  APP="" INSTANCES=1 LOADGENS=1 PARALLEL="" RATE="" DURATION="" REQUESTS="" WARMUP=0s
  SCENARIO=read TIMEOUT="$DEFAULT_TIMEOUT" KEEPALIVE=true CPU="" LABEL=""
  MAX_ERROR_RATE="$DEFAULT_MAX_ERROR_RATE" MAX_WAIT="" STATS_SOURCE=auto
  SEED_ADS="$DEFAULT_SEED_ADS" EXPERIMENT="" PREWARM=0 LOADBALANCING=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --no-keepalive) KEEPALIVE=false; shift; continue ;;
      --dry-run) opt_dry_run; shift; continue ;;
      -h|--help) usage; exit 0 ;;
      --*) require_value "$1" "$#" ;;
      *) usage_error "unexpected argument: $1" ;;
    esac
    case "$1" in
      --app) APP="$2" ;;
      --instances) INSTANCES="$2" ;;
      --loadgens) LOADGENS="$2" ;;
      --parallel) PARALLEL="$2" ;;
      --rate) RATE="$2" ;;
      --duration) DURATION="$2" ;;
      --requests) REQUESTS="$2" ;;
      --warmup) WARMUP="$2" ;;
      --scenario) SCENARIO="$2" ;;
      --timeout) TIMEOUT="$2" ;;
      --cpu) CPU="$2" ;;
      --label) LABEL="$2" ;;
      --seed-ads) SEED_ADS="$2" ;;
      --prewarm) PREWARM="$2" ;;
      --loadbalancing) LOADBALANCING="$2" ;;
      --experiment) EXPERIMENT="$2" ;;
      --max-error-rate) MAX_ERROR_RATE="$2" ;;
      --max-wait) MAX_WAIT="$2" ;;
      --stats-source) STATS_SOURCE="$2" ;;
      --platform) opt_platform "$2" ;;
      *) usage_error "unknown option: $1" ;;
    esac
    shift 2
  done
}

validate_args() {
  [[ -n "$APP" ]] || usage_error "--app is required"
  [[ "$APP" != loadgen ]] || usage_error "--app loadgen: the loadgen is the instrument, not a subject"
  require_known_app "$APP"
  require_positive_int "$INSTANCES" --instances
  require_positive_int "$LOADGENS" --loadgens
  [[ -z "$PARALLEL" || -z "$RATE" ]] || usage_error "--parallel and --rate exclude each other"
  [[ -n "$PARALLEL" || -n "$RATE" ]] || PARALLEL=1
  [[ -z "$PARALLEL" ]] || require_positive_int "$PARALLEL" --parallel
  [[ -z "$RATE" ]] || is_positive_number "$RATE" \
    || usage_error "--rate must be a positive number of requests/s, got \"$RATE\""
  [[ -z "$DURATION" || -z "$REQUESTS" ]] || usage_error "--duration and --requests exclude each other"
  [[ -n "$DURATION" || -n "$REQUESTS" ]] || usage_error "one of --duration or --requests is required"
  DURATION_MS=""
  [[ -z "$DURATION" ]] || DURATION_MS="$(duration_ms "$DURATION" --duration)"
  [[ -z "$DURATION_MS" || "$DURATION_MS" -gt 0 ]] || usage_error "--duration must be above 0"
  [[ -z "$REQUESTS" ]] || require_positive_int "$REQUESTS" --requests
  WARMUP_MS="$(duration_ms "$WARMUP" --warmup)"
  [[ -z "$DURATION_MS" || "$WARMUP_MS" -lt "$DURATION_MS" ]] || usage_error "--warmup must be shorter than --duration"
  TIMEOUT_MS="$(duration_ms "$TIMEOUT" --timeout)"
  [[ "$TIMEOUT_MS" -gt 0 ]] || usage_error "--timeout must be above 0"
  [[ " ${SCENARIOS[*]} " == *" $SCENARIO "* ]] || usage_error "--scenario must be one of ${SCENARIOS[*]}, got \"$SCENARIO\""
  [[ -z "$CPU" ]] || require_cpu "$CPU"
  [[ "$MAX_ERROR_RATE" =~ ^(0(\.[0-9]+)?|1(\.0+)?)$ ]] \
    || usage_error "--max-error-rate must be a fraction from 0 to 1, got \"$MAX_ERROR_RATE\""
  [[ "$SEED_ADS" =~ ^[0-9]+$ ]] || usage_error "--seed-ads must be a non-negative integer, got \"$SEED_ADS\""
  [[ "$PREWARM" =~ ^[0-9]+$ ]] || usage_error "--prewarm must be a non-negative integer, got \"$PREWARM\""
  [[ "$LOADBALANCING" =~ ^(|round-robin|least-connection)$ ]] \
    || usage_error "--loadbalancing must be round-robin or least-connection, got \"$LOADBALANCING\""
  [[ "$STATS_SOURCE" =~ ^(plugin|v3|auto)$ ]] || usage_error "--stats-source must be plugin, v3 or auto, got \"$STATS_SOURCE\""
  MAX_WAIT_MS=""
  [[ -z "$MAX_WAIT" ]] || MAX_WAIT_MS="$(duration_ms "$MAX_WAIT" --max-wait)"
}

# ---------------------------------------------------------------- the steps

# each_instance METHOD PATH — one request per app instance, in parallel (in order under
# --dry-run), each body logged with its index. Fails when any request failed.
each_instance() {
  local method="$1" path="$2" i pids=() failed=0
  for ((i = 0; i < INSTANCES; i++)); do
    if [[ "$DRY_RUN" == 1 ]]; then
      instance_request "$BASE_URL" "$HOST_HEADER" "$GUID" "$i" "$method" "$path"
    else
      { instance_request "$BASE_URL" "$HOST_HEADER" "$GUID" "$i" "$method" "$path" 2>&1 | sed "s/^/$APP\/$i: /" >&2; } &
      pids+=($!)
    fi
  done
  for i in "${pids[@]}"; do wait "$i" || failed=1; done
  return "$failed"
}

# prewarm_instances — --prewarm requests to each instance, pinned (X-Cf-App-Instance), with
# the loadgen CLI: reads among the seeded ads, else /health. Before the timings are cleared.
prewarm_instances() {
  [[ "$PREWARM" -gt 0 ]] || return 0
  local i args
  for ((i = 0; i < INSTANCES; i++)); do
    args=(node loadgen/bin/loadgen.js --requests "$PREWARM" --parallel "$PREWARM_PARALLEL" --no-progress
      --max-error-rate 0 -H "X-Cf-App-Instance: $GUID:$i")
    [[ -n "$HOST_HEADER" ]] && args+=(--host "$HOST_HEADER")
    if [[ "$SEED_ADS" -gt 0 ]]; then
      args+=(--url "$BASE_URL" --scenario read --seed "$SEED_ADS")
    else
      args+=(--url "$BASE_URL/health")
    fi
    if [[ "$DRY_RUN" == 1 ]]; then
      print_cmd "${args[@]}"
    else
      "${args[@]}" >/dev/null || die "prewarming $APP instance $i failed"
    fi
  done
}

# --loadbalancing on the app's route (locally APP.localhost; on CF host and domain from
# the route's v3 resource): per-route option of Gorouter (cloud-foundry-contracts.md §3).
set_route_loadbalancing() {
  [[ -n "$LOADBALANCING" ]] || return 0
  local host="$APP" domain="$LOCAL_DOMAIN"
  if [[ "$PLATFORM" == cf && "$GUID" == "<"* ]]; then
    host="<$APP-host>" domain="<$APP-domain>"
  elif [[ "$PLATFORM" == cf ]]; then
    IFS=$'\t' read -r host domain < <(cf_curl_json "/v3/apps/$GUID/routes" \
      | jq -r '.resources[0] | .host as $h | [$h, (.url | split("/")[0] | ltrimstr($h + "."))] | @tsv')
  fi
  cf_run update-route "$domain" --hostname "$host" -o "loadbalancing=$LOADBALANCING"
}

# Make sure the app holds --seed-ads ads, with the loadgen's own seeding code, before the
# round is created: seeding inside the start lead would make the loadgens start late.
# The loadgens still look (one GET) and read among the newest N ids.
seed_app() {
  [[ "$SEED_ADS" -gt 0 ]] || return 0
  local args=(node loadgen/bin/loadgen.js --url "$BASE_URL" --seed "$SEED_ADS" --seed-only)
  [[ -z "$HOST_HEADER" ]] || args+=(--host "$HOST_HEADER")
  if ! run_cmd "${args[@]}"; then
    log "could not seed $SEED_ADS ads into $APP"
    exit 2
  fi
}

# The round document for create-round.js.
round_json() {
  # The host's CPU is only known here for the local platform (on CF the apps run on cells).
  local model=closed settings versions environment cli_version="" cf_api="" cpu_model route_lb
  [[ -n "$RATE" ]] && model=open
  # The app's environment variables are its settings (pool size, threads, framework...).
  # Until the local platform serves this v3 endpoint, local rounds record {}.
  if ! settings="$(cf_curl_json "/v3/apps/$GUID/environment_variables" 2>/dev/null | jq -c '.var // {}')"; then
    settings='{}'
    [[ "$PLATFORM" == local ]] || log "could not read the app's environment variables; settings recorded as {}"
  fi
  if [[ "$PLATFORM" == cf ]]; then
    cli_version="$(cf version 2>/dev/null | head -n1 || true)"
    cf_api="$(cf_curl_json /v3/info | jq -r '.links.self.href // empty' | sed 's|/v3/info$||')"
  fi
  # The route's algorithm as the platform reports it (else what --loadbalancing asked).
  route_lb="$(cf_curl_json "/v3/apps/$GUID/routes" 2>/dev/null | jq -r '.resources[0].options.loadbalancing // empty' || true)"
  route_lb="${route_lb:-$LOADBALANCING}"
  cpu_model="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)"
  versions="$(jq -nc --arg cli "$cli_version" 'if $cli != "" then {cf_cli: $cli} else {} end')"
  environment="$(jq -nc --arg cpu "$CPU" --arg model "$cpu_model" --arg cpus "$(nproc)" \
    --arg api "$cf_api" --arg stats "$STATS_SOURCE" --arg platform "$PLATFORM" '
    {stats_source: $stats}
    + (if $platform == "local" then {host_cpu_model: $model, host_cpus: ($cpus | tonumber),
                                     app_cpu_quota_cores: (if $cpu == "" then "default" else $cpu end),
                                     loadgen_cpu_quota_cores: "none"} else {} end)
    + (if $api != "" then {cf_api: $api} else {} end)')"
  jq -nc --arg platform "$PLATFORM" --arg app "$APP" --arg url "$BASE_URL" --arg host "$HOST_HEADER" \
    --argjson instances "$INSTANCES" --argjson loadgens "$LOADGENS" --arg model "$model" \
    --arg parallel "$PARALLEL" --arg rate "$RATE" --arg duration "$DURATION_MS" --arg requests "$REQUESTS" \
    --argjson warmup "$WARMUP_MS" --argjson timeout "$TIMEOUT_MS" --argjson keepalive "$KEEPALIVE" \
    --arg scenario "$SCENARIO" --arg lbl "$LABEL" --arg experiment "$EXPERIMENT" --argjson seed "$SEED_ADS" --argjson prewarm "$PREWARM" --arg lb "$route_lb" --arg rev "$(git rev-parse --short HEAD 2>/dev/null || true)" \
    --argjson versions "$versions" --argjson environment "$environment" --argjson settings "$settings" '
    def num: if . == "" then null else tonumber end;
    def str: if . == "" then null else . end;
    {platform: $platform, app: $app, target_url: $url, host_header: ($host | str),
     app_instances: $instances, loadgens: $loadgens, model: $model, parallel: ($parallel | num),
     rate: ($rate | num), duration_ms: ($duration | num), requests: ($requests | num),
     warmup_ms: $warmup, timeout_ms: $timeout, keepalive: $keepalive, scenario: $scenario,
     plan: ((if $seed > 0 then {seed_ads: $seed} else {} end) + {prewarm: $prewarm}
       + (if $lb != "" then {loadbalancing: $lb} else {} end)),
     label: ($lbl | str), experiment: ($experiment | str), git_rev: ($rev | str), versions: $versions,
     environment: $environment, settings: $settings}'
}

# Start the collectors of stats and router logs in the background (printed under --dry-run).
start_collectors() {
  local common=(--app "$APP" --round "$ROUND_ID" --platform "$PLATFORM")
  if [[ "$DRY_RUN" == 1 ]]; then
    scripts/collect-stats.sh "${common[@]}" --source "$STATS_SOURCE" --dry-run
    scripts/collect-logs.sh "${common[@]}" --dry-run
    return 0
  fi
  common+=(--db "$DB_URL")
  trap stop_collectors EXIT
  scripts/collect-stats.sh "${common[@]}" --source "$STATS_SOURCE" &
  STATS_PID=$!
  scripts/collect-logs.sh "${common[@]}" &
  LOGS_PID=$!
}

# Stop the collectors (SIGTERM: each flushes what it has and exits 0).
stop_collectors() {
  local pid
  for pid in ${STATS_PID:-} ${LOGS_PID:-}; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in ${STATS_PID:-} ${LOGS_PID:-}; do wait "$pid" 2>/dev/null || log "a collector exited with an error"; done
  STATS_PID="" LOGS_PID=""
}

# Crash events of the app since the round was created → instance_events (in the
# background: EVENTS_PID; printed under --dry-run).
ingest_events() {
  local path="/v3/audit_events?target_guids=$GUID&types=audit.app.process.crash&created_ats[gt]=$CREATED_AT&per_page=5000"
  if [[ "$DRY_RUN" == 1 ]]; then
    print_cmd "${CF[@]}" curl "$path"
    return 0
  fi
  { cf_curl_json "$path" | node scripts/parsers/ingest-events.js --db "$DB_URL" --round "$ROUND_ID" \
      --app "$APP" --platform "$PLATFORM" --since "$CREATED_AT" \
      || log "crash events not ingested (scripts/parsers/ingest-events.js failed)"; } &
  EVENTS_PID=$!
}

# Interrupted: stop collecting, mark the round cancelled.
on_interrupt() {
  trap - INT TERM
  log "interrupted: cancelling round ${ROUND_ID:-}"
  [[ -z "${WAIT_PID:-}" ]] || kill -TERM "$WAIT_PID" 2>/dev/null || true
  stop_collectors
  if [[ "${ROUND_ID:-<round>}" != "<round>" ]]; then
    node scripts/round/finish-round.js --db "$DB_URL" --round "$ROUND_ID" --cancel >/dev/null 2>&1 || true
  fi
  exit 130
}

main() {
  parse_args "$@"
  validate_args
  select_platform
  [[ -z "$CPU" || "$PLATFORM" == local ]] || usage_error "--cpu is local only (on CF, CPU follows memory)"
  local lead_ms ready_ms margin_ms drain_sec
  if [[ "$PLATFORM" == local ]]; then
    lead_ms=$START_LEAD_MS_LOCAL ready_ms=$READY_TIMEOUT_MS_LOCAL margin_ms=$MARGIN_MS_LOCAL
    drain_sec=$LOG_DRAIN_SEC_LOCAL
    local_platform_up
  else
    lead_ms=$START_LEAD_MS_CF ready_ms=$READY_TIMEOUT_MS_CF margin_ms=$MARGIN_MS_CF
    drain_sec=$LOG_DRAIN_SEC_CF
    cf_preflight
  fi
  if [[ -z "$MAX_WAIT_MS" ]]; then
    if [[ -n "$DURATION_MS" ]]; then
      MAX_WAIT_MS=$((DURATION_MS + WARMUP_MS + TIMEOUT_MS + margin_ms))
    else
      MAX_WAIT_MS="$(duration_ms "$DEFAULT_REQUESTS_MAX_WAIT" --max-wait)"
    fi
  fi
  # On CF a missing URL must stop the round before anything changes; locally the
  # results-db service exists once the apps are pushed.
  DB_URL=""
  [[ "$DRY_RUN" == 1 || "$PLATFORM" == local ]] || DB_URL="$(results_db_url)"

  ensure_app "$APP" "$INSTANCES" "$CPU"
  GUID="${ENSURED_GUID:-<$APP-guid>}"
  ensure_app loadgen "$LOADGENS" "" at-least
  [[ "$DRY_RUN" == 1 || -n "$DB_URL" ]] || DB_URL="$(results_db_url)"
  BASE_URL="$(app_base_url "$APP" "$GUID")"
  HOST_HEADER="$(app_host_header "$APP")"
  set_route_loadbalancing
  seed_app
  prewarm_instances
  each_instance POST /timings/clear || die "could not clear the app timings"

  ROUND_ID="<round>" CREATED_AT="<created-at>"
  trap on_interrupt INT TERM
  if [[ "$DRY_RUN" != 1 ]]; then
    local created
    created="$(round_json | node scripts/round/create-round.js --db "$DB_URL" --start-lead-ms "$lead_ms" \
      --wait-loadgens "$LOADGENS" --ready-timeout-ms "$ready_ms")"
    ROUND_ID="$(jq -r .id <<<"$created")"
    CREATED_AT="$(jq -r .created_at <<<"$created")"
    log "round $ROUND_ID: $APP x$INSTANCES, $LOADGENS loadgen(s), starts at $(jq -r .start_at <<<"$created")"
  fi
  start_collectors
  if [[ "$DRY_RUN" != 1 ]]; then
    # In the background: a trapped SIGTERM/SIGINT interrupts `wait`, not a foreground child.
    node scripts/round/wait-round.js --db "$DB_URL" --round "$ROUND_ID" --deadline-ms "$MAX_WAIT_MS" &
    WAIT_PID=$!
    wait "$WAIT_PID" || true
    WAIT_PID=""
  fi
  each_instance POST "/timings/flush?round=$ROUND_ID" || log "some app timings were not flushed"
  ingest_events
  [[ "$DRY_RUN" == 1 ]] || sleep "$drain_sec"
  stop_collectors
  [[ -z "${EVENTS_PID:-}" ]] || wait "$EVENTS_PID" || true
  trap - INT TERM
  [[ "$DRY_RUN" == 1 ]] && return 0
  local rc=0
  node scripts/round/finish-round.js --db "$DB_URL" --round "$ROUND_ID" --max-error-rate "$MAX_ERROR_RATE" || rc=$?
  echo "round_id=$ROUND_ID"
  return "$rc"
}

main "$@"
