'use strict';
// capture-stdout.js — what an in-process call writes to process.stdout, for tests of the
// functions that print (the round helpers scripts/rounds.sh calls).

/** Runs fn() with process.stdout.write collected; resolves to the text written. */
async function captureStdout(fn) {
  const write = process.stdout.write;
  let text = '';
  process.stdout.write = (chunk) => { text += chunk; return true; };
  try {
    await fn();
  } finally {
    process.stdout.write = write;
  }
  return text;
}

module.exports = { captureStdout };
