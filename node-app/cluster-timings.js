'use strict';
// cluster-timings.js — /timings* over every cluster worker (WEB_CONCURRENCY > 1).
//
// The worker that receives the request asks the primary ('timings-ask'); the primary
// runs the operation on every worker ('timings-run'), waits for all replies
// ('timings-done'), sums them and answers the asker ('timings-answer'). The contract
// wants totals over the workers and flush/clear/recording acting on all of them.

const ASK_TIMEOUT_MS = { state: 10000, clear: 10000, recording: 10000, flush: 300000 };

/** Worker side: a timings service whose run() acts on every worker. local: this worker's. */
function clusterTimingsService(local) {
  let nextId = 1;
  const waiting = new Map();
  process.on('message', (msg) => {
    if (msg === null || typeof msg !== 'object') return;
    if (msg.cfscale === 'timings-run') {
      local.run(msg.op, msg.arg).then((result) => sendToPrimary({ cfscale: 'timings-done', id: msg.id, result }));
    } else if (msg.cfscale === 'timings-answer') {
      const resolve = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (resolve) resolve(msg.result);
    }
  });
  function run(op, arg) {
    return new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      if (!sendToPrimary({ cfscale: 'timings-ask', id, op, arg })) {
        waiting.delete(id);
        resolve({ error: 'internal' });
      }
    });
  }
  return { run, end: local.end };
}

function sendToPrimary(msg) {
  if (!process.connected) return false;
  process.send(msg, (err) => err && process.emitWarning(`timings IPC failed: ${err.message}`));
  return true;
}

/** Sum the replies of every worker into one answer. */
function combine(op, results) {
  if (results.some((r) => r.error === 'internal')) return { error: 'internal' };
  if (results.some((r) => r.error === 'results-unavailable')) return { error: 'results-unavailable' };
  if (results.some((r) => r.error)) return { error: 'round-refused' };
  const sum = (key) => results.reduce((n, r) => n + r[key], 0);
  switch (op) {
    case 'state':
      return {
        recording: results.some((r) => r.recording),
        count: sum('count'),
        dropped: sum('dropped'),
        capacity: sum('capacity'),
      };
    case 'flush':
      return { flushed: sum('flushed') };
    case 'clear':
      return { cleared: sum('cleared') };
    default:
      return results[0] ?? { error: 'internal' };
  }
}

/** Primary side: answer every worker's 'timings-ask'. */
function serveClusterTimings(cluster) {
  let nextId = 1;
  const gathering = new Map();

  function finish(id, result) {
    const g = gathering.get(id);
    if (!g) return;
    gathering.delete(id);
    clearTimeout(g.timer);
    if (g.asker.isConnected()) g.asker.send({ cfscale: 'timings-answer', id: g.askId, result });
  }

  function ask(asker, msg) {
    const workers = Object.values(cluster.workers).filter((w) => w.isConnected());
    const id = nextId++;
    const timeoutMs = ASK_TIMEOUT_MS[msg.op] ?? ASK_TIMEOUT_MS.state;
    const timer = setTimeout(() => finish(id, { error: 'internal' }), timeoutMs);
    gathering.set(id, { asker, askId: msg.id, op: msg.op, results: [], remaining: workers.length, timer });
    for (const w of workers) w.send({ cfscale: 'timings-run', id, op: msg.op, arg: msg.arg });
  }

  function collect(msg) {
    const g = gathering.get(msg.id);
    if (!g) return; // timed out already
    g.results.push(msg.result);
    if (--g.remaining === 0) finish(msg.id, combine(g.op, g.results));
  }

  cluster.on('message', (worker, msg) => {
    if (msg === null || typeof msg !== 'object') return;
    if (msg.cfscale === 'timings-ask') ask(worker, msg);
    else if (msg.cfscale === 'timings-done') collect(msg);
  });
}

module.exports = { clusterTimingsService, serveClusterTimings, combine };
