#!/usr/bin/env node
'use strict';
// tunnel-info.js — what scripts/tunnel.sh needs from the chisel app's environment.
//
// COMMAND is its help and its flags. The binding is found by name and read by bindings.js (docs/bindings.md): every broker's
// credential shape, and the sslmode and CA it asks for. The URL keeps them (the CA as a
// file in sslrootcert); through the tunnel the host is 127.0.0.1, which no broker's
// certificate names, so verify-full becomes verify-ca there: the chain is still checked.
// Exit 1 with one line when something is missing (tunnelInfo throws CliError: tunnel.js uses it too).

const bindings = require('../../lib/bindings');
const { parseCommand, REQUIRED, CliError, cliExitCode } = require('../../lib/arg-table');

const COMMAND = {
  usage: 'Usage: cf curl /v3/apps/GUID/env | node scripts/cf/tunnel-info.js --local-port N [--service results-db]',
  about: 'stdin: the v3 app env document: {environment_variables:{CHISEL_AUTH, CHISEL_KEY},\n'
    + '       system_env_json:{VCAP_SERVICES:{label:[binding…]}}}\n'
    + "stdout: one JSON object {auth, key, target, url}: the tunnel credentials, the database's host:port as the\n"
    + "        server's ACL names it (chisel/config.go), and the database URL through the local end of the tunnel.",
  rows: [
    ['--local-port N', 'localPort', 'int', REQUIRED, 'the local end of the tunnel (127.0.0.1:N)', [1, 65535]],
    ['--service NAME', 'service', 'str', 'results-db', 'the binding to reach'],
  ],
};

function fail(msg) {
  throw new CliError(`tunnel-info: ${msg}`, 1);
}

/**
 * @param {object} envDoc the v3 app env document
 * @param {{service: string, localPort: number}} opts
 */
function tunnelInfo(envDoc, { service, localPort }) {
  const ev = (envDoc && envDoc.environment_variables) || {};
  if (!ev.CHISEL_AUTH) fail('the chisel app has no CHISEL_AUTH (push it with manifests/chisel.yml and your vars file)');
  if (!ev.CHISEL_KEY) fail('the chisel app has no CHISEL_KEY (push it with manifests/chisel.yml and your vars file)');
  const vcap = (envDoc.system_env_json && envDoc.system_env_json.VCAP_SERVICES) || {};
  let conn;
  try {
    const b = bindings.findBinding(bindings.listBindings(vcap), { name: service });
    if (!b) fail(`the chisel app has no binding named ${service}: cf bind-service chisel ${service} && cf restart chisel`);
    conn = bindings.connectionFromBinding(b);
  } catch (err) {
    if (err instanceof bindings.BindingError) fail(err.message);
    throw err;
  }
  const sslmode = conn.sslmode === 'verify-full' ? 'verify-ca' : conn.sslmode;
  return {
    auth: ev.CHISEL_AUTH,
    key: ev.CHISEL_KEY,
    target: `${conn.host.includes(':') ? `[${conn.host}]` : conn.host}:${conn.port}`,
    url: bindings.toUrl({ ...conn, host: '127.0.0.1', port: localPort, sslmode }),
  };
}

async function main() {
  const o = parseCommand('tunnel-info', process.argv.slice(2), COMMAND);
  let input = '';
  process.stdin.setEncoding('utf8');
  for await (const d of process.stdin) input += d;
  let doc;
  try {
    doc = JSON.parse(input);
  } catch {
    fail('stdin is not the JSON of /v3/apps/GUID/env');
  }
  process.stdout.write(`${JSON.stringify(tunnelInfo(doc, { service: o.service, localPort: o.localPort }))}\n`);
}

if (require.main === module) main().catch((err) => process.exit(cliExitCode(err)));
module.exports = { tunnelInfo };
