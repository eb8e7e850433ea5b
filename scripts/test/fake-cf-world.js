'use strict';
// fake-cf-world.js — a world for the fake cf (fixtures/fake-cf.js) that the scripts' tests
// run PLATFORM=cf scripts in: a temp dir with bin/cf, the fake's state and call log, a cf
// config (target, space) and a vars file; and the environment that points a script at it.
//
// makeWorld(state, { plugin }) → dir; state is merged over { apps: {}, services, loggedIn };
//   plugin: the cf statistics plugin shows as installed. removeWorlds() deletes them all.
// worldEnv(dir) → PATH, HOME, PLATFORM=cf, FAKE_CF_STATE, FAKE_CF_LOG, CFSCALE_VARS_FILE;
//   for --platform local: CFSCALE_HOME (not started) and CFSCALE_API_PORT at its default
// cfCalls(dir) → every cf call the fake logged, as argv arrays
// guidOf(name) → the guid the fake gives an app; READ_ONLY: the cf verbs that change nothing
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const FAKE_CF = path.join(__dirname, 'fixtures/fake-cf.js');
const READ_ONLY = new Set(['app', 'curl', 'target', 'oauth-token', 'version']);

const worlds = [];

function makeWorld(state, { plugin = false } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-scripts-'));
  worlds.push(dir);
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin/cf'), `#!/bin/sh\nexec node ${FAKE_CF} "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify({
    apps: {}, services: ['node-db', 'java-db', 'results-db'], loggedIn: true, ...state,
  }));
  fs.mkdirSync(path.join(dir, 'home/.cf/plugins'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'home/.cf/config.json'),
    JSON.stringify({ Target: 'https://api.example.com', SpaceFields: { GUID: 'space-guid-1', Name: 'dev' } }));
  if (plugin) {
    fs.writeFileSync(path.join(dir, 'home/.cf/plugins/config.json'),
      JSON.stringify({ Plugins: { Statistics: { Location: '/x/statistics', Version: { Major: 1 } } } }));
  }
  fs.copyFileSync(path.join(ROOT, 'manifests/vars-example.yml'), path.join(dir, 'vars.yml'));
  return dir;
}

function removeWorlds() {
  for (const w of worlds.splice(0)) fs.rmSync(w, { recursive: true, force: true });
}

function worldEnv(dir) {
  return {
    PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`,
    HOME: path.join(dir, 'home'),
    PLATFORM: 'cf',
    FAKE_CF_STATE: path.join(dir, 'state.json'),
    FAKE_CF_LOG: path.join(dir, 'cf.log'),
    CFSCALE_VARS_FILE: path.join(dir, 'vars.yml'),
    CFSCALE_HOME: path.join(dir, 'local'),
    CFSCALE_API_PORT: '8889',
  };
}

function cfCalls(dir) {
  const log = fs.existsSync(path.join(dir, 'cf.log')) ? fs.readFileSync(path.join(dir, 'cf.log'), 'utf8') : '';
  return log.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

const guidOf = (name) => `${Buffer.from(name).toString('hex').padEnd(8, '0').slice(0, 8)}-1111-4222-8333-444455556666`;

module.exports = { makeWorld, removeWorlds, worldEnv, cfCalls, guidOf, READ_ONLY, ROOT };
