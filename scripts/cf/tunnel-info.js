#!/usr/bin/env node
'use strict';
// tunnel-info.js — what scripts/tunnel.sh needs from the chisel app's environment.
//
// Usage: cf curl /v3/apps/GUID/env | node scripts/cf/tunnel-info.js --local-port N [--service results-db]
//   stdin: the v3 app env document: {environment_variables:{CHISEL_AUTH, CHISEL_KEY},
//          system_env_json:{VCAP_SERVICES:{label:[binding…]}}}
//   stdout: one JSON object {auth, key, target, url}: the tunnel credentials, the
//          database's host:port as the server's ACL names it (chisel/config.go), and the
//          database URL through the local end of the tunnel (127.0.0.1:N).
// The binding is found by name and read by bindings.js (docs/bindings.md): every broker's
// credential shape, and the sslmode and CA it asks for. The URL keeps them (the CA as a
// file in sslrootcert); through the tunnel the host is 127.0.0.1, which no broker's
// certificate names, so verify-full becomes verify-ca there: the chain is still checked.
// Exit 1 with one line when something is missing.

const bindings = require('./bindings');

function fail(msg) {
  process.stderr.write(`tunnel-info: ${msg}\n`);
  process.exit(1);
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

function main() {
  const args = process.argv.slice(2);
  let service = 'results-db';
  let localPort = null;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--service') service = args[++i];
    else if (args[i] === '--local-port') localPort = args[++i];
    else fail(`unknown argument: ${args[i]}`);
  }
  if (!/^[1-9][0-9]{0,4}$/.test(localPort || '') || Number(localPort) > 65535) fail('--local-port must be a port number');
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => { input += d; });
  process.stdin.on('end', () => {
    let doc;
    try {
      doc = JSON.parse(input);
    } catch {
      fail('stdin is not the JSON of /v3/apps/GUID/env');
    }
    process.stdout.write(`${JSON.stringify(tunnelInfo(doc, { service, localPort: Number(localPort) }))}\n`);
  });
}

if (require.main === module) main();
module.exports = { tunnelInfo };
