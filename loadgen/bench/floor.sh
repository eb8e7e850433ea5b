#!/usr/bin/env bash
# floor.sh — the generator's own share of a latency: loadgen's open model beside vegeta and its
# closed model beside wrk, against a null target, p50/p90/p99 side by side with the differences.
#
# Usage: loadgen/bench/floor.sh [--duration SEC] [--repeat N] [--rates R,R] [--gen-core C]
#                               [--target-core C] [--smoke]
#   --duration     seconds per run (default 6)
#   --repeat       interleaved repeats; medians are compared (default 3)
#   --rates        open-model rates in req/s (default 400,2000)
#   --gen-core     CPU of the generators (default 1)
#   --target-core  CPU of the target (default 0)
#   --smoke        1 s runs, once: flags, code and tools (CI), not a figure
# The target is bench/target.js (node:http answering "ok\n"), alone on its CPU (taskset).
# open R: loadgen --rate R vs vegeta -rate R; closed c1: loadgen -c 1 vs wrk -t1 -c1. loadgen's
# open model measures from the intended send time (coordinated omission corrected), vegeta's
# from the actual one; loadgen's own send lateness (actual - intended) is shown beside.
# Peers: wrk (Debian) and vegeta (.tools/bin), both installed by scripts/setup.sh.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
# shellcheck source=loadgen/bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# run_loadgen MODEL ARGS...: one loadgen run, its line into RESULTS.
run_loadgen() {
  local model="$1"; shift
  taskset -c "$GEN_CORE" node "$LOADGEN_DIR/bin/loadgen.js" --url "$TARGET_URL" --duration "${DURATION}s" \
    --json --no-progress "$@" >"$OUT"
  jq -r --arg m "$model" '[$m, "loadgen", .latency_us.p50, .latency_us.p90, .latency_us.p99,
    (.lateness_us.p50 // "-"), (.lateness_us.p99 // "-")] | map(tostring) | join(" ")' "$OUT" >>"$RESULTS"
  warn_errors loadgen "$(jq '.requests.errors + .unsent' "$OUT")"
}

run_vegeta() {
  local rate="$1"
  echo "GET $TARGET_URL" | taskset -c "$GEN_CORE" "$VEGETA" attack -rate "$rate/s" -duration "${DURATION}s" >"$OUT.bin"
  "$VEGETA" report -type=json "$OUT.bin" >"$OUT"
  jq -r --arg m "open-$rate" '[$m, "vegeta", (.latencies["50th"], .latencies["90th"], .latencies["99th"] | . / 1000 | floor),
    "-", "-"] | map(tostring) | join(" ")' "$OUT" >>"$RESULTS"
  warn_errors vegeta "$(jq '.requests - (.success * .requests | round)' "$OUT")"
}

run_wrk() {
  taskset -c "$GEN_CORE" wrk -t1 -c1 -d "${DURATION}s" -s "$BENCH_DIR/wrk-result.lua" "$TARGET_URL" >"$OUT"
  local line
  line="$(grep '^{' "$OUT")" || die "wrk gave no result (run it by hand to see why)"
  jq -r '["closed-c1", "wrk", .p50, .p90, .p99, "-", "-"] | map(tostring) | join(" ")' <<<"$line" >>"$RESULTS"
  warn_errors wrk "$(jq .errors <<<"$line")"
}

warn_errors() { [[ "$2" == 0 ]] || log "warning: $1 had $2 failed or unsent requests in this run"; }

main() {
  DURATION=6 GEN_CORE=1
  local repeat=3 target_core=0 rates=400,2000 rate rep
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --duration) DURATION="$2"; shift ;;
      --repeat) repeat="$2"; shift ;;
      --rates) rates="$2"; shift ;;
      --gen-core) GEN_CORE="$2"; shift ;;
      --target-core) target_core="$2"; shift ;;
      --smoke) DURATION=1 repeat=1 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option: $1" ;;
    esac
    shift
  done
  command -v wrk >/dev/null || die "needs wrk (scripts/setup.sh installs it)"
  VEGETA="$(PATH="$REPO_DIR/.tools/bin:$PATH" command -v vegeta)" || die "needs vegeta (scripts/setup.sh builds it into .tools/bin)"
  trap cleanup EXIT
  OUT="$(mktemp /tmp/cfscale-loadgen-bench-out-XXXXXX)"
  RESULTS="$(mktemp /tmp/cfscale-loadgen-bench-res-XXXXXX)"
  CLEANUP_DIRS+=("$OUT" "$OUT.bin" "$RESULTS")
  start_target "$target_core" node
  TARGET_URL="http://127.0.0.1:$TARGET_PORT/"
  log "node target on core $target_core, generators on core $GEN_CORE, ${DURATION}s per run, $repeat repeats"
  IFS=, read -ra rates <<<"$rates"
  # Interleaved: a shared machine's load drifts; each tool's median over the repeats is compared.
  for rep in $(seq "$repeat"); do
    log "repeat $rep of $repeat"
    for rate in "${rates[@]}"; do
      run_loadgen "open-$rate" --rate "$rate"
      run_vegeta "$rate"
    done
    run_loadgen closed-c1 --parallel 1
    run_wrk
  done
  node "$BENCH_DIR/floor-summary.js" "$RESULTS"
}

main "$@"
