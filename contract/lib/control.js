// control.js — what the suite needs to use the apps' control endpoints (/timings*): the
// control credential the apps were started with (CONTRACT_CONTROL_TOKEN, the apps'
// CONTROL_TOKEN), the header that carries it, and rows of `rounds` a flush may file under
// (the apps take a round running or just finished for them only).
'use strict';

const crypto = require('node:crypto');
const { withClient } = require('./app-db');

/** A fresh credential of the apps' format (43 base64url characters), as scripts/push.sh makes one. */
function newControlToken() {
  return crypto.randomBytes(32).toString('base64url');
}

/** CONTRACT_CONTROL_TOKEN, or an Error saying it is needed. */
function controlToken(env = process.env) {
  const token = env.CONTRACT_CONTROL_TOKEN;
  if (!token) throw new Error('set CONTRACT_CONTROL_TOKEN (the CONTROL_TOKEN the app runs with)');
  return token;
}

/** The request headers carrying the credential. */
const controlHeaders = (token = controlToken()) => ({ Authorization: `Bearer ${token}` });

/** Whether a request goes to a control endpoint (it then needs the credential). */
const isControlPath = (p) => p === '/timings' || p.startsWith('/timings?') || p.startsWith('/timings/');

/**
 * A row of `rounds` for app in the results database url: status, finished that many seconds
 * ago (null: not finished), heartbeat that many seconds ago. Resolves with its id (a string).
 */
async function insertRound(url, app, { status = 'pending', finishedSecAgo = null, heartbeatSecAgo = 0 } = {}) {
  return withClient(url, async (c) => {
    const { rows } = await c.query(
      `INSERT INTO rounds (start_at, platform, app, target_url, app_instances, loadgens, model, parallel, duration_ms,
         status, finished_at, heartbeat_at)
       VALUES (now(), 'local', $1, 'http://contract', 1, 1, 'closed', 1, 1000, $2,
         now() - make_interval(secs => $3::float8), now() - make_interval(secs => $4::float8)) RETURNING id::text`,
      [app, status, finishedSecAgo, heartbeatSecAgo]);
    return rows[0].id;
  });
}

module.exports = { newControlToken, controlToken, controlHeaders, isControlPath, insertRound };
