'use strict';
// tls.js — whether the workstation's own HTTPS requests skip certificate verification
// (a foundation with self-signed certificates). --skip-ssl-validation, the cf CLI's own
// flag name, turns it on; without it the cf CLI's stored choice decides: `cf api URL
// --skip-ssl-validation` and `cf login --skip-ssl-validation` store "SSLDisabled": true in
// $CF_HOME/.cf/config.json, else $HOME/.cf/config.json (docs/cf-platform.md §13).
//
// API:
//   cfSslDisabled(env?) → the cf CLI's stored SSLDisabled (false when unset or unreadable)
//   skipSslValidation(p, flag) → flag, else on cf the cf CLI's stored choice (local: false)
//   noteCfVerifies(p, flag) → on cf with the flag given while the cf CLI verifies, one line
//     saying so: its commands (cf push among them) have no such flag and read the stored
//     setting, which an API with a valid certificate (apps' domain self-signed) does not need
const fs = require('node:fs');
const path = require('node:path');

function cfSslDisabled(env = process.env) {
  const config = path.join(env.CF_HOME || env.HOME || '', '.cf/config.json');
  try {
    return JSON.parse(fs.readFileSync(config, 'utf8')).SSLDisabled === true;
  } catch {
    return false;
  }
}

function skipSslValidation(p, flag) {
  return Boolean(flag) || (p.name === 'cf' && cfSslDisabled());
}

function noteCfVerifies(p, flag) {
  if (!flag || p.name !== 'cf' || cfSslDisabled()) return;
  p.cli.log('note: the cf CLI itself verifies certificates; if the API\'s is self-signed: cf api API-URL --skip-ssl-validation (docs/cf-platform.md §13)');
}

module.exports = { cfSslDisabled, skipSslValidation, noteCfVerifies };
