// cli.js (test helper) — run a repo script and capture its output and exit code; read the
// calls the stand-in run-round (fake-run-round.js) logged.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/results-db.js';

export function runScript(script, args, env = {}) {
  const r = spawnSync(path.join(REPO_ROOT, 'scripts', script), args, {
    encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The calls fake-run-round.js logged to FAKE_RUN_ROUND_LOG (one JSON object a line); [] before any. */
export function loggedCalls(log) {
  if (!fs.existsSync(log)) return [];
  return fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}
