'use strict';
// table.js — the broker table for the Node tests of every part that reads bindings
// (node-app, loadgen, scripts; java-app reads the same files in BindingsTableTest.java).
//
// Each *.json here is one real-shaped VCAP_SERVICES document (docs/bindings.md cites the
// broker's documentation) with placeholders that render() fills to point at the test
// cluster: ${HOST} ${PORT} ${USER} ${PASSWORD} ${DATABASE} ${CA_PEM}, ${CERT_DATABASE} (a
// database that takes only connections presenting a client certificate the CA signed),
// ${CLIENT_CERT_PEM} ${CLIENT_KEY_PEM} (that certificate and its RSA key; PEMs JSON-escaped) and
// "${PORT_NUMBER}" (quotes included) for a JSON number. `expect` is { sslmode, encrypted }
// (connects, pg_stat_ssl.ssl = encrypted), { sslmode, connectFails } or { error: [words] }
// (start-up fails with one line containing each word).
//
// tlsCluster(): the cluster of CFSCALE_TEST_PG_URL when CFSCALE_TEST_PG_DIR has a TLS CA and
// client certificate (scripts/test.sh starts it with --tls), else one of our own:
// pg-cluster.js --tls, which makes both and the client-certificate database (its
// name in tls/client-cert-database).

const fs = require('node:fs');
const path = require('node:path');

const DIR = __dirname;
const pgCluster = require('../../local-platform/lib/pg-cluster.js');
const OWN_DIR = '/tmp/cfscale-bindings-pg';
const OWN_PORT = 41444;

/** Every case: { file, broker, docs, service, expect, text } (text: the raw template). */
function loadCases() {
  return fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort().map((file) => {
    const text = fs.readFileSync(path.join(DIR, file), 'utf8');
    const doc = JSON.parse(text);
    return { file, broker: doc.broker, docs: doc.docs, service: doc.service, expect: doc.expect, text };
  });
}

/**
 * The case's VCAP_SERVICES as JSON text, pointing at `at` {host, port, user, password,
 * database, certDatabase, caPem, clientCertPem, clientKeyPem}.
 */
function render(c, at) {
  const pem = (s) => JSON.stringify(s).slice(1, -1);
  const text = c.text
    .split('"${PORT_NUMBER}"').join(String(at.port))
    .split('${HOST}').join(at.host)
    .split('${PORT}').join(String(at.port))
    .split('${USER}').join(at.user)
    .split('${PASSWORD}').join(at.password)
    .split('${CERT_DATABASE}').join(at.certDatabase)
    .split('${DATABASE}').join(at.database)
    .split('${CA_PEM}').join(pem(at.caPem))
    .split('${CLIENT_CERT_PEM}').join(pem(at.clientCertPem))
    .split('${CLIENT_KEY_PEM}').join(pem(at.clientKeyPem));
  return JSON.stringify(JSON.parse(text).VCAP_SERVICES);
}

/** A PostgreSQL cluster serving TLS: { at, stop() } with `at` for render(). */
function tlsCluster() {
  let url = process.env.CFSCALE_TEST_PG_URL;
  let tls = process.env.CFSCALE_TEST_PG_DIR && path.join(process.env.CFSCALE_TEST_PG_DIR, 'tls');
  let stop = () => {};
  if (!url || !tls || !fs.existsSync(path.join(tls, 'client-cert-database'))) {
    const wasRunning = pgCluster.isRunning(OWN_DIR);
    url = pgCluster.start(OWN_DIR, { port: OWN_PORT, tls: true });
    tls = path.join(OWN_DIR, 'tls');
    if (!wasRunning) stop = () => pgCluster.stop(OWN_DIR);
  }
  const u = new URL(url);
  const read = (f) => fs.readFileSync(path.join(tls, f), 'utf8');
  return {
    at: {
      host: '127.0.0.1', port: Number(u.port), user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password), database: u.pathname.slice(1) || 'postgres', certDatabase: read('client-cert-database').trim(),
      caPem: read('ca.crt'), clientCertPem: read('client.crt'), clientKeyPem: read('client.key'),
    },
    stop,
  };
}

module.exports = { loadCases, render, tlsCluster };
