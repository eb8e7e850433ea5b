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
// The binding is found by name (binding name, else instance name); credentials: `uri`
// first, else hostname|host, port, name|dbname|database, username|user, password
// (contract/README.md; docs/cf-platform.md §4).
// Exit 1 with one line when something is missing.

function fail(msg) {
  process.stderr.write(`tunnel-info: ${msg}\n`);
  process.exit(1);
}

function findBinding(vcap, name) {
  for (const bindings of Object.values(vcap || {})) {
    if (!Array.isArray(bindings)) continue;
    for (const b of bindings) {
      if (b && (b.name === name || (!b.name && (b.binding_name === name || b.instance_name === name)))) return b;
    }
  }
  return null;
}

/** host, port, user, password (URL-encoded), dbname, search of a binding's credentials. */
function dbParts(cr, name) {
  if (typeof cr.uri === 'string' && cr.uri !== '') {
    let u;
    try {
      u = new URL(cr.uri);
    } catch {
      fail(`binding ${name}: credentials.uri is not a URL`);
    }
    return { host: u.hostname, port: u.port || '5432', user: u.username, password: u.password,
      dbname: u.pathname.replace(/^\//, ''), search: u.search };
  }
  const host = cr.hostname || cr.host;
  if (!host) fail(`binding ${name}: credentials have no uri, hostname or host`);
  const enc = (v) => encodeURIComponent(v == null ? '' : String(v));
  return { host, port: String(cr.port || '5432'), user: enc(cr.username || cr.user), password: enc(cr.password),
    dbname: enc(cr.name || cr.dbname || cr.database || ''), search: '' };
}

/**
 * @param {object} envDoc the v3 app env document
 * @param {{service: string, localPort: number}} opts
 */
function tunnelInfo(envDoc, { service, localPort }) {
  const ev = (envDoc && envDoc.environment_variables) || {};
  if (!ev.CHISEL_AUTH) fail('the chisel app has no CHISEL_AUTH (push it with manifests/chisel.yml and your vars file)');
  if (!ev.CHISEL_KEY) fail('the chisel app has no CHISEL_KEY (push it with manifests/chisel.yml and your vars file)');
  const vcap = envDoc.system_env_json && envDoc.system_env_json.VCAP_SERVICES;
  const b = findBinding(vcap, service);
  if (!b) fail(`the chisel app has no binding named ${service}: cf bind-service chisel ${service} && cf restart chisel`);
  const p = dbParts(b.credentials || {}, service);
  const userinfo = p.user ? `${p.user}${p.password ? `:${p.password}` : ''}@` : '';
  return {
    auth: ev.CHISEL_AUTH,
    key: ev.CHISEL_KEY,
    target: `${p.host}:${p.port}`,
    url: `postgres://${userinfo}127.0.0.1:${localPort}/${p.dbname}${p.search}`,
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
