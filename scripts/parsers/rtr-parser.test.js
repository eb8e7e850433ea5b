'use strict';
// Table-driven tests of rtr-parser.js on Gorouter access lines as `cf logs` prints them
// (docs/cf-platform.md §5), the old time format, and junk.

const test = require('node:test');
const assert = require('node:assert/strict');
const { parseRtrLine, parseAccessTime, secondsToUs } = require('./rtr-parser');

const CF_PREFIX = '   2026-03-01T12:00:05.00+0000 [RTR/1] OUT ';
const ACCESS = 'node-app.apps.example.com - [2026-03-01T12:00:05.123456789Z] "GET /ads/42 HTTP/1.1" 200 0 187 "-" "cfscale-loadgen" "10.0.0.5:51234" "10.0.1.12:61012" x_forwarded_for:"10.0.0.5" x_forwarded_proto:"https" vcap_request_id:"a1b2c3d4-0000-4000-8000-000000000001" response_time:0.012345 gorouter_time:0.000321 app_id:"9f0e" app_index:"3" instance_id:"inst-1" x_cf_routererror:"-"';

const BASE = {
  at: '2026-03-01T12:00:05.123456Z', method: 'GET', path: '/ads/42', status: 200, bytes_sent: 187,
  response_time_us: 12345, gorouter_time_us: 321, app_index: 3, instance_id: 'inst-1',
  vcap_request_id: 'a1b2c3d4-0000-4000-8000-000000000001', correlation_id: null,
};

test('rtr lines', async (t) => {
  const cases = [
    { name: 'current Gorouter line', line: CF_PREFIX + ACCESS, row: BASE },
    { name: 'ERR stream and no leading spaces', line: '2026-03-01T12:00:05.00+0000 [RTR/0] ERR ' + ACCESS, row: BASE },
    { name: 'x_correlation_id extra header (local platform)',
      line: CF_PREFIX + ACCESS + ' x_correlation_id:"0190a0b0-c0d0-7e00-8000-000000000abc"',
      row: { ...BASE, correlation_id: '0190a0b0-c0d0-7e00-8000-000000000abc' } },
    { name: 'newer fields in between (tls_sni, failed_attempts, backend_time)',
      line: CF_PREFIX + ACCESS.replace('app_id:', 'failed_attempts:0 failed_attempts_time:"-" dns_time:0.000001 dial_time:0.0002 tls_time:"-" backend_time:0.01 tls_sni:"x" app_id:'),
      row: BASE },
    { name: 'old time format [14/06/2016:17:51:32.459 +0000]',
      line: CF_PREFIX + ACCESS.replace('[2026-03-01T12:00:05.123456789Z]', '[14/06/2016:17:51:32.459 +0000]'),
      row: { ...BASE, at: '2016-06-14T17:51:32.459+00:00' } },
    { name: 'old time format with month name',
      line: CF_PREFIX + ACCESS.replace('[2026-03-01T12:00:05.123456789Z]', '[14/Jun/2016:17:51:32.459 +0200]'),
      row: { ...BASE, at: '2016-06-14T17:51:32.459+02:00' } },
    { name: 'escaped quotes in the user agent and referer',
      line: CF_PREFIX + ACCESS.replace('"cfscale-loadgen"', '"agent \\"quoted\\" v1"').replace('"-" "agent', '"http://x/?q=\\"a b\\"" "agent'),
      row: BASE },
    { name: 'POST with query string, 201, no app_index yet (502 from router)',
      line: CF_PREFIX + ACCESS.replace('GET /ads/42', 'POST /ads?x=1').replace('" 200 0 187', '" 502 120 67').replace('app_index:"3"', 'app_index:"-"'),
      row: { ...BASE, method: 'POST', path: '/ads?x=1', status: 502, bytes_sent: 67, app_index: null } },
    { name: 'vcap_request_id "-"', line: CF_PREFIX + ACCESS.replace('vcap_request_id:"a1b2c3d4-0000-4000-8000-000000000001"', 'vcap_request_id:"-"'),
      row: { ...BASE, vcap_request_id: null } },
    { name: 'response_time missing', line: CF_PREFIX + ACCESS.replace('response_time:0.012345 ', ''), row: { ...BASE, response_time_us: null } },
    { name: 'response_time 1.5 s', line: CF_PREFIX + ACCESS.replace('response_time:0.012345', 'response_time:1.5'), row: { ...BASE, response_time_us: 1500000 } },
    { name: 'app output line', line: '   2026-03-01T12:00:05.00+0000 [APP/PROC/WEB/0] OUT listening on 8080', row: null },
    { name: 'cf header', line: 'Retrieving logs for app node-app in org o / space s as admin...', row: null },
    { name: 'empty', line: '', row: null },
    { name: 'RTR prefix but garbage', line: CF_PREFIX + 'garbage here', row: null },
    { name: 'unterminated quote', line: CF_PREFIX + ACCESS.replace('"cfscale-loadgen"', '"cfscale-loadgen'), row: null },
    { name: 'bad time', line: CF_PREFIX + ACCESS.replace('2026-03-01T12:00:05.123456789Z', 'yesterday'), row: null },
    { name: 'request not quoted', line: CF_PREFIX + ACCESS.replace('"GET /ads/42 HTTP/1.1"', 'GET'), row: null },
    { name: 'truncated after bytes_received', line: CF_PREFIX + 'h - [2026-03-01T12:00:05Z] "GET / HTTP/1.1" 200 0', row: null },
  ];
  for (const c of cases) {
    await t.test(c.name, () => assert.deepEqual(parseRtrLine(c.line), c.row));
  }
});

test('access times', () => {
  const cases = [
    ['2026-03-01T12:00:05.000000000Z', '2026-03-01T12:00:05.000000Z'],
    ['2026-03-01T12:00:05Z', '2026-03-01T12:00:05Z'],
    ['2026-03-01T12:00:05.5+01:00', '2026-03-01T12:00:05.5+01:00'],
    ['14/06/2016:17:51:32.459 +0000', '2016-06-14T17:51:32.459+00:00'],
    ['14/13/2016:17:51:32.459 +0000', null],
    ['2026-13-01T12:00:05Z', null],
    ['', null],
  ];
  for (const [input, want] of cases) assert.equal(parseAccessTime(input), want, input);
});

test('seconds to microseconds without float error', () => {
  const cases = [['0.000001', 1], ['0.012345', 12345], ['12.3', 12300000], ['3', 3000000], ['0.1234567', 123456], ['-1', null], ['x', null], [undefined, null]];
  for (const [input, want] of cases) assert.equal(secondsToUs(input), want, String(input));
});
