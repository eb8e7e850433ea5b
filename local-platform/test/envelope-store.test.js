// The local log-cache store reads as log-cache does: [start_time, end_time), limit
// (default 100, at most 1000), descending, envelope types; timestamps strictly increase so
// the CLI's walk (next start = last timestamp + 1) loses no line written in the same ms.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { EnvelopeStore } = require('../lib/cc-api/envelope-store');

const q = (o) => new URLSearchParams(o);
const text = (envs) => envs.map((e) => Buffer.from(e.log.payload, 'base64').toString('utf8'));

test('lines written in the same millisecond get distinct, increasing timestamps', () => {
  const s = new EnvelopeStore();
  for (let i = 0; i < 5; i++) s.add('g', 'APP/PROC/WEB/0', 'OUT', `line ${i}`, {}, 1700000000000);
  const envs = s.read('g', q({}));
  const ts = envs.map((e) => BigInt(e.timestamp));
  assert.deepEqual(ts, [0n, 1n, 2n, 3n, 4n].map((n) => 1700000000000n * 1000000n + n));
  // Walking on from the second one's timestamp + 1 finds the rest.
  assert.deepEqual(text(s.read('g', q({ start_time: String(ts[1] + 1n) }))), ['line 2', 'line 3', 'line 4']);
});

test('envelopes carry source type, instance id, stream and the payload in base64', () => {
  const s = new EnvelopeStore();
  s.add('g', 'APP/PROC/WEB/1', 'ERR', 'boom', { app_name: 'a' });
  s.add('g', 'RTR/0', 'OUT', 'a.localhost - [..] "GET / HTTP/1.1" 200');
  const [app, rtr] = s.read('g', q({ envelope_types: 'LOG' }));
  assert.deepEqual({ ...app, timestamp: undefined }, {
    timestamp: undefined, source_id: 'g', instance_id: '1', deprecated_tags: {},
    tags: { app_name: 'a', source_type: 'APP/PROC/WEB' },
    log: { payload: Buffer.from('boom').toString('base64'), type: 'ERR' },
  });
  assert.equal(rtr.tags.source_type, 'RTR');
  assert.equal(rtr.instance_id, '0');
  assert.deepEqual(s.read('g', q({ envelope_types: 'GAUGE' })), []);
  assert.deepEqual(s.read('other', q({})), []);
});

test('limit, descending, end_time exclusive; log-cache\'s errors for a bad window or limit', () => {
  const s = new EnvelopeStore();
  for (let i = 0; i < 150; i++) s.add('g', 'APP/PROC/WEB/0', 'OUT', `l${i}`, {}, 1000 + i);
  assert.equal(s.read('g', q({})).length, 100);
  assert.deepEqual(text(s.read('g', q({ descending: 'true', limit: '2' }))), ['l149', 'l148']);
  assert.deepEqual(text(s.read('g', q({ start_time: String(1001n * 1000000n), end_time: String(1003n * 1000000n) }))), ['l1', 'l2']);
  // cf logs --recent: start_time is the zero time.Time's UnixNano.
  assert.equal(s.read('g', q({ start_time: '-6795364578871345152', limit: '1000', descending: 'true' })).length, 150);
  assert.throws(() => s.read('g', q({ limit: '1001' })), /Limit \(1001\) must be 1000 or less/);
  assert.throws(() => s.read('g', q({ start_time: '5', end_time: '4' })), /StartTime \(5\) must be before EndTime \(4\)/);
});

test('a source keeps its newest envelopes only', () => {
  const s = new EnvelopeStore(10);
  for (let i = 0; i < 30; i++) s.add('g', 'APP/PROC/WEB/0', 'OUT', `l${i}`);
  const kept = text(s.read('g', q({ limit: '1000' })));
  assert.ok(kept.length >= 10 && kept.length <= 11, `${kept.length} kept`);
  assert.equal(kept[kept.length - 1], 'l29');
});
