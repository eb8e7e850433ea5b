#!/usr/bin/env bash
# variants.sh — the app variants the contract suite and the app benchmarks start, and the
# free-port and fresh-database helpers both use (sourced by contract/run.sh and
# bench/apps/throughput.sh, not run). The sourcing script defines PORT_MIN, PORT_MAX,
# PG_CLUSTER, PG_URL, PG_DIR (when it calls fresh_db) and die().
# shellcheck disable=SC2034

readonly ALL_VARIANTS=(node-raw node-express node-cluster java)

# The command of variant $1, relative to the repository root; dies on an unknown variant.
variant_cmd() {
  case "$1" in
    java) echo "java -jar java-app/target/java-app.jar" ;;
    node-raw | node-express | node-cluster) echo "node node-app/server.js" ;;
    *) die "unknown variant: $1 (${ALL_VARIANTS[*]})" ;;
  esac
}

# The environment that makes variant $1 what it is (NAME=value words).
variant_env() {
  case "$1" in
    node-raw) echo "APP_FRAMEWORK=raw" ;;
    node-express) echo "APP_FRAMEWORK=express" ;;
    node-cluster) echo "WEB_CONCURRENCY=2" ;;
  esac
}

# Set variable $1 to a port in PORT_MIN-PORT_MAX that nothing listens on and that this
# script did not hand out before (USED_PORTS).
USED_PORTS=()
free_port() {
  local -n out="$1"
  local p tries
  for ((tries = 0; tries < 500; tries++)); do
    p=$((PORT_MIN + RANDOM % (PORT_MAX - PORT_MIN + 1)))
    [[ " ${USED_PORTS[*]} " == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      USED_PORTS+=("$p")
      out="$p"
      return 0
    fi
  done
  die "no free port in $PORT_MIN-$PORT_MAX"
}

# Fresh database $1 in the cluster of PG_URL (its data in PG_DIR); prints its URL.
fresh_db() {
  PGOPTIONS='-c client_min_messages=warning' psql "$PG_URL" -qAt -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)" >/dev/null
  "$PG_CLUSTER" createdb --dir "$PG_DIR" "$1"
}
