'use strict';
// Table-driven tests of json-stream.js and stats-parser.js on the documented shapes
// (docs/cf-platform.md §1, §2) and on junk.

const test = require('node:test');
const assert = require('node:assert/strict');
const { JsonStream } = require('./json-stream');
const { statsRows, StatsDeduper } = require('./stats-parser');

const READ_AT = new Date('2026-03-01T12:00:07.600Z');

// The composed examples of §1.
const PLUGIN_PLAIN = '{"instance_index":"0","metrics":{"time":"2026-03-01T12:00:05+00:00","cpu":0.734,"mem":187695104,"disk":142606336}}';
const PLUGIN_FULL = '{"instance_index":"0","metrics":{"state":"RUNNING","stats":{"name":"bb-node","uris":["bb-node.apps.example.com"],"host":"10.0.1.12","port":61012,"uptime":3600,"mem_quota":536870912,"disk_quota":1073741824,"fds_quota":16384,"usage":{"time":"2026-03-01T12:00:05+00:00","cpu":0.734,"mem":187695104,"disk":142606336}}}}';
const V3_DOC = {
  resources: [
    { type: 'web', index: 0, state: 'RUNNING', uptime: 120, mem_quota: 268435456, disk_quota: 1073741824,
      usage: { time: '2026-03-01T12:00:05Z', cpu: 1.42, cpu_entitlement: 2.5, mem: 100000000, disk: 5000, log_rate: 0 } },
    { type: 'web', index: 1, state: 'RUNNING', uptime: 100, mem_quota: null, disk_quota: null,
      usage: { time: '2026-03-01T12:00:05Z', cpu: 0.5, cpu_entitlement: null, mem: 90000000, disk: 4000 } },
    { type: 'web', index: 2, state: 'STARTING', uptime: 0, mem_quota: 268435456, usage: {} },
    { type: 'web', index: 3, state: 'RUNNING', uptime: 5, usage: {} },
  ],
};

function collect(text, split = 0) {
  const values = [];
  const s = new JsonStream((v) => values.push(v));
  if (split > 0) for (let i = 0; i < text.length; i += split) s.write(text.slice(i, i + split));
  else s.write(text);
  s.end();
  return { values, counts: s.counts };
}

test('json stream: values out of junk', async (t) => {
  const pretty = JSON.stringify(V3_DOC, null, 2);
  const cases = [
    { name: 'one plugin line', text: `${PLUGIN_FULL}\n`, values: 1, junk: 0, broken: 0 },
    { name: 'no trailing newline', text: PLUGIN_PLAIN, values: 1, junk: 0, broken: 0 },
    { name: 'ERROR, TIMEOUT and blank lines between values',
      text: `${PLUGIN_PLAIN}\n\nERROR: something {odd}\n${PLUGIN_FULL}\nTIMEOUT\n   \n${PLUGIN_PLAIN}\n`,
      values: 3, junk: 2, broken: 0 },
    { name: 'pretty-printed v3 documents, concatenated', text: `${pretty}\n${pretty}\n`, values: 2, junk: 0, broken: 0 },
    { name: 'two values on one line', text: `${PLUGIN_PLAIN}${PLUGIN_PLAIN}\n`, values: 2, junk: 0, broken: 0 },
    { name: 'a value cut off, then a new one in column 0',
      text: `${pretty.slice(0, 200)}\n${pretty}\n`, values: 1, junk: 0, broken: 1 },
    { name: 'a plugin line cut off mid-string', text: `${PLUGIN_FULL.slice(0, 60)}\n${PLUGIN_PLAIN}\n`, values: 1, junk: 0, broken: 1 },
    { name: 'strings with braces and escaped quotes',
      text: '{"a":"}{\\"x","b":[1,{"c":"]"}]}\n', values: 1, junk: 0, broken: 0 },
    { name: 'balanced but invalid JSON', text: `{nope}\n${PLUGIN_PLAIN}\n`, values: 1, junk: 0, broken: 1 },
    { name: 'cut off at EOF', text: `${PLUGIN_PLAIN}\n${PLUGIN_PLAIN.slice(0, 30)}`, values: 1, junk: 0, broken: 1 },
    { name: 'plain junk only', text: 'hello\nworld\n', values: 0, junk: 2, broken: 0 },
  ];
  for (const c of cases) {
    for (const split of [0, 1, 7]) {
      await t.test(`${c.name} (chunks of ${split || 'all'})`, () => {
        const { values, counts } = collect(c.text, split);
        assert.equal(values.length, c.values);
        assert.equal(counts.junkLines, c.junk);
        assert.equal(counts.brokenValues, c.broken);
      });
    }
  }
});

test('json stream: a value over the size limit is dropped and the stream goes on', () => {
  const values = [];
  const s = new JsonStream((v) => values.push(v), { maxValueBytes: 100 });
  s.write(`{"big":"${'x'.repeat(500)}"}\n${PLUGIN_PLAIN.slice(0, 99)}\n{"ok":1}\n`);
  s.end();
  assert.deepEqual(values, [{ ok: 1 }]);
  assert.ok(s.counts.brokenValues >= 2);
});

test('stats rows: plugin shape (§1)', async (t) => {
  const cases = [
    { name: 'full, cf', value: JSON.parse(PLUGIN_FULL), platform: 'cf',
      rows: [{ instance_index: 0, sampled_at: '2026-03-01T12:00:05.000Z', state: 'RUNNING', cpu: 0.734,
        cpu_entitlement: null, mem_bytes: 187695104, mem_quota_bytes: 536870912, cpu_quota_cores: null,
        disk_bytes: 142606336, disk_quota_bytes: 1073741824, uptime_s: 3600, source: 'plugin', host: '10.0.1.12' }] },
    { name: 'not full', value: JSON.parse(PLUGIN_PLAIN), platform: 'cf',
      rows: [{ instance_index: 0, sampled_at: '2026-03-01T12:00:05.000Z', state: null, cpu: 0.734,
        cpu_entitlement: null, mem_bytes: 187695104, mem_quota_bytes: null, cpu_quota_cores: null,
        disk_bytes: 142606336, disk_quota_bytes: null, uptime_s: null, source: 'plugin' }] },
    { name: 'local platform with cpu_quota, index "10"', platform: 'local',
      value: { instance_index: '10', metrics: { state: 'RUNNING', stats: { uptime: 3, mem_quota: 209715200, cpu_quota: 0.2,
        usage: { time: '2026-03-01T12:00:05.250Z', cpu: 0.19, mem: 50000000, disk: 0 } } } },
      rows: [{ instance_index: 10, sampled_at: '2026-03-01T12:00:05.250Z', state: 'RUNNING', cpu: 0.19,
        cpu_entitlement: null, mem_bytes: 50000000, mem_quota_bytes: 209715200, cpu_quota_cores: 0.2,
        disk_bytes: 0, disk_quota_bytes: null, uptime_s: 3, source: 'local' }] },
    { name: 'local platform with cpu_throttling: the cgroup counters', platform: 'local',
      value: { instance_index: '0', metrics: { state: 'RUNNING', stats: { uptime: 3, cpu_quota: 0.1,
        cpu_throttling: { periods: 120, throttled_periods: 110, throttled_us: 9500000 },
        usage: { time: '2026-03-01T12:00:05.250Z', cpu: 0.1, mem: 1, disk: 0 } } } },
      pick: { cpu_periods: 120, cpu_throttled_periods: 110, cpu_throttled_us: 9500000, cpu_quota_cores: 0.1 } },
    { name: 'DOWN instance: read second, no metrics', platform: 'cf',
      value: { instance_index: '1', metrics: { state: 'DOWN', stats: { uptime: 0 } } },
      rows: [{ instance_index: 1, sampled_at: '2026-03-01T12:00:07.000Z', state: 'DOWN', cpu: null,
        cpu_entitlement: null, mem_bytes: null, mem_quota_bytes: null, cpu_quota_cores: null,
        disk_bytes: null, disk_quota_bytes: null, uptime_s: 0, source: 'plugin' }] },
    { name: 'cpu over one core kept as is (§7)', platform: 'cf',
      value: { instance_index: '0', metrics: { time: '2026-03-01T12:00:05Z', cpu: 1.93, mem: 1, disk: 1 } },
      pick: { cpu: 1.93 } },
    { name: 'numeric index accepted', platform: 'cf',
      value: { instance_index: 2, metrics: { time: '2026-03-01T12:00:05Z', cpu: 0.1, mem: 1, disk: 1 } },
      pick: { instance_index: 2 } },
    { name: 'string numbers are not numbers', platform: 'cf',
      value: { instance_index: '0', metrics: { time: '2026-03-01T12:00:05Z', cpu: '0.5', mem: 'x', disk: null } },
      pick: { cpu: null, mem_bytes: null, disk_bytes: null } },
    { name: 'bad index', platform: 'cf', value: { instance_index: 'a', metrics: { time: '2026-03-01T12:00:05Z' } }, skipped: ['bad instance index'] },
    { name: 'negative index', platform: 'cf', value: { instance_index: '-1', metrics: { time: '2026-03-01T12:00:05Z' } }, skipped: ['bad instance index'] },
    { name: 'metrics missing', platform: 'cf', value: { instance_index: '0' }, skipped: ['metrics missing'] },
    { name: 'RUNNING without usage', platform: 'cf', value: { instance_index: '0', metrics: { state: 'RUNNING', stats: {} } }, skipped: ['no usage'] },
    { name: 'unparsable time', platform: 'cf', value: { instance_index: '0', metrics: { time: 'yesterday', cpu: 1 } }, skipped: ['no usage'] },
    { name: 'unknown shape', platform: 'cf', value: [1, 2], skipped: ['unknown shape'] },
    { name: 'null', platform: 'cf', value: null, skipped: ['unknown shape'] },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const { rows, skipped } = statsRows(c.value, { platform: c.platform, readAt: READ_AT });
      if (c.rows) assert.deepEqual(rows, c.rows);
      if (c.pick) for (const [k, v] of Object.entries(c.pick)) assert.equal(rows[0][k], v, k);
      assert.deepEqual(skipped, c.skipped || []);
    });
  }
});

test('stats rows: v3 document (§2): empty usage, null entitlement, null quotas', () => {
  const { rows, skipped } = statsRows(V3_DOC, { platform: 'cf', readAt: READ_AT });
  assert.deepEqual(skipped, ['no usage']); // index 3: RUNNING, usage {}
  assert.equal(rows.length, 3);
  assert.deepEqual(rows[0], { instance_index: 0, sampled_at: '2026-03-01T12:00:05.000Z', state: 'RUNNING',
    cpu: 1.42, cpu_entitlement: 2.5, mem_bytes: 100000000, mem_quota_bytes: 268435456, cpu_quota_cores: null,
    disk_bytes: 5000, disk_quota_bytes: 1073741824, uptime_s: 120, source: 'v3' });
  assert.equal(rows[1].cpu_entitlement, null);
  assert.equal(rows[1].mem_quota_bytes, null);
  assert.equal(rows[2].state, 'STARTING');
  assert.equal(rows[2].cpu, null);
  assert.equal(rows[2].sampled_at, '2026-03-01T12:00:07.000Z');
  // Placement: the v3 resource's host (the cell), when given; none without it.
  assert.equal(rows[0].host, undefined);
  const placed = { resources: [{ ...V3_DOC.resources[0], host: '10.0.16.7' }] };
  assert.equal(statsRows(placed, { platform: 'cf', readAt: READ_AT }).rows[0].host, '10.0.16.7');
  // a v3 document is v3 even on the local platform
  assert.equal(statsRows(V3_DOC, { platform: 'local', readAt: READ_AT }).rows[0].source, 'v3');
  // the local platform's throttling counters ride on the resource
  const local = JSON.parse(JSON.stringify(V3_DOC));
  local.resources[0].cpu_throttling = { periods: 10, throttled_periods: 4, throttled_us: 300 };
  const r0 = statsRows(local, { platform: 'local', readAt: READ_AT }).rows[0];
  assert.deepEqual([r0.cpu_periods, r0.cpu_throttled_periods, r0.cpu_throttled_us], [10, 4, 300]);
});

test('deduper: 1 s polls repeating one envelope keep one row per ~15 s (§1 Freshness)', () => {
  const d = new StatsDeduper(15);
  const row = (sec, cpu, index = 0) => ({ instance_index: index, sampled_at: new Date(Date.UTC(2026, 2, 1, 12, 0, sec)).toISOString(),
    state: 'RUNNING', cpu, cpu_entitlement: null, mem_bytes: 10, disk_bytes: 1, mem_quota_bytes: 100, cpu_quota_cores: null });
  const kept = [];
  for (let s = 0; s < 40; s++) {
    const cpu = s < 20 ? 0.5 : 0.7; // new envelope at 20 s
    if (d.keep(row(s, cpu))) kept.push(s);
    if (d.keep(row(s, 0.1, 1))) kept.push(`1@${s}`);
  }
  assert.deepEqual(kept, [0, '1@0', 15, '1@15', 20, '1@30', 35]);
});
