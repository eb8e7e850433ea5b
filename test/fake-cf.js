#!/usr/bin/env node
// fake-cf.js (test helper) — the few cf CLI calls the experiment runner's settings applier
// makes (round-runner.js makeSettingsApplier), against a state file instead of a platform:
// `app NAME --guid`, `curl /v3/apps/GUID/environment_variables`, `curl
// /v3/apps/GUID/processes/web`, and the changes `set-env`, `unset-env`, `restart`, `scale NAME
// -m NM -f`. An app it has not seen starts as pushed from its manifest (its settings and
// memory, manifestDefaults). Each change is appended to FAKE_CF_LOG as the command line;
// FAKE_CF_STATE holds the apps; FAKE_APP_MEMORY_FILE, when set, gets the memory a scale sets
// (what fake-run-round.js records as the app's).
'use strict';
const fs = require('node:fs');
const { manifestDefaults } = require('../scripts/experiment/round-runner.js');

const [verb, ...args] = process.argv.slice(2);
const stateFile = process.env.FAKE_CF_STATE;
const state = fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, 'utf8')) : {};

function app(name) {
  if (!state[name]) {
    let d = { env: {}, memoryMb: 1024 };
    try { d = manifestDefaults(name, 'local'); } catch { /* no manifest: an app of the test's own */ }
    state[name] = { env: d.env, memory_in_mb: d.memoryMb ?? 1024 };
  }
  return state[name];
}
const byGuid = (guid) => app(guid.replace(/^guid-/, ''));
const change = () => {
  fs.appendFileSync(process.env.FAKE_CF_LOG, `${[verb, ...args].join(' ')}\n`);
  fs.writeFileSync(stateFile, JSON.stringify(state));
};

if (verb === 'app' && args[1] === '--guid') {
  app(args[0]);
  fs.writeFileSync(stateFile, JSON.stringify(state));
  process.stdout.write(`guid-${args[0]}\n`);
} else if (verb === 'curl') {
  const m = /^\/v3\/apps\/([^/]+)\/(environment_variables|processes\/web)$/.exec(args[0]);
  if (!m) process.exit(1);
  const a = byGuid(m[1]);
  process.stdout.write(JSON.stringify(m[2] === 'environment_variables' ? { var: a.env } : { memory_in_mb: a.memory_in_mb }));
} else if (verb === 'set-env') {
  app(args[0]).env[args[1]] = args[2];
  change();
} else if (verb === 'unset-env') {
  delete app(args[0]).env[args[1]];
  change();
} else if (verb === 'restart') {
  app(args[0]);
  change();
} else if (verb === 'scale' && args[1] === '-m') {
  app(args[0]).memory_in_mb = Number(args[2].replace(/M$/, ''));
  if (process.env.FAKE_APP_MEMORY_FILE) fs.writeFileSync(process.env.FAKE_APP_MEMORY_FILE, String(app(args[0]).memory_in_mb));
  change();
} else {
  process.stderr.write(`fake-cf: not a call of the settings applier: ${verb} ${args.join(' ')}\n`);
  process.exit(1);
}
