#!/usr/bin/env bash
# pg-cluster.sh — a real, throw-away PostgreSQL cluster for the local platform and tests.
#
# Usage:
#   scripts/pg-cluster.sh start --dir DIR [--port PORT]   init if needed, start, print superuser URL
#   scripts/pg-cluster.sh stop  --dir DIR                 fast shutdown (no-op when not running)
#   scripts/pg-cluster.sh url   --dir DIR                 print superuser URL
#   scripts/pg-cluster.sh status --dir DIR                exit 0 when running
#   scripts/pg-cluster.sh createdb --dir DIR NAME         create database NAME if missing, print its URL
#
# PostgreSQL refuses to run as root, so as root the cluster is owned by and run as the
# `postgres` user. The cluster listens on 127.0.0.1 only, with a generated superuser
# password (scram-sha-256), kept in DIR/password (mode 600). DEBUG=1 traces.
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x

readonly DEFAULT_PORT=55432
readonly PG_USER=postgres

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

die() { echo "pg-cluster: $*" >&2; exit 1; }

pg_bindir() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [[ -x "$d/pg_ctl" ]] && { echo "$d"; return; }
  done
  command -v pg_ctl >/dev/null && { dirname "$(command -v pg_ctl)"; return; }
  die "PostgreSQL server binaries (pg_ctl, initdb) not found; install postgresql"
}

# Run a command as the cluster owner: postgres when we are root, else ourselves.
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u "$PG_USER" -- "$@"
  else
    "$@"
  fi
}

cluster_port() { cat "$1/port"; }

cluster_url() {
  local dir="$1" db="${2:-postgres}"
  echo "postgres://postgres:$(cat "$dir/password")@127.0.0.1:$(cluster_port "$dir")/$db"
}

is_running() {
  local dir="$1" bindir
  bindir="$(pg_bindir)"
  [[ -f "$dir/data/PG_VERSION" ]] && as_owner "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

init_cluster() {
  local dir="$1" port="$2" bindir pwfile
  bindir="$(pg_bindir)"
  mkdir -p "$dir"
  [[ -f "$dir/password" ]] || (umask 077; head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$dir/password")
  echo "$port" > "$dir/port"
  if [[ "$(id -u)" == 0 ]]; then
    chown "$PG_USER" "$dir"
    chmod 700 "$dir"
  fi
  [[ -f "$dir/data/PG_VERSION" ]] && return 0
  pwfile="$(mktemp)"
  cp "$dir/password" "$pwfile"
  [[ "$(id -u)" == 0 ]] && chown "$PG_USER" "$pwfile"
  as_owner "$bindir/initdb" -D "$dir/data" -U postgres --pwfile="$pwfile" \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { rm -f "$pwfile"; die "initdb failed, see $dir/initdb.log"; }
  rm -f "$pwfile"
  cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 400
shared_buffers = 256MB
fsync = on
synchronous_commit = off
logging_collector = off
EOF
}

cmd_start() {
  local dir="$1" port="$2" bindir
  bindir="$(pg_bindir)"
  [[ -f "$dir/port" && -z "$PORT_GIVEN" ]] && port="$(cluster_port "$dir")"
  init_cluster "$dir" "$port"
  if ! is_running "$dir"; then
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      -o "-p $port" start >/dev/null || die "start failed, see $dir/server.log"
  fi
  cluster_url "$dir"
}

cmd_stop() {
  local dir="$1" bindir
  bindir="$(pg_bindir)"
  is_running "$dir" || return 0
  as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null
}

cmd_createdb() {
  local dir="$1" name="$2"
  [[ "$name" =~ ^[a-z_][a-z0-9_-]{0,62}$ ]] || die "bad database name: $name"
  is_running "$dir" || die "cluster in $dir is not running"
  local url
  url="$(cluster_url "$dir")"
  if [[ -z "$(psql "$url" -Atqc "SELECT 1 FROM pg_database WHERE datname = '$name'")" ]]; then
    psql "$url" -qc "CREATE DATABASE \"$name\"" >/dev/null
  fi
  cluster_url "$dir" "$name"
}

main() {
  local cmd="${1:-}" dir="" port="$DEFAULT_PORT" name=""
  PORT_GIVEN=""
  [[ -n "$cmd" ]] || { usage >&2; exit 1; }
  shift
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --dir) dir="$2"; shift 2 ;;
      --port) port="$2"; PORT_GIVEN=1; shift 2 ;;
      -h|--help) usage; exit 0 ;;
      -*) die "unknown option: $1" ;;
      *) name="$1"; shift ;;
    esac
  done
  case "$cmd" in -h|--help|help) usage; exit 0 ;; esac
  [[ -n "$dir" ]] || die "--dir is required"
  [[ "$port" =~ ^[0-9]+$ ]] || die "--port must be a number, got \"$port\""
  dir="$(realpath -m "$dir")"
  case "$cmd" in
    start) cmd_start "$dir" "$port" ;;
    stop) cmd_stop "$dir" ;;
    url) cluster_url "$dir" ;;
    status) is_running "$dir" ;;
    createdb) [[ -n "$name" ]] || die "createdb needs a NAME"; cmd_createdb "$dir" "$name" ;;
    *) die "unknown command: $cmd (start, stop, url, status, createdb)" ;;
  esac
}

main "$@"
