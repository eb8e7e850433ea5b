// cli.js (test helper) — run a repo script and capture its output and exit code.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/db.js';

export function runScript(script, args, env = {}) {
  const r = spawnSync(path.join(REPO_ROOT, 'scripts', script), args, {
    encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
