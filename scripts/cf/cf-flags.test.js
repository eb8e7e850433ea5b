'use strict';
// Every cf invocation the scripts use, checked against the REAL cf CLI (v8.17.0, built
// by tools/build.sh into .tools/bin/cf): the verb exists and each flag is one its
// `cf VERB --help` lists. Sources of invocations:
//   * a table of the exact commands the scripts run on CF (kept beside the scripts' help);
//   * harvested from scripts/**/*.sh: `cf_run VERB …` / `cf_query VERB …` lines and
//     `cf …` spans in backticks (the documented commands in headers and messages);
//   * harvested from scripts/**/*.js (not tests): `cfRun('VERB', …)` / `cfQuery('VERB', …)`
//     calls with their literal flags (calls that spread an array, `cfRun(...args)`, are the
//     table's), and `cf …` spans in backticks in comments and messages;
//   * `scripts/tunnel.sh --platform cf --dry-run` output (it prints every command).
// `cf statistics` is a plugin verb (docs/cf-platform.md §1): not
// in the binary, skipped by name (and checked to really be absent). The local platform's
// own verbs run through cflRun/cflQuery (scripts/cfl up|down|status|api-url|router-url)
// and are not harvested: every harvested call is a real cf command on both platforms.
// Skipped as a whole when .tools/bin/cf is not built.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const CF = path.join(ROOT, '.tools', 'bin', 'cf');
const PLUGIN_VERBS = new Set(['statistics', 'stats']);

// The exact invocations the scripts run on CF (see each script's header).
const TABLE = [
  'cf push node-app -f manifests/node-app.yml --vars-file manifests/vars.yml -i 2',
  'cf push -f manifests/chisel.yml --vars-file manifests/vars.yml',
  'cf push node-app -f manifests/node-app.yml --vars-file manifests/vars.yml --var node-memory=400M --strategy rolling --no-start',
  'cf scale node-app -i 4',
  'cf update-route apps.example.com --hostname node-app -o loadbalancing=least-connection',
  'cf app node-app --guid',
  'cf curl /v3/apps/GUID/processes/web/stats',
  'cf curl /v3/apps/GUID/env',
  'cf logs node-app',
  'cf logs node-app --recent',
  'cf start node-app',
  'cf stop node-app',
  'cf restart node-app',
  'cf restart-app-instance node-app 1',
  'cf set-env node-app DB_POOL_SIZE 30',
  'cf bind-service chisel results-db',
  'cf create-service OFFERING PLAN results-db',
  'cf delete node-app -f',
  'cf delete-service node-db -f',
  'cf oauth-token',
  'cf target -o ORG -s SPACE',
  'cf login -a https://api.example.com',
  'cf plugins',
  'cf version',
];

const helpCache = new Map();
let cfHome;

/** The flags `cf VERB --help` lists, or null when the verb is unknown. */
function flagsOf(verb) {
  if (helpCache.has(verb)) return helpCache.get(verb);
  const r = spawnSync(CF, [verb, '--help'], { encoding: 'utf8', env: { ...process.env, CF_HOME: cfHome, CF_COLOR: 'false' } });
  let flags = null;
  if (r.status === 0 && /USAGE:/.test(r.stdout)) {
    flags = new Set();
    const options = r.stdout.split(/^OPTIONS:$/m)[1] || '';
    for (const line of options.split('\n')) {
      if (/^[A-Z]/.test(line)) break; // next section
      const m = /^\s+(--?[a-zA-Z][\w-]*)(?:,\s+(--?[a-zA-Z][\w-]*))?/.exec(line);
      if (m) {
        flags.add(m[1]);
        if (m[2]) flags.add(m[2]);
      }
    }
  }
  helpCache.set(verb, flags);
  return flags;
}

/** Verb and flags of a command line (`cf VERB args…`). Stops at redirections and pipes. */
function parseInvocation(line) {
  const words = line.trim().split(/\s+/);
  assert.equal(words[0], 'cf', line);
  const verb = words[1];
  const flags = [];
  for (const w of words.slice(2)) {
    if (/^(\d?>|\||;|&&|\))/.test(w)) break;
    const m = /^(--?[a-zA-Z][\w-]*)(=.*)?$/.exec(w.replace(/^["']|["']$/g, ''));
    if (m) flags.push(m[1]);
  }
  return { verb, flags };
}

/** Files under dir (node_modules aside) whose name passes keep. */
function filesUnder(dir, keep) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, keep));
    else if (keep(e.name)) out.push(p);
  }
  return out;
}

/** `cfRun('VERB', 'arg', '--flag', …)` / `cfQuery(…)` calls of a JS source: cf command lines. */
function jsInvocations(text) {
  const lines = [];
  for (const m of text.matchAll(/\bcf(?:Run|Query)\(\s*'([a-z][a-z-]*)'([^)]*)\)/g)) {
    const flags = [...m[2].matchAll(/['`](--?[a-zA-Z][\w-]*)['`]/g)].map((f) => f[1]);
    lines.push(`cf ${m[1]} ${flags.join(' ')}`);
  }
  return lines;
}

/** Invocations harvested from the scripts: [{where, line, harvested: true}]. */
function harvest() {
  const found = [];
  const jsSources = filesUnder(path.join(ROOT, 'scripts'), (n) => n.endsWith('.js') && !n.endsWith('.test.js'));
  for (const file of jsSources) {
    const rel = path.relative(ROOT, file);
    const text = fs.readFileSync(file, 'utf8');
    for (const line of jsInvocations(text)) found.push({ where: rel, line, harvested: true });
    for (const m of text.matchAll(/`cf ([a-z][^`$]*)`/g)) found.push({ where: rel, line: `cf ${m[1]}`, harvested: true });
  }
  for (const file of filesUnder(path.join(ROOT, 'scripts'), (n) => n.endsWith('.sh'))) {
    const rel = path.relative(ROOT, file);
    fs.readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
      const where = `${rel}:${i + 1}`;
      const code = /^\s*#/.test(text) ? '' : text;
      for (const m of code.matchAll(/\bcf_(?:run|query)\s+([a-z][a-z-]*)([^\n]*)/g)) {
        found.push({ where, line: `cf ${m[1]} ${m[2]}`, harvested: true });
      }
      for (const m of text.matchAll(/`cf ([a-z][^`]*)`/g)) found.push({ where, line: `cf ${m[1]}`, harvested: true });
    });
  }
  return found;
}

function tunnelDryRun() {
  const r = spawnSync(path.join(ROOT, 'scripts', 'tunnel.sh'), ['--platform', 'cf', '--dry-run'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('cf '));
  assert.ok(lines.length >= 5, r.stdout);
  return lines.map((line) => ({ where: 'tunnel.sh --dry-run', line }));
}

test('cf invocations are accepted by the real cf CLI', { skip: !fs.existsSync(CF) && 'cf not built (scripts/setup.sh builds .tools/bin/cf)' }, async (t) => {
  cfHome = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-flags-'));
  t.after(() => fs.rmSync(cfHome, { recursive: true, force: true }));
  const all = [...TABLE.map((line) => ({ where: 'table', line })), ...harvest(), ...tunnelDryRun()];
  const seen = new Set();
  let checked = 0;
  for (const inv of all) {
    const { verb, flags } = parseInvocation(inv.line);
    const key = `${verb} ${flags.join(' ')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (PLUGIN_VERBS.has(verb)) {
      await t.test(`${inv.where}: cf ${verb} is a plugin verb, skipped`, () => {
        assert.equal(flagsOf(verb), null, `cf ${verb} unexpectedly built in`);
      });
      continue;
    }
    checked++;
    await t.test(`${inv.where}: ${key}`, () => {
      const known = flagsOf(verb);
      assert.ok(known, `cf ${verb}: not a cf command (${inv.line})`);
      for (const f of flags) assert.ok(known.has(f), `cf ${verb} has no flag ${f} (knows ${[...known].join(' ')})`);
    });
  }
  assert.ok(checked >= TABLE.length, 'the table is checked');
});

test('JS calls are harvested with their literal flags', () => {
  assert.deepEqual(jsInvocations("p.cfRun('update-route', domain, '--hostname', host, '-o', `x`);\nthis.cfQuery('app', app, '--guid', { stderr: 'ignore' });\np.cfRun(...args);"),
    ['cf update-route --hostname -o', 'cf app --guid']);
  const fromRound = harvest().filter((inv) => inv.where === 'scripts/round/app-steps.js').map((inv) => inv.line);
  assert.ok(fromRound.includes('cf update-route --hostname -o'), fromRound.join('\n'));
});

test('a wrong flag is caught (the check can fail)', { skip: !fs.existsSync(CF) && 'cf not built' }, () => {
  cfHome = cfHome && fs.existsSync(cfHome) ? cfHome : fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-flags-'));
  try {
    assert.ok(flagsOf('push').has('--vars-file'));
    assert.ok(!flagsOf('push').has('--vars'));
    assert.ok(!flagsOf('scale').has('--cpu'), 'cf scale has no --cpu');
    assert.equal(flagsOf('no-such-verb'), null);
  } finally {
    fs.rmSync(cfHome, { recursive: true, force: true });
  }
});
