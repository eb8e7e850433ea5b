#!/usr/bin/env bash
# test.sh — unit tests and the real end-to-end test of the chisel tunnel server.
#
# Usage: chisel/test.sh            (run by scripts/test.sh as the "chisel" suite)
#
# End to end, locally and for real: a throw-away PostgreSQL (scripts/pg-cluster.sh), the
# server built from this module in front of it with VCAP_SERVICES naming it as results-db,
# and the real chisel client built from the same module. psql through the tunnel works
# with the right auth and fingerprint; it does NOT work without credentials, with a wrong
# password, with a wrong fingerprint, or to a remote outside the ACL (the same database
# under another name, or another port that really serves it). Refusal is proven by psql,
# never by the client's exit code: chisel's client exits 0 even when auth fails
# (docs/cf-platform.md §6). Ports 47000-47999; DEBUG=1 traces.
#
# First, staging without internet (docs/cf-platform.md §12): every build here uses
# vendor/ (-mod=vendor, as the Go buildpack does when vendor/ exists), `go mod vendor`
# leaves vendor/, go.mod and go.sum as they are, and go.mod's go line is the oldest that
# builds: the highest go line among the vendored modules.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
readonly ROOT="$HERE/.."
readonly PORT_MIN=47000
readonly PORT_SPAN=1000
readonly AUTH_USER=tunnel
readonly AUTH_PASS="pw-$RANDOM$RANDOM"
readonly KEY_SEED="seed-$RANDOM$RANDOM"
readonly CONNECT_WAIT_SEC=10   # the good tunnel must work within this
readonly REFUSE_WAIT_SEC=4     # a refused tunnel must carry nothing for this long

WORK=""
PIDS=()

log() { echo "chisel-test: $*" >&2; }
die() { echo "chisel-test: FAIL: $*" >&2; exit 1; }

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ -n "$WORK" ]]; then
    "$ROOT/scripts/pg-cluster.sh" stop --dir "$WORK/pg" >/dev/null 2>&1 || true
    rm -rf "$WORK"
  fi
}

port_is_free() { ! (: >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port() {
  local p i
  for i in $(seq 1 100); do
    p=$((PORT_MIN + RANDOM % PORT_SPAN))
    if port_is_free "$p" && [[ " ${USED_PORTS[*]:-} " != *" $p "* ]]; then
      USED_PORTS+=("$p")
      echo "$p"
      return
    fi
  done
  die "no free port in $PORT_MIN-$((PORT_MIN + PORT_SPAN - 1)) after $i tries"
}

psql_ok() { # psql_ok PORT: SELECT 1 through 127.0.0.1:PORT answers 1
  [[ "$(PGCONNECT_TIMEOUT=2 psql "postgres://postgres:$PG_PASS@127.0.0.1:$1/postgres" -Atqc 'SELECT 1' 2>/dev/null)" == 1 ]]
}

wait_http() { # wait_http URL
  local i
  for i in $(seq 1 50); do
    curl -fsS "$1" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  die "$1 did not answer (server log: $(tail -3 "$WORK/server.log" 2>/dev/null))"
}

start_client() { # start_client NAME LOCAL_PORT REMOTE [client flags...]: runs in background
  local name="$1" lport="$2" remote="$3"
  shift 3
  "$WORK/bin/chisel" client --max-retry-count 2 "$@" "http://127.0.0.1:$SERVER_PORT" "$lport:$remote" \
    >"$WORK/client-$name.log" 2>&1 &
  PIDS+=("$!")
  CLIENT_PID=$!
}

stop_client() {
  kill "$CLIENT_PID" 2>/dev/null || true
  wait "$CLIENT_PID" 2>/dev/null || true
}

expect_tunnel() { # expect_tunnel NAME LOCAL_PORT REMOTE [flags]
  local name="$1" lport="$2" i
  start_client "$@"
  for i in $(seq 1 $((CONNECT_WAIT_SEC * 4))); do
    if psql_ok "$lport"; then
      log "ok: $name: psql SELECT 1 through the tunnel"
      stop_client
      return
    fi
    sleep 0.25
  done
  die "$name: no psql through the tunnel in ${CONNECT_WAIT_SEC}s; client log: $(tail -5 "$WORK/client-$name.log")"
}

expect_refused() { # expect_refused NAME LOCAL_PORT REMOTE [flags]
  local name="$1" lport="$2" i
  start_client "$@"
  for i in $(seq 1 $((REFUSE_WAIT_SEC * 2))); do
    psql_ok "$lport" && die "$name: psql went through the tunnel, it must be refused"
    sleep 0.5
  done
  stop_client
  log "ok: $name: refused (client: $(grep -m1 -E 'Connection error|Invalid|denied' "$WORK/client-$name.log" | cut -c21-160))"
}

start_forwarder() { # start_forwarder FROM_PORT TO_PORT: a plain TCP relay (node)
  node -e '
    const net = require("net");
    const [from, to] = process.argv.slice(1).map(Number);
    net.createServer((c) => { const u = net.connect(to, "127.0.0.1"); c.pipe(u).pipe(c);
      c.on("error", () => u.destroy()); u.on("error", () => c.destroy()); }).listen(from, "127.0.0.1");
  ' "$1" "$2" &
  PIDS+=("$!")
}

check_vendor() { # vendor/ is complete and current, the go line is the lowest that builds
  local before stale="" go_line floor
  before="$(mktemp -d /tmp/cfscale-chisel-vendor-XXXXXX)"
  cp go.mod go.sum "$before/"
  GOFLAGS='' go mod vendor -o "$before/vendor" || die "go mod vendor failed"
  diff -rq vendor "$before/vendor" >&2 || stale="vendor/"
  if ! cmp -s go.mod "$before/go.mod" || ! cmp -s go.sum "$before/go.sum"; then stale="go.mod or go.sum"; fi
  rm -rf "$before"
  [[ -z "$stale" ]] || die "go mod vendor changes $stale: run it in chisel/ and commit the result"
  go_line="$(sed -n 's/^go //p' go.mod)"
  floor="$(sed -n 's/^## explicit; go //p' vendor/modules.txt | sort -V | tail -1)"
  [[ "$go_line" == "$floor" ]] \
    || die "go.mod says go $go_line; the oldest that builds is go $floor (the highest go line in vendor/modules.txt)"
  log "ok: vendor/ is current, go line $go_line is the vendored modules' floor"
}

main() {
  [[ $# -eq 0 ]] || { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 1; }
  cd "$HERE"
  check_vendor
  export GOFLAGS=-mod=vendor
  log "go test ./..."
  go test ./...

  WORK="$(mktemp -d /tmp/cfscale-chisel-XXXXXX)"
  chmod 755 "$WORK"
  trap cleanup EXIT
  USED_PORTS=()
  log "building server and client"
  go build -trimpath -o "$WORK/bin/chisel-server" .
  go build -trimpath -o "$WORK/bin/chisel" github.com/jpillora/chisel

  local pg_port pg_url
  pg_port="$(free_port)"
  pg_url="$("$ROOT/scripts/pg-cluster.sh" start --dir "$WORK/pg" --port "$pg_port")"
  PG_PASS="$(cat "$WORK/pg/password")"
  log "PostgreSQL on $pg_port"

  # The server refuses to start without credentials, with one line.
  local out
  if out="$(CHISEL_KEY=x VCAP_SERVICES='{}' "$WORK/bin/chisel-server" 2>&1)"; then die "server started without credentials"; fi
  [[ "$out" == "chisel-server: authentication is mandatory"* && "$out" != *$'\n'* ]] || die "unexpected refusal message: $out"
  log "ok: server without credentials refuses to start: $out"

  SERVER_PORT="$(free_port)"
  local vcap
  vcap="{\"postgres\":[{\"name\":\"results-db\",\"label\":\"postgres\",\"tags\":[\"postgres\"],\"credentials\":{\"uri\":\"$pg_url\"}}]}"
  export PORT="$SERVER_PORT" HOST=127.0.0.1 CHISEL_AUTH="$AUTH_USER:$AUTH_PASS" CHISEL_KEY="$KEY_SEED" VCAP_SERVICES="$vcap"
  local fp
  fp="$(env -i CHISEL_KEY="$KEY_SEED" "$WORK/bin/chisel-server" fingerprint)"
  "$WORK/bin/chisel-server" >"$WORK/server.log" 2>&1 &
  PIDS+=("$!")
  unset PORT HOST CHISEL_AUTH CHISEL_KEY VCAP_SERVICES
  wait_http "http://127.0.0.1:$SERVER_PORT/health"
  grep -q "fingerprint $fp" "$WORK/server.log" || die "server log lacks the fingerprint $fp"
  ! grep -q "$AUTH_PASS" "$WORK/server.log" || die "server log shows the password"
  log "server on $SERVER_PORT, fingerprint $fp"

  local other_port
  other_port="$(free_port)"
  start_forwarder "$other_port" "$pg_port"
  local i
  for i in $(seq 1 20); do psql_ok "$other_port" && break; sleep 0.25; done
  psql_ok "$other_port" || die "the forwarder on $other_port does not reach PostgreSQL"

  local good=(--auth "$AUTH_USER:$AUTH_PASS" --fingerprint "$fp")
  expect_tunnel "right auth and fingerprint" "$(free_port)" "127.0.0.1:$pg_port" "${good[@]}"
  expect_refused "no credentials" "$(free_port)" "127.0.0.1:$pg_port" --fingerprint "$fp"
  expect_refused "wrong password" "$(free_port)" "127.0.0.1:$pg_port" --auth "$AUTH_USER:wrong" --fingerprint "$fp"
  expect_refused "wrong fingerprint" "$(free_port)" "127.0.0.1:$pg_port" --auth "$AUTH_USER:$AUTH_PASS" \
    --fingerprint "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
  expect_refused "another port outside the ACL (it serves PostgreSQL)" "$(free_port)" "127.0.0.1:$other_port" "${good[@]}"
  expect_refused "the same database under another name (anchored ACL)" "$(free_port)" "localhost:$pg_port" "${good[@]}"
  log "all passed"
}

main "$@"
