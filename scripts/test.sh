#!/usr/bin/env bash
# test.sh — the one test command: installs what is missing (scripts/setup.sh), then runs every suite (test/run-suites.js; --help).
set -euo pipefail
[[ "${DEBUG:-}" == 1 ]] && set -x
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# Setup first, so that Node and every suite's dependencies exist; not for options that only print.
case " $* " in
  *" --no-setup "* | *" --list "* | *" --help "* | *" -h "*) ;;
  *) "$ROOT/scripts/setup.sh" --with-browser ;;
esac
export PATH="$ROOT/.tools/bin:$PATH"
exec node "$ROOT/test/run-suites.js" "$@"
