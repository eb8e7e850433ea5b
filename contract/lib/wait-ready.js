// wait-ready.js — lifecycle.test.js's wait for an app that has just started to have reached
// its database in every process, before a subtest asserts its first success.
'use strict';
const { send } = require('./raw-http');

/**
 * Wait until GET /ads answers 200 from every process of the app: each has reached its database
 * and created its table. Until then a 503 is within the contract (e.g. with DB_POOL_SIZE=1 the
 * one connection is busy creating the table on a loaded machine). A cluster's primary hands new
 * connections to its workers in turn, so `processes` answers in a row on new connections come
 * from every worker: one 200 would show only one worker ready. Problems go to `problems`.
 */
async function waitDatabaseReady(problems, url, processes = 1, deadlineMs = 15000) {
  const end = Date.now() + deadlineMs;
  let last;
  let inARow = 0;
  while (Date.now() < end) {
    last = await send(url, { path: '/ads?limit=1' }, { timeoutMs: 5000 });
    inARow = last.status === 200 ? inARow + 1 : 0;
    if (inARow >= processes) return;
    if (last.status !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  problems.push(`GET /ads never answered 200 ${processes} time(s) in a row within ${deadlineMs} ms (last: ${last.status ?? last.error})`);
}

module.exports = { waitDatabaseReady };
