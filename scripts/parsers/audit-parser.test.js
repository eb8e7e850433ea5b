'use strict';
// Table-driven tests of audit-parser.js on v3 audit_events documents.

const test = require('node:test');
const assert = require('node:assert/strict');
const { auditRows } = require('./audit-parser');

function event(overrides) {
  return {
    guid: 'e1', created_at: '2026-03-01T12:00:05Z', type: 'audit.app.process.crash',
    actor: { guid: 'a', type: 'process', name: 'web' }, target: { guid: 'app-guid', type: 'app', name: 'node-app' },
    data: { index: 1, exit_description: 'APP/PROC/WEB: Exited with status 137 (out of memory)', reason: 'CRASHED' },
    ...overrides,
  };
}

test('audit events → rows', async (t) => {
  const cases = [
    { name: 'oom', events: [event({})],
      rows: [{ instance_index: 1, at: '2026-03-01T12:00:05.000Z', kind: 'oom', detail: 'CRASHED: APP/PROC/WEB: Exited with status 137 (out of memory)' }] },
    { name: 'local platform oom wording', events: [event({ data: { index: 0, exit_description: 'out of memory', reason: 'CRASHED' } })],
      rows: [{ instance_index: 0, at: '2026-03-01T12:00:05.000Z', kind: 'oom', detail: 'CRASHED: out of memory' }] },
    { name: 'plain crash', events: [event({ data: { index: 2, exit_description: 'APP/PROC/WEB: Exited with status 1', reason: 'CRASHED' } })],
      rows: [{ instance_index: 2, at: '2026-03-01T12:00:05.000Z', kind: 'crash', detail: 'CRASHED: APP/PROC/WEB: Exited with status 1' }] },
    { name: 'index as string, no description', events: [event({ data: { index: '4', reason: 'CRASHED' } })],
      rows: [{ instance_index: 4, at: '2026-03-01T12:00:05.000Z', kind: 'crash', detail: 'CRASHED' }] },
    { name: 'no data at all', events: [event({ data: null })],
      rows: [{ instance_index: null, at: '2026-03-01T12:00:05.000Z', kind: 'crash', detail: null }] },
    { name: 'other event types skipped', events: [event({ type: 'audit.app.update' }), event({ type: 'audit.app.process.rescheduling' })], rows: [], skipped: 2 },
    { name: 'bad created_at skipped', events: [event({ created_at: 'never' })], rows: [], skipped: 1 },
    { name: 'non-object resource skipped', events: [42, null], rows: [], skipped: 2 },
    { name: 'since filters older events', since: '2026-03-01T12:00:06Z',
      events: [event({}), event({ created_at: '2026-03-01T12:00:07Z' })],
      rows: [{ instance_index: 1, at: '2026-03-01T12:00:07.000Z', kind: 'oom', detail: 'CRASHED: APP/PROC/WEB: Exited with status 137 (out of memory)' }], skipped: 1 },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const r = auditRows({ pagination: { total_results: c.events.length }, resources: c.events }, { since: c.since });
      assert.deepEqual(r.rows, c.rows);
      assert.equal(r.skipped, c.skipped || 0);
    });
  }
});

test('not an audit_events document', () => {
  for (const doc of [null, [], {}, { resources: 'x' }, { errors: [{ detail: 'Unknown request' }] }]) {
    assert.throws(() => auditRows(doc), /not a v3 audit_events document/);
  }
});
