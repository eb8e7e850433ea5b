'use strict';
// control-token.js — the apps' control credential (contract/README.md "Control credential",
// docs/control-credential.md): made fresh at every push, kept where Cloud Controller shows it
// only to space developers (the app's environment variable CONTROL_TOKEN), read back from
// there through the cf CLI, and never printed: it goes into cf curl through a file of mode
// 0600 and into the pinned requests' headers (pinned-request.js), never on a command line
// that `ps` shows; printed commands show it masked.
//
// API:
//   CONTROL_VAR, takesControlToken(app) → whether a round's app (all but the loadgen)
//   newControlToken() → 43 base64url characters (32 random bytes)
//   setControlToken(p, guid)    (a promise, as the three below) a fresh token as the app's CONTROL_TOKEN (PATCH of its v3
//                               environment_variables); under --dry-run the command, masked
//   hasControlToken(p, guid) → whether the app has a CONTROL_TOKEN (false under --dry-run for
//                               an app not pushed yet)
//   giveMissingControlToken(p, app, guid, then) → true when an app that takes one had none and
//                               was given one, said in one line ending in `then` (what makes the
//                               app start with it: the caller's restart or push); a plain
//                               `cf push` leaves the app without one, its control endpoints closed
//   readControlToken(p, app, guid) → the token; null under --dry-run when not there (yet)
//   MASKED_AUTH: the Authorization header line with the credential masked, for printed commands
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { capture } = require('./exec');
const { cfJsonOf } = require('./target');

// The apps without /timings: the instrument. Every app a round measures gets a credential.
const NO_CONTROL_APPS = ['loadgen'];
const CONTROL_VAR = 'CONTROL_TOKEN';
const TOKEN_BYTES = 32;
const MASK = '***';
const MASKED_AUTH = `Authorization: Bearer ${MASK}`;

const takesControlToken = (app) => !NO_CONTROL_APPS.includes(app);
const newControlToken = () => crypto.randomBytes(TOKEN_BYTES).toString('base64url');
const envPath = (guid) => `/v3/apps/${guid}/environment_variables`;

async function setControlToken(p, guid) {
  const body = (token) => JSON.stringify({ var: { [CONTROL_VAR]: token } });
  if (p.dryRun) {
    p.printCmd([...p.cf, 'curl', '-X', 'PATCH', envPath(guid), '-d', body(MASK)]);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-control-'));
  const file = path.join(dir, 'body.json');
  try {
    fs.writeFileSync(file, body(newControlToken()), { mode: 0o600 });
    // The answer lists the app's variables, the token among them: kept, not shown.
    const r = await capture([...p.cf, 'curl', '-X', 'PATCH', envPath(guid), '-d', `@${file}`], { stderr: 'pipe' });
    try {
      cfJsonOf(envPath(guid), r);
    } catch (err) {
      p.cli.die(`could not set ${CONTROL_VAR}: ${err.message}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function hasControlToken(p, guid) {
  if (p.dryRun && guid.startsWith('<')) return false;
  return Boolean((await p.cfCurlJson(envPath(guid))).var?.[CONTROL_VAR]);
}

async function giveMissingControlToken(p, app, guid, then) {
  if (!takesControlToken(app) || (await hasControlToken(p, guid))) return false;
  p.cli.log(`${app} has no ${CONTROL_VAR} (a plain cf push sets none; its control endpoints answer 401): giving it one, then ${then}`);
  await setControlToken(p, guid);
  return true;
}

async function readControlToken(p, app, guid) {
  if (p.dryRun && guid.startsWith('<')) return null;
  const token = (await p.cfCurlJson(envPath(guid))).var?.[CONTROL_VAR];
  if (!token && !p.dryRun) p.cli.die(`${app} has no ${CONTROL_VAR} (cf curl ${envPath(guid)}): scripts/push.sh ${app} gives it one`);
  return token || null;
}

module.exports = {
  CONTROL_VAR, MASKED_AUTH, takesControlToken, newControlToken, setControlToken, hasControlToken, giveMissingControlToken,
  readControlToken,
};
