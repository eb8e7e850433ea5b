#!/usr/bin/env node
// bench-cf-push.js — how long the real cf CLI takes to push node-app with 2 instances to
// the local platform (issue target: ≤ 20 s): a platform of its own, `cf login`, the two
// services, then `cf push node-app -f manifests/node-app.yml --vars-file
// manifests/vars-local.yml -i 2` timed cold (new app) and again (existing app). Not a
// test: run on demand. `cf push` returns once one instance runs (the CLI's PollStart) and
// polls every 3 s, so the figures move in steps of about 3 s.
//
// Usage: node local-platform/bench/cf-push.js [--runs 2]
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { parseCommand, CliError, cliExitCode } = require('../../lib/arg-table');
const { freePortInRange } = require('../../lib/ports');

const REPO = path.resolve(__dirname, '..', '..');
const CFL = path.join(REPO, 'scripts', 'cfl');
const CF = path.join(REPO, '.tools', 'bin', 'cf');
const TARGET_SEC = 20;

// The flags, their defaults and --help in one (arg-table.js).
const COMMAND = {
  usage: 'Usage: node local-platform/bench/cf-push.js [--runs 2]',
  rows: [
    ['--runs N', 'runs', 'int', 2, 'timed pushes (the first cold, then again)', [1]],
  ],
};

async function main() {
  const { runs } = parseCommand('bench-cf-push', process.argv.slice(2), COMMAND);
  if (!fs.existsSync(CF)) throw new Error(`${CF} is missing: run scripts/setup.sh`);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-bench-push-'));
  fs.chmodSync(home, 0o711); // PostgreSQL (as postgres when we are root) must reach it
  const env = {
    ...process.env,
    CFSCALE_HOME: path.join(home, 'platform'),
    CFSCALE_ROUTER_PORT: String(await freePortInRange(45300, 45349)),
    CFSCALE_ROUTER_TLS_PORT: String(await freePortInRange(45500, 45549)),
    CFSCALE_PG_PORT: String(await freePortInRange(45350, 45399)),
    CFSCALE_API_PORT: String(await freePortInRange(45400, 45449)),
    CFSCALE_INSTANCE_PORT_BASE: '45200',
    CFSCALE_FRONT_PROXY_PORT_BASE: String(await freePortInRange(45460, 45469)),
    CF_HOME: path.join(home, 'cf-home'),
    CF_COLOR: 'false',
  };
  fs.mkdirSync(env.CF_HOME);
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: REPO, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    run(CFL, ['up']);
    run(CFL, ['login']);
    for (const s of ['node-db', 'results-db']) run(CF, ['create-service', 'postgres', 'local', s]);
    // node-app starts only with a CONTROL_TOKEN: set on the empty app, as scripts/push.sh does.
    run(CF, ['create-app', 'node-app']);
    run(CF, ['set-env', 'node-app', 'CONTROL_TOKEN', require('node:crypto').randomBytes(32).toString('base64url')]);
    for (let i = 1; i <= runs; i++) {
      const t0 = process.hrtime.bigint();
      run(CF, ['push', 'node-app', '-f', 'manifests/node-app.yml', '--vars-file', 'manifests/vars-local.yml', '-i', '2']);
      const sec = Number(process.hrtime.bigint() - t0) / 1e9;
      process.stdout.write(`cf push node-app -i 2 (${i === 1 ? 'new app' : 'existing app'}): ${sec.toFixed(1)} s, ${(sec / TARGET_SEC).toFixed(2)} of the ${TARGET_SEC} s target\n`);
    }
  } finally {
    try { run(CFL, ['down']); } catch (e) { process.stderr.write(`bench-cf-push: cfl down: ${e.message}\n`); }
    fs.rmSync(home, { recursive: true, force: true });
  }
}

main().catch((e) => {
  if (e instanceof CliError) process.exit(cliExitCode(e));
  process.stderr.write(`bench-cf-push: ${e.message}\n`);
  process.exit(1);
});
