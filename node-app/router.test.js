'use strict';
// router.test.js — exact path matching and the Allow lists of the contract.

const test = require('node:test');
const assert = require('node:assert/strict');
const { findRoute } = require('./router');

test('findRoute matches exact paths only', () => {
  const cases = [
    ['/health', '/health', 'GET'],
    ['/hello', '/hello', 'GET'],
    ['/ads', '/ads', 'GET, POST'],
    ['/ads/1', '/ads/{id}', 'GET'],
    ['/ads/abc', '/ads/{id}', 'GET'],
    ['/ads/%31', '/ads/{id}', 'GET'],
    ['/timings', '/timings', 'GET'],
    ['/timings/flush', '/timings/flush', 'POST'],
    ['/timings/clear', '/timings/clear', 'POST'],
    ['/timings/recording', '/timings/recording', 'POST'],
  ];
  for (const [path, route, allow] of cases) {
    const r = findRoute(path);
    assert.equal(r && r.path, route, path);
    assert.equal(r.allow, allow, path);
  }
  for (const path of ['/', '', '/health/', '/Health', '/ads/', '/ads/1/', '/ads/1/x', '/ads//', '/timings/', '/timings/other', '//health', '*']) {
    assert.equal(findRoute(path), undefined, path);
  }
});
