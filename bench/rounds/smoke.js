'use strict';
// smoke.js — the --smoke of the round benches (CI runs it): the tools a round needs are here,
// the flags parsed; what the bench would measure is printed, and nothing is measured.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');

/** Exit code 0 when scripts/run-round.sh, the cf CLI and HAProxy are here (else 1, saying which is missing). */
function smokeCheck(name, what) {
  const missing = [['scripts/run-round.sh', fs.existsSync(path.join(ROOT, 'scripts/run-round.sh'))],
    ['.tools/bin/cf (scripts/setup.sh)', fs.existsSync(path.join(ROOT, '.tools/bin/cf'))],
    ['haproxy (scripts/setup.sh)', !spawnSync('haproxy', ['-v']).error]].filter(([, ok]) => !ok).map(([w]) => w);
  if (missing.length) {
    process.stderr.write(`${name}: missing: ${missing.join(', ')}\n`);
    return 1;
  }
  process.stdout.write(`${name}: smoke: would run ${what}\n`);
  return 0;
}

module.exports = { smokeCheck };
