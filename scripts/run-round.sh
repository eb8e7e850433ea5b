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
#   --warmup DUR         samples in the first DUR are left out of the summary; turns the
#                        steady-state gate off (default: the gate decides; with --requests
#                        the gate is off and the default is 0s)
#   --steady-window DUR  the gate: load runs until the per-second throughput of the last
#                        DUR is steady, then the round measures --duration more; the
#                        measured window's start and whether it was steady are recorded in
#                        the round (default 20s)
#   --steady-cv F        steady: the window's coefficient of variation is at most F
#                        (default 0.1)
#   --steady-trend F     steady: the window's least-squares trend, as a change over the
#                        window relative to its mean, is within ±F (default 0.1)
#   --max-warmup DUR     the gate gives up after DUR of warm-up: the round measures from
#                        there and is flagged as never steady (default 60s)
#   --scenario NAME      read | browse | publish | hello | mix (default read; hello: GET
#                        /hello, no database: measures the router or a TLS proxy)
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
#                        HOST -o loadbalancing=ALGO` (both platforms; default: the route
#                        is left as it is). The route's option is recorded in rounds.plan
#                        (loadbalancing; absent = the router's default, round-robin). On CF it
#                        needs cf CLI >= 8.9.1 (checked first) and CC API >= 3.183.0,
#                        least-connection >= 3.187.0 (docs/cf-platform.md §11)
#   --front-proxies N    local only: the loadgens send HTTPS to N TLS-terminating HAProxy
#                        front proxies before the router (N >= 1; `cfl front-proxies -n N`,
#                        each in its own cgroup with a CPU quota: study §5.2.3,
#                        local-platform/README.md), spread like round-robin DNS (loadgen i →
#                        proxy i mod N; rounds.plan.front_proxies, target_urls); their CPU
#                        from the end of the warm-up to the loadgens' end goes to
#                        rounds.environment.front_proxy_usage and the output (default: none,
#                        the loadgens send to the router)
#   --label TEXT         free text stored with the round
#   --experiment NAME    the experiment (plan file) the round belongs to
#   --max-error-rate F   the round fails above this fraction of errors (default 0.01 = 1 %)
#   --max-wait DUR       how long after the start to wait for the loadgens (default: duration
#                        + warm-up (with the gate: --max-warmup) + timeout + 15s locally /
#                        30s on CF; 10m with --requests)
#   --stats-source S     v3 | plugin | auto, see collect-stats.sh (default auto: v3; plugin
#                        only when installed)
#   --platform P         local | cf (default: PLATFORM, else cf when `cf target` succeeds,
#                        else local)
#   --skip-ssl-validation  the workstation's own HTTPS requests (seeding, prewarm, timings
#                        clear and flush) skip certificate verification (loadgen --insecure,
#                        curl --insecure); default on CF: the cf CLI's own setting
#                        (`cf api --skip-ssl-validation`, SSLDisabled in $CF_HOME/.cf/config.json,
#                        else ~/.cf; docs/cf-platform.md §13)
#   --dry-run            print each platform command and app request, shell-quoted, one per
#                        line; run none, write nothing (the round id shows as <round>)
#   -h, --help           this help
#
# Durations: 500ms, 10s, 2m, 1h (a bare number is seconds). One path on both platforms:
# the real cf CLI, logged in locally to the local platform's API (see push.sh). Locally the
# loadgen instances get no CPU quota (scale.sh --cpu none with every push and scale): they
# are the instrument, not the subject, and must not be throttled. On CF they get what
# their manifest memory buys. Results database: local the credentials of results-db's
# service key cfscale-scripts (`cf create-service-key`, made once); cf
# RESULTS_DATABASE_URL (open it with scripts/tunnel.sh). The round is created once every loadgen taking part is connected
# and idle (round/create-round.js). The last line on stdout is `round_id=N`.
# Exit: 0 round done, 1 usage or configuration error, 2 the round failed (errors above
# --max-error-rate, a loadgen that did not finish, no samples) or could not start (seeding
# failed, loadgens not ready in time). DEBUG=1 traces.
set -euo pipefail
SCRIPTS="$(dirname "${BASH_SOURCE[0]}")"
readonly SCRIPTS
# A fresh clone: the Node scripts need their npm packages before they can start (setup.sh
# installs what a local round needs, the cf CLI included).
[[ -d "$SCRIPTS/node_modules" ]] || "$SCRIPTS/setup.sh" >&2
exec node "$SCRIPTS/round/run-round.js" "$@"
