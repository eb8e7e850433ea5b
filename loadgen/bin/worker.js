#!/usr/bin/env node
'use strict';
// The loadgen worker process (manifest `command: exec node bin/worker.js`, or `npm start`;
// a CF worker: no route, process health check, never listens on PORT). Reads its
// configuration, then waits for rounds.

const { loadConfig, ConfigError } = require('../lib/config');
const { Worker } = require('../lib/worker');

function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`loadgen: ${err.message}\n`);
    process.exit(1);
  }
  const log = (m) => process.stdout.write(`loadgen[${config.instanceIndex}]: ${m}\n`);
  const worker = new Worker(config, log);
  const onSignal = () => {
    // Never outlive the platform's kill: exit by shutdownMs whatever happens.
    setTimeout(() => { worker.reportLost(); process.exit(0); }, config.shutdownMs).unref();
    worker.shutdown().then(() => process.exit(0), (err) => {
      log(`shutdown: ${err.message}`);
      process.exit(1);
    });
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  worker.start();
}

main();
