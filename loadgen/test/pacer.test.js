'use strict';
// The open model's clock (lib/pacer.js): one wake per wakeAt(), never much before its time,
// a replaced or cancelled wake never comes, and stop() lets the process exit.
const test = require('node:test');
const assert = require('node:assert');
const { performance } = require('node:perf_hooks');
const { Pacer, SPIN_MS } = require('../lib/pacer');
const { sleep } = require('./helpers');

// A wake comes at most SPIN_MS early (the caller spins the rest), by timer or by its thread.
const EARLY_MAX_MS = SPIN_MS;

function recorder() {
  const wakes = [];
  const pacer = new Pacer(() => wakes.push(performance.now()));
  return { pacer, wakes };
}

test('pacer: one wake per wakeAt, not before its time, before and after its thread is up', async () => {
  const { pacer, wakes } = recorder();
  pacer.start();
  try {
    for (const [i, delayMs] of [5, 0, 20, 0.1, 3].entries()) {
      const at = performance.now() + delayMs;
      pacer.wakeAt(at);
      while (wakes.length === i) await sleep(1);
      assert.ok(wakes[i] >= at - EARLY_MAX_MS, `wake ${i} came ${(at - wakes[i]).toFixed(3)} ms early`);
      if (i === 1) while (!pacer.ready) await sleep(5);
    }
    await sleep(30);
    assert.strictEqual(wakes.length, 5);
  } finally {
    pacer.stop();
  }
});

test('pacer: a replaced or cancelled wake never comes', async () => {
  const { pacer, wakes } = recorder();
  pacer.start();
  try {
    while (!pacer.ready) await sleep(5);
    pacer.wakeAt(performance.now() + 10);
    pacer.wakeAt(performance.now() + 40); // replaces the first
    await sleep(25);
    assert.strictEqual(wakes.length, 0, 'the replaced wake came');
    await sleep(40);
    assert.strictEqual(wakes.length, 1);
    pacer.wakeAt(performance.now() + 10);
    pacer.cancel();
    await sleep(40);
    assert.strictEqual(wakes.length, 1, 'the cancelled wake came');
  } finally {
    pacer.stop();
  }
});

test('pacer: a stopped pacer lets the process exit (its thread ends)', async () => {
  const { pacer } = recorder();
  pacer.start();
  while (!pacer.ready) await sleep(5);
  const thread = pacer.thread;
  const exited = new Promise((resolve) => thread.once('exit', resolve));
  pacer.wakeAt(performance.now() + 60000);
  pacer.stop();
  const hold = setTimeout(() => {}, 5000); // the thread is unref'd: it does not hold the loop
  assert.strictEqual(await exited, 0);
  clearTimeout(hold);
});

test('pacer: a wake owed by a thread that died comes by timer', async () => {
  const { pacer, wakes } = recorder();
  pacer.start();
  try {
    while (!pacer.ready) await sleep(5);
    const at = performance.now() + 50;
    pacer.wakeAt(at);
    await pacer.thread.terminate();
    const hold = setTimeout(() => {}, 5000);
    while (wakes.length === 0) await sleep(5);
    clearTimeout(hold);
    assert.strictEqual(wakes.length, 1);
    assert.ok(wakes[0] >= at - EARLY_MAX_MS);
    assert.strictEqual(pacer.ready, false);
  } finally {
    pacer.stop();
  }
});
