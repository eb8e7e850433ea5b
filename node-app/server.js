'use strict';
// server.js — node-app entry point (the manifest's `exec node server.js`, or `npm start`): read and validate the settings, log them
// once (and, without a CONTROL_TOKEN, that the control endpoints are closed), then run one
// serving process, or a cluster of WEB_CONCURRENCY workers.
// `node server.js --check-settings`: validate and log the settings, exit 0 (or 1), serve nothing.

const cluster = require('node:cluster');
const { loadConfig, describeConfig, ConfigError } = require('./config');
const { log, logError } = require('./log');
const { CLOSED_LINE } = require('./control-auth');

function main() {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    logError(err.message);
    process.exit(1);
  }
  if (cluster.isPrimary) {
    log(`settings: ${describeConfig(config)}`);
    if (config.controlToken === null && !config.controlOpen) log(CLOSED_LINE);
  }
  if (process.argv.includes('--check-settings')) process.exit(0);
  if (cluster.isPrimary && config.webConcurrency > 1) {
    require('./primary').startPrimary(config);
  } else {
    require('./app-server').startWorker(config);
  }
}

main();
