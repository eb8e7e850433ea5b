'use strict';
// process-checks.test.js — lib/process-checks.js processAlive: a running process is alive, a
// gone one is not, and neither is a zombie (killed, not yet reaped), which signal 0 still reaches.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const { processAlive } = require('../lib/process-checks');

test('processAlive: running yes, a zombie no (signal 0 reaches it), gone no', async () => {
  // sh starts a sleep in the background, prints its pid, then becomes `sleep 60`, which never
  // reaps: the killed background sleep stays a zombie for as long as its parent runs.
  const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const pid = Number(await new Promise((resolve) => parent.stdout.once('data', (d) => resolve(String(d).trim()))));
    assert.ok(pid > 0);
    assert.equal(processAlive(pid), true, 'the background sleep runs');
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(processAlive(pid), false, 'a killed, unreaped process is not alive');
    assert.doesNotThrow(() => process.kill(pid, 0), 'it is a zombie: signal 0 still reaches it');
  } finally {
    parent.kill('SIGKILL');
  }
  assert.equal(processAlive(2 ** 22 + 1), false, 'a pid above pid_max');
});
