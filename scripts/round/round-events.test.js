'use strict';
// Events inside a round (run-round.sh --event): the flag parsed into its type and checked
// against the round (table), the cf command of each kind, what the watch makes of Cloud
// Controller's answers (a scripted look-up, no platform), and the summary's lines.

const test = require('node:test');
const assert = require('node:assert/strict');
const { parseEvents, eventCommand, instancesVar, EventError } = require('../../lib/round-events');
const { watchEvent } = require('./event-watch');
const { eventLines } = require('./event-summary');

const ROUND = { instances: 2, durationMs: 60000 };

test('--event: parsed once into time order, each with its counts before and after', () => {
  assert.deepEqual(parseEvents(['40s:scale=1', '20s:scale=4', '50s:deploy', '55s:restart'], ROUND), [
    { atMs: 20000, kind: 'scale', instances: 4, before: 2 },
    { atMs: 40000, kind: 'scale', instances: 1, before: 4 },
    { atMs: 50000, kind: 'deploy', instances: 1, before: 1 },
    { atMs: 55000, kind: 'restart', instances: 1, before: 1 },
  ]);
  assert.deepEqual(parseEvents([], { instances: 2, durationMs: null }), []);
});

const BAD = [
  [['20s'], /must be AT:scale=N, AT:deploy or AT:restart/],
  [['20s:scale=x'], /must be AT:scale=N/],
  [['20s:roll'], /must be AT:scale=N/],
  [['soon:deploy'], /"soon" is not a duration/],
  [['60s:scale=3'], /60s is not inside the 60s measured window/],
  [['20s:scale=2'], /the app has 2 instance\(s\) then; the event would change nothing/],
  [['20s:scale=0'], /scale to at least 1 instance/],
  [['20s:scale=3', '20s:deploy'], /another event is at the same time/],
];
for (const [texts, want] of BAD) {
  test(`--event ${texts.join(' ')} is refused with one line`, () => assert.throws(() => parseEvents(texts, ROUND), (e) => e instanceof EventError && want.test(e.message)));
}

test('--event with --requests: refused, a round by count has no time', () => {
  assert.throws(() => parseEvents(['20s:deploy'], { instances: 2, durationMs: null }), /--event needs --duration/);
});

test("each kind's cf command; a rolling push keeps the app's count through the manifest's variable", () => {
  const ctx = { app: 'node-app', varsFile: 'manifests/vars-local.yml', manifestDir: 'manifests', instancesVar: 'node-instances' };
  const [scale, deploy, restart] = parseEvents(['10s:scale=4', '20s:deploy', '30s:restart'], ROUND);
  assert.deepEqual(eventCommand(scale, ctx), ['scale', 'node-app', '-i', '4']);
  assert.deepEqual(eventCommand(deploy, ctx), ['push', 'node-app', '-f', 'manifests/node-app.yml', '--vars-file', 'manifests/vars-local.yml',
    '--strategy', 'rolling', '--redact-env', '--var', 'node-instances=4']);
  assert.deepEqual(eventCommand(restart, ctx), ['restart', 'node-app', '--strategy', 'rolling']);
  assert.equal(instancesVar('applications:\n- name: x\n  instances: ((java-instances))\n'), 'java-instances');
  assert.equal(instancesVar('applications:\n- name: x\n  instances: 3\n'), null);
});

// A look-up that answers from a script: one answer per path per call, the last one repeated.
function scripted(answers) {
  const calls = new Map();
  return async (apiPath) => {
    const key = Object.keys(answers).find((k) => apiPath.startsWith(k));
    if (!key) throw new Error(`unexpected look-up ${apiPath}`);
    const n = calls.get(key) || 0;
    calls.set(key, n + 1);
    const list = answers[key];
    return list[Math.min(n, list.length - 1)];
  };
}
const inst = (index, guid, state) => ({ index, instance_guid: guid, state });

test('watch a scale-out: each new index listed, then RUNNING; settled once all run', async () => {
  const before = [inst(0, 'a', 'RUNNING'), inst(1, 'b', 'RUNNING')];
  const look = scripted({ '/v3/apps/G/processes/web/stats': [
    { resources: before },
    { resources: [...before, inst(2, 'c', 'STARTING'), inst(3, 'd', 'STARTING')] },
    { resources: [...before, inst(2, 'c', 'RUNNING'), inst(3, 'd', 'STARTING')] },
    { resources: [...before, inst(2, 'c', 'RUNNING'), inst(3, 'd', 'RUNNING')] },
  ] });
  const [ev] = parseEvents(['20s:scale=4'], ROUND);
  const t0 = new Date();
  const seen = await watchEvent({ look, ev, appGuid: 'G', before, t0, commandDone: () => 0, deadlineMs: Date.now() + 10000 });
  assert.ok(seen.settled_at);
  assert.deepEqual(seen.instances.map((i) => [i.role, i.instance_index, i.instance_guid]), [['new', 2, 'c'], ['new', 3, 'd']]);
  const [c, d] = seen.instances;
  assert.ok(c.seen_at <= c.running_at && c.running_at < d.running_at, 'c ran a look-up before d');
});

test('watch a scale-in: the indexes past the new count are the stopped ones; settled when the command ended and stats agree', async () => {
  const before = [inst(0, 'a', 'RUNNING'), inst(1, 'b', 'RUNNING'), inst(2, 'c', 'RUNNING')];
  const look = scripted({ '/v3/apps/G/processes/web/stats': [{ resources: before }, { resources: [before[0]] }] });
  const [ev] = parseEvents(['20s:scale=1'], { instances: 3, durationMs: 60000 });
  let code;
  setTimeout(() => { code = 0; }, 300);
  const seen = await watchEvent({ look, ev, appGuid: 'G', before, t0: new Date(), commandDone: () => code, deadlineMs: Date.now() + 10000 });
  assert.ok(seen.settled_at);
  assert.deepEqual(seen.instances.map((i) => [i.role, i.instance_index, i.instance_guid]), [['stopped', 1, 'b'], ['stopped', 2, 'c']]);
});

test("watch a rolling deployment: found by app and time, its new process's instances, settled when FINALIZED; every old one stopped", async () => {
  const before = [inst(0, 'a', 'RUNNING'), inst(1, 'b', 'RUNNING')];
  const old = { guid: 'old', created_at: '2000-01-01T00:00:00Z' };
  const dep = { guid: 'D', created_at: new Date(Date.now() + 1000).toISOString().replace(/\.\d+Z$/, 'Z'), new_processes: [{ guid: 'P' }] };
  const look = scripted({
    '/v3/deployments?': [{ resources: [old] }, { resources: [dep] }],
    '/v3/deployments/D': [{ ...dep, status: { value: 'ACTIVE', reason: 'DEPLOYING' } }, { ...dep, status: { value: 'ACTIVE', reason: 'DEPLOYING' } },
      { ...dep, status: { value: 'FINALIZED', reason: 'DEPLOYED' } }],
    '/v3/processes/P/stats': [{ resources: [inst(0, 'x', 'STARTING')] }, { resources: [inst(0, 'x', 'RUNNING'), inst(1, 'y', 'STARTING')] },
      { resources: [inst(0, 'x', 'RUNNING'), inst(1, 'y', 'RUNNING')] }],
  });
  const [ev] = parseEvents(['20s:deploy'], ROUND);
  const seen = await watchEvent({ look, ev, appGuid: 'G', before, t0: new Date(), commandDone: () => undefined, deadlineMs: Date.now() + 10000 });
  assert.equal(seen.deployment_guid, 'D');
  assert.ok(seen.settled_at);
  assert.equal(seen.detail, null);
  assert.deepEqual(seen.instances.map((i) => [i.role, i.instance_index, i.instance_guid, Boolean(i.running_at)]),
    [['new', 0, 'x', true], ['new', 1, 'y', true], ['stopped', 0, 'a', false], ['stopped', 1, 'b', false]]);
});

test('watch: a failed cf scale ends the watch at once, saying so', async () => {
  const look = scripted({ '/v3/apps/G/processes/web/stats': [{ resources: [inst(0, 'a', 'RUNNING')] }] });
  const [ev] = parseEvents(['20s:scale=4'], { instances: 1, durationMs: 60000 });
  const seen = await watchEvent({ look, ev, appGuid: 'G', before: [], t0: new Date(), commandDone: () => 1, deadlineMs: Date.now() + 10000 });
  assert.equal(seen.settled_at, null);
  assert.equal(seen.detail, 'the cf command failed (exit 1)');
});

test('summary: one line per new instance with "first served request" and its stages; stopped ones with SIGTERM and errors', () => {
  const t0 = new Date('2026-01-01T00:00:20Z');
  const at = (sec) => new Date(t0.getTime() + sec * 1000);
  const lines = eventLines({
    events: [{ seq: 1, kind: 'scale', at_ms: 20000, instances_before: 2, instances_after: 4, t0, command: 'cf scale node-app -i 4',
      exit_code: 0, command_ms: 1500, settled_at: at(3), detail: null }],
    traffic: [{ seq: 1, baseline_p50_us: 1000, baseline_p99_us: 4000, baseline_errors: '0', baseline_samples: '9000', old_p50_us: 1100,
      old_p99_us: 5000, old_errors: '0', old_samples: '20000', errors: '2', errors_by_kind: { reset: 2 }, errors_by_instance: { 1: 2 } }],
    stages: [
      { seq: 1, kind: 'scale', role: 'new', instance_index: 2, t0, seen_at: at(0.5), running_at: at(1.5), routable_at: at(1.6), first_served_at: at(1.7),
        queued_ms: 500, starting_ms: 1000, routing_ms: 100, first_request_ms: 100, end_to_end_ms: 1700, first_60s_p99_us: 8000, first_60s_p99_pct: 200, first_60s_samples: '3000' },
      { seq: 1, kind: 'scale', role: 'new', instance_index: 3, t0, seen_at: at(0.5), running_at: null, routable_at: null, first_served_at: null },
    ],
  });
  assert.match(lines.join('\n'), /event 1 at 20\.0 s: scale 2 → 4 \(cf scale node-app -i 4: exit 0 after 1\.50 s; settled \+3\.00 s\)/);
  assert.match(lines.join('\n'), /old instances in \[t0 - 30 s, t0 \+ 60 s\]: p50 1\.10 ms, p99 5\.00 ms \(125 % of steady\)/);
  assert.match(lines.join('\n'), /errors in \[t0, t0 \+ 60 s\]: 2 \(reset 2; by instance: 1 2\)/);
  const served = lines.filter((l) => /first served request/.test(l));
  assert.equal(served.length, 1, 'an instance that served nothing has no such line');
  assert.match(served[0], /instance 2 \(new\): first served request after 1\.70 s: queued 0\.50 s \+ starting 1\.00 s \+ routing 0\.10 s \+ answering 0\.10 s; its first 60 s p99 8\.00 ms \(200 % of the steady p99, 3000 requests\)/);
  assert.match(lines.join('\n'), /instance 3 \(new\): never served a request in the round/);
});
