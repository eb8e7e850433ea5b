'use strict';
// timing-buffer.test.js — the buffer's bounds and counters, COPY formatting, cluster sums.

const test = require('node:test');
const assert = require('node:assert/strict');
const { TimingBuffer, ROUTE_GET_AD, ROUTE_NONE } = require('./timing-buffer');
const { copyLines, isoMicros } = require('./timings-flusher');
const { combine } = require('./cluster-timings');

function fill(buffer, n, from = 0) {
  for (let i = from; i < from + n; i++) buffer.record(`id-${i}`, ROUTE_GET_AD, 200, 1e15 + i, i, 0, i / 2);
}

test('the buffer keeps at most capacity records and counts the rest as dropped', () => {
  const b = new TimingBuffer(3, true);
  fill(b, 5);
  assert.equal(b.count, 3);
  assert.equal(b.dropped, 2);
  assert.deepEqual(
    [0, 1, 2].map((i) => b.get(i).correlationId),
    ['id-0', 'id-1', 'id-2'],
  );
});

test('recording off keeps and counts nothing', () => {
  const b = new TimingBuffer(3, false);
  fill(b, 5);
  assert.equal(b.count, 0);
  assert.equal(b.dropped, 0);
  b.recording = true;
  fill(b, 1);
  assert.equal(b.count, 1);
});

test('removeFirst keeps the newer records in order (a partial flush)', () => {
  const b = new TimingBuffer(5, true);
  fill(b, 5);
  b.removeFirst(2);
  assert.equal(b.count, 3);
  assert.deepEqual(b.get(0), { correlationId: 'id-2', route: 'GET /ads/{id}', status: 200, startedUs: 1e15 + 2, handlerUs: 2, poolWaitUs: 0, dbUs: 1 });
  assert.equal(b.get(2).correlationId, 'id-4');
  assert.equal(b.correlationIds[3], ''); // no references kept past count
  fill(b, 2, 10);
  assert.equal(b.get(4).correlationId, 'id-11');
});

test('clear empties the buffer and the dropped counter', () => {
  const b = new TimingBuffer(2, true);
  fill(b, 4);
  assert.equal(b.clear(), 2);
  assert.equal(b.count, 0);
  assert.equal(b.dropped, 0);
  fill(b, 1);
  assert.equal(b.get(0).correlationId, 'id-0');
});

test('isoMicros keeps microseconds, UTC', () => {
  assert.equal(isoMicros(Date.UTC(2026, 10, 21, 13, 17, 1, 123) * 1000 + 456.7), '2026-11-21T13:17:01.123456Z');
  assert.equal(isoMicros(Date.UTC(2026, 0, 1) * 1000 + 5), '2026-01-01T00:00:00.000005Z');
});

test('copyLines writes COPY text rows, escaping and NULL round', () => {
  const b = new TimingBuffer(2, true);
  b.record('a\\b\tc', ROUTE_NONE, 404, Date.UTC(2026, 0, 1) * 1000, 12.6, 3.2, 0);
  assert.equal(
    copyLines(b, 0, 1, null, 'node\tapp', 2),
    '\\N\tnode\\tapp\t2\ta\\\\b\\tc\t-\t404\t2026-01-01T00:00:00.000000Z\t13\t3\t0\n',
  );
  assert.match(copyLines(b, 0, 1, '7', 'node-app', 0), /^7\tnode-app\t0\t/);
});

test('cluster answers are sums over the workers', () => {
  const s = { recording: true, count: 2, dropped: 1, capacity: 10 };
  assert.deepEqual(combine('state', [s, { ...s, recording: false }]), { recording: true, count: 4, dropped: 2, capacity: 20 });
  assert.deepEqual(combine('flush', [{ flushed: 3 }, { flushed: 4 }]), { flushed: 7 });
  assert.deepEqual(combine('clear', [{ cleared: 1 }, { cleared: 0 }]), { cleared: 1 });
  assert.deepEqual(combine('recording', [{ recording: false }, { recording: false }]), { recording: false });
  assert.deepEqual(combine('flush', [{ flushed: 3 }, { error: 'results-unavailable' }]), { error: 'results-unavailable' });
  assert.deepEqual(combine('flush', [{ error: 'internal' }, { error: 'results-unavailable' }]), { error: 'internal' });
});
