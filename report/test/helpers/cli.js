// cli.js (test helper) — run a repo script and capture its output and exit code; read the
// calls the stand-in run-round (fake-run-round.js) logged.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT } = require('../../../lib/results-db-url.js');

function runScript(script, args, env = {}) {
  const r = spawnSync(path.join(REPO_ROOT, 'scripts', script), args, {
    encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The calls fake-run-round.js logged to FAKE_RUN_ROUND_LOG (one JSON object a line); [] before any. */
function loggedCalls(log) {
  if (!fs.existsSync(log)) return [];
  return fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

module.exports = { runScript, loggedCalls };
