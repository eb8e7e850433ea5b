'use strict';
// pagination.test.js — CC's pages: defaults, next/previous links with the other query
// parameters, the last page, and CC's 400 for a bad page or per_page.
const test = require('node:test');
const assert = require('node:assert/strict');
const { paginate } = require('../lib/cc-api/pagination');
const { CcError } = require('../lib/cc-api/errors');

const BASE = 'http://127.0.0.1:8889';
const doc = (n) => ({ pagination: { total_results: n }, resources: Array.from({ length: n }, (_, i) => i) });
const page = (n, query) => paginate(doc(n), new URL(`/v3/apps${query}`, BASE), BASE);

test('50 a page by default; next until the last page; the other parameters kept', () => {
  const p1 = page(120, '?names=a,b');
  assert.deepEqual(p1.resources, [...Array(50).keys()]);
  assert.equal(p1.pagination.total_results, 120);
  assert.equal(p1.pagination.total_pages, 3);
  assert.equal(p1.pagination.next.href, `${BASE}/v3/apps?names=a%2Cb&page=2&per_page=50`);
  assert.equal(p1.pagination.previous, null);
  const p3 = page(120, '?names=a,b&page=3');
  assert.deepEqual(p3.resources, [100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119]);
  assert.equal(p3.pagination.next, null);
  assert.equal(p3.pagination.previous.href, `${BASE}/v3/apps?names=a%2Cb&page=2&per_page=50`);
  assert.equal(page(0, '').pagination.total_pages, 1, 'an empty list has one page');
  assert.deepEqual(page(3, '?per_page=5000').resources, [0, 1, 2]);
  assert.equal(page(7, '?per_page=2&page=9').resources.length, 0, 'past the end: no resources');
});

test('a document without pagination is left alone', () => {
  const stats = { resources: [1, 2] };
  assert.equal(paginate(stats, new URL('/v3/processes/x/stats?per_page=1', BASE), BASE), stats);
});

test('bad page or per_page: CC\'s 400 CF-BadQueryParameter (10005)', () => {
  for (const [q, detail] of [['?per_page=5001', 'Per page must be between 1 and 5000'], ['?per_page=0', 'Per page must be a positive integer'],
    ['?page=0', 'Page must be a positive integer'], ['?page=x&per_page=-1', 'Page must be a positive integer, Per page must be a positive integer']]) {
    assert.throws(() => page(3, q), (e) => e instanceof CcError && e.status === 400 && e.code === 10005
      && e.message === `The query parameter is invalid: ${detail}`, q);
  }
});
