'use strict';
// One parser serves both platforms: what the local platform (local-platform/) prints for
// `cfl logs`, `cfl statistics` and `cfl curl …/stats` must parse here exactly like CF's
// output. Built with the local platform's own formatting functions, so a drift on either
// side fails this test.

const test = require('node:test');
const assert = require('node:assert/strict');
const { toRtrLine } = require('../../local-platform/lib/rtr-log');
const { formatLine } = require('../../local-platform/lib/app-log');
const { pluginLines, v3Stats } = require('../../local-platform/lib/instance-usage');
const { parseRtrLine } = require('./rtr-parser');
const { statsRows } = require('./stats-parser');
const { JsonStream } = require('./json-stream');

test('cfl logs RTR line → router_timings row', () => {
  const rec = { ts: 1772366405, ms: 123, host: 'node-app.localhost:8888', m: 'GET', u: '/ads/7', v: 'HTTP/1.1', st: 200,
    bin: 0, rcl: 181, bout: 300, ref: '-', ua: 'cfscale-loadgen', ci: '127.0.0.1', cp: 50000, si: '127.0.0.1', sp: 61001,
    xff: '-', xfp: '-', id: 'f00d-1', ta: 12, tr: 10, cid: '0190a0b0-c0d0-7e00-8000-000000000abc' };
  const line = formatLine('RTR/0', 'OUT', toRtrLine(rec, { appGuid: 'g', index: 1, instanceGuid: 'i' }), new Date());
  assert.deepEqual(parseRtrLine(line), {
    at: '2026-03-01T12:00:05.123000Z', method: 'GET', path: '/ads/7', status: 200, bytes_sent: 181,
    response_time_us: 12000, gorouter_time_us: 2000, app_index: 1, vcap_request_id: 'f00d-1',
    correlation_id: '0190a0b0-c0d0-7e00-8000-000000000abc',
  });
});

const app = { name: 'node-app', state: 'STARTED', instances: 11, routes: ['node-app.localhost'], memoryMb: 200, diskMb: 1024 };
const now = new Date('2026-03-01T12:00:05.600Z');
const instances = Array.from({ length: 11 }, (_, index) => ({
  index, state: index === 3 ? 'CRASHED' : 'RUNNING', port: 61000 + index, since: new Date(now - 60000), guid: `g${index}`,
  usage: { cpu: index / 10, mem: 1000 + index, disk: 0 },
}));

test('cfl statistics --debug --full lines → local rows, index as integer, cpu_quota', () => {
  const lines = pluginLines(app, instances, 0.2, now);
  assert.equal(JSON.parse(lines[2]).instance_index, '10', 'string order 0,1,10,2,…');
  const rows = [];
  const s = new JsonStream((v) => rows.push(...statsRows(v, { platform: 'local', readAt: now }).rows));
  s.write(`${lines.join('\n')}\n`);
  s.end();
  assert.equal(rows.length, 11);
  const r10 = rows.find((r) => r.instance_index === 10);
  assert.deepEqual(r10, { instance_index: 10, sampled_at: '2026-03-01T12:00:05.000Z', state: 'RUNNING', cpu: 1,
    cpu_entitlement: null, mem_bytes: 1010, mem_quota_bytes: 200 * 1024 * 1024, cpu_quota_cores: 0.2, disk_bytes: 0,
    disk_quota_bytes: 1024 * 1024 * 1024, uptime_s: 60, source: 'local', host: '127.0.0.1' });
  assert.equal(rows.find((r) => r.instance_index === 3).state, 'CRASHED');
});

test('cfl curl /v3/apps/GUID/processes/web/stats → v3 rows', () => {
  const doc = v3Stats(app, instances, 0.2, now);
  const { rows, skipped } = statsRows(JSON.parse(JSON.stringify(doc)), { platform: 'local', readAt: now });
  assert.deepEqual(skipped, []);
  assert.equal(rows.length, 11);
  assert.equal(rows[1].source, 'v3');
  assert.equal(rows[1].cpu_entitlement, 0.5);
  assert.equal(rows[3].state, 'CRASHED');
  assert.equal(rows[3].cpu, null);
});
