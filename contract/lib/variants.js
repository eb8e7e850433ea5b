// variants.js — the app variants the contract suite and the app benchmarks start: the
// command (relative to the repository root) and the settings that make each what it is.
'use strict';

const VARIANTS = {
  'node-raw': { cmd: ['node', 'node-app/server.js'], env: { APP_FRAMEWORK: 'raw' }, workers: 1 },
  'node-express': { cmd: ['node', 'node-app/server.js'], env: { APP_FRAMEWORK: 'express' }, workers: 1 },
  'node-cluster': { cmd: ['node', 'node-app/server.js'], env: { WEB_CONCURRENCY: '2' }, workers: 2 },
  java: { cmd: ['java', '-jar', 'java-app/target/java-app.jar'], env: {}, workers: 1 },
};
const ALL_VARIANTS = Object.keys(VARIANTS);

/** Variant `name`, or an Error naming the known ones. */
function variant(name) {
  if (!VARIANTS[name]) throw new Error(`unknown variant: ${name} (${ALL_VARIANTS.join(' ')})`);
  return VARIANTS[name];
}

/** { A: '1' } → "A=1" (the form the lifecycle tests read from CONTRACT_APP_ENV). */
function envList(env) {
  return Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ');
}

module.exports = { VARIANTS, ALL_VARIANTS, variant, envList };
