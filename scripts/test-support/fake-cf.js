#!/usr/bin/env node
// fake-cf.js (test helper) — the cf CLI calls push.sh and scale.sh make on `--platform cf`,
// against a state file instead of a foundation: the preflight (`oauth-token`, `target`, the
// services), `app NAME --guid`, `create-app`, `push`, `scale NAME -i N`, `logs NAME --recent`,
// and `curl` of an app's environment variables (GET, and PATCH with `-d @FILE`), its web
// process stats, its state, its crash audit events and the v3 actions start and restart.
//   FAKE_CF_STATE  JSON: { apps: { NAME: { env, instances, crashing: null | { index, line } } } }
//                  (a crashing instance shows CRASHED and adds a crash event at every stats call)
//   FAKE_CF_CALLS  every call appended as a JSON line: { argv, bodyMode } (the mode of a -d @FILE body)
'use strict';
const fs = require('node:fs');

const STATE = process.env.FAKE_CF_STATE;
const state = JSON.parse(fs.readFileSync(STATE, 'utf8'));
const argv = process.argv.slice(2);
const call = { argv };
const [verb, ...args] = argv;
const SERVICES = ['node-db', 'java-db', 'results-db'];

const guidOf = (name) => `guid-${name}`;
const appOf = (guid) => state.apps[guid.replace(/^guid-/, '')];
const out = (doc) => process.stdout.write(`${typeof doc === 'string' ? doc : JSON.stringify(doc)}\n`);
const fail = (message) => {
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
};

function stats(app) {
  const resources = Array.from({ length: app.instances }, (_, index) => ({ index, state: 'RUNNING' }));
  if (app.crashing && app.crashing.index < app.instances) {
    resources[app.crashing.index].state = 'CRASHED';
    app.events = app.events || [];
    const at = new Date();
    app.events.push({
      type: 'audit.app.process.crash', created_at: `${at.toISOString().slice(0, 19)}Z`,
      data: { index: app.crashing.index, crash_count: app.events.length + 1, crash_timestamp: at.getTime() * 1e6, exit_description: 'APP/PROC/WEB: Exited with status 1' },
    });
  }
  return { resources };
}

function recentLog(app) {
  const at = '2026-11-28T02:28:20.00+0000';
  const i = app.crashing ? app.crashing.index : 0;
  return [
    `   ${at} [API/0] OUT Updated app`,
    `   ${at} [APP/PROC/WEB/${i}] ERR ${app.crashing ? app.crashing.line : 'fine'}`,
    `   ${at} [APP/PROC/WEB/${i}] ERR     at Object.<anonymous> (server.js:1:1)`,
    `   ${at} [APP/PROC/WEB/${i === 0 ? 1 : 0}] ERR another instance's line`,
    `   ${at} [CELL/${i}] OUT Exit status 1`,
  ].join('\n');
}

function curl() {
  const method = args[0] === '-X' ? args[1] : 'GET';
  const apiPath = args[0] === '-X' ? args[2] : args[0];
  const body = args.includes('-d') ? args[args.indexOf('-d') + 1] : null;
  if (apiPath.startsWith('/v3/service_instances')) return out({ resources: SERVICES.map((name) => ({ name })) });
  const m = /^\/v3\/apps\/([^/?]+)(\/[^?]*)?/.exec(apiPath);
  const events = /^\/v3\/audit_events\?target_guids=([^&]+)&.*created_ats\[gte\]=([^&]+)/.exec(apiPath);
  if (events) {
    const since = Date.parse(events[2]);
    return out({ resources: (appOf(events[1]).events || []).filter((e) => Date.parse(e.created_at) >= since) });
  }
  const app = m && appOf(m[1]);
  if (!app) return fail(`fake-cf: curl ${method} ${apiPath}: unknown`);
  const rest = m[2] || '';
  if (rest === '/environment_variables' && method === 'PATCH') {
    if (!body.startsWith('@')) return fail('fake-cf: a PATCH body must come from a file');
    call.bodyMode = fs.statSync(body.slice(1)).mode & 0o777;
    Object.assign(app.env, JSON.parse(fs.readFileSync(body.slice(1), 'utf8')).var);
    return out({ var: app.env });
  }
  if (rest === '/environment_variables') return out({ var: app.env });
  if (rest === '/processes/web/stats') return out(stats(app));
  if (rest === '' && method === 'GET') return out({ guid: m[1], state: 'STARTED' });
  if (/^\/actions\/(start|restart)$/.test(rest) && method === 'POST') return out({ guid: m[1], state: 'STARTED' });
  return fail(`fake-cf: curl ${method} ${apiPath}: unknown`);
}

if (verb === 'oauth-token') out('bearer fake');
else if (verb === 'target') out('api: fake');
else if (verb === 'app' && args[1] === '--guid') {
  if (state.apps[args[0]]) out(guidOf(args[0]));
  else fail(`App '${args[0]}' not found.`);
} else if (verb === 'create-app') state.apps[args[0]] = { env: {}, instances: 1, crashing: null };
else if (verb === 'push') state.apps[args[0]] = state.apps[args[0]] || { env: {}, instances: 1, crashing: null };
else if (verb === 'scale' && args[1] === '-i') state.apps[args[0]].instances = Number(args[2]);
else if (verb === 'logs' && args[1] === '--recent') out(recentLog(state.apps[args[0]]));
else if (verb === 'curl') curl();
else fail(`fake-cf: not a call push.sh or scale.sh makes: ${argv.join(' ')}`);

fs.writeFileSync(STATE, JSON.stringify(state));
fs.appendFileSync(process.env.FAKE_CF_CALLS, `${JSON.stringify(call)}\n`);
