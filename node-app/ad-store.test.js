'use strict';
// ad-store.test.js — the ads table statement stays the one of results-schema.sql; which errors
// count as "database unavailable" (ad-store-timeout.test.js runs the timeouts for real).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { CREATE_ADS_TABLE, isConnectionError, statementError } = require('./ad-store');

test('CREATE_ADS_TABLE (ads-table.sql) is exactly the statement in results-schema.sql', () => {
  const schema = fs.readFileSync(path.join(__dirname, '..', 'results-schema.sql'), 'utf8');
  const statement = CREATE_ADS_TABLE.slice(CREATE_ADS_TABLE.indexOf('CREATE TABLE'));
  assert.ok(statement.startsWith('CREATE TABLE IF NOT EXISTS ads ('), 'ads-table.sql holds no ads statement');
  assert.ok(schema.includes(statement), 'ads-table.sql is stale: run node contract/readme-tables.js --write');
});

test('isConnectionError', () => {
  const withCode = (code, message = 'x') => Object.assign(new Error(message), { code });
  const down = [
    withCode('ECONNREFUSED'),
    withCode('ECONNRESET'),
    withCode('EPIPE'),
    withCode('08006'),
    withCode('08001'),
    withCode('57P01'),
    withCode('57P03'),
    withCode('53300'),
    new Error('timeout exceeded when trying to connect'),
    new Error('server closed the connection unexpectedly'),
    new Error('Connection terminated unexpectedly'),
  ];
  const notDown = [withCode('42P01'), withCode('23505'), withCode('22P02'), new TypeError('bug'), 'a string'];
  for (const e of down) assert.equal(isConnectionError(e), true, `${e.code} ${e.message}`);
  for (const e of notDown) assert.equal(isConnectionError(e), false, `${e.code} ${e.message ?? e}`);
});

test('statementError: trouble with the database is a 503, a bad statement is passed on', () => {
  const withCode = (code, message = 'x') => Object.assign(new Error(message), { code });
  const cases = [
    { name: 'statement_timeout (query_canceled)', err: withCode('57014', 'canceling statement due to statement timeout'), status: 503 },
    { name: 'client-side query_timeout', err: new Error('Query read timeout'), status: 503 },
    { name: 'connection reset', err: withCode('ECONNRESET'), status: 503 },
    { name: 'undefined table', err: withCode('42P01'), status: undefined },
    { name: 'unique violation', err: withCode('23505'), status: undefined },
  ];
  for (const c of cases) {
    const out = statementError(c.err);
    assert.equal(out.status, c.status, c.name);
    if (c.status === 503) {
      assert.equal(out.reason, 'database unavailable', c.name);
      assert.equal(out.cause, c.err, c.name);
    } else {
      assert.equal(out, c.err, c.name);
    }
  }
});
