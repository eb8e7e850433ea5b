// contract.test.js — the black-box HTTP contract suite (contract/README.md), run by URL
// against one running app:
//   CONTRACT_BASE_URL=http://127.0.0.1:8080 CONTRACT_CONTROL_TOKEN=TOKEN node --test contract/contract.test.js
// Optional settings: see lib/runner.js. First the stateless table (cases/), one test per
// case with every problem of the case listed; then the stateful scenarios (ads arranged
// in the database, timing endpoints), which need the optional database URLs.
'use strict';

const { describe, test } = require('node:test');
const { TABLE } = require('./cases');
const { settings, runCase, report } = require('./lib/runner');

const cfg = settings();
if (!cfg.baseUrl || !cfg.controlToken) {
  console.error('contract: set CONTRACT_BASE_URL (e.g. http://127.0.0.1:8080) and CONTRACT_CONTROL_TOKEN (the app\'s CONTROL_TOKEN)');
  process.exit(1);
}

describe('contract table', () => {
  TABLE.forEach((c, i) => {
    test(`#${i} ${c.name}`, async () => {
      const { problems } = await runCase(cfg.baseUrl, c, i, { instanceIndex: cfg.instanceIndex, controlToken: cfg.controlToken });
      report(problems);
    });
  });
});

require('./scenarios/connection')(cfg);
require('./scenarios/framing')(cfg);
require('./scenarios/ads-state')(cfg);
require('./scenarios/timings')(cfg);
