// generated from lib/bindings.js by node contract/readme-tables.js --write: edit lib/bindings.js
'use strict';
// bindings.js — PostgreSQL service bindings from VCAP_SERVICES, and the connection settings
// (with TLS as the broker asks) for node-postgres, pure JS or native.
//
// One file, lib/bindings.js: the parts the repository runs require it; node-app and the
// loadgen, which CF pushes each folder alone, hold stamped copies written by
// `node contract/readme-tables.js --write`, whose check (lint suite) fails when one is stale.
// Why not the cfenv package: contract/bindings/README.md.
// The credential shapes of the brokers and the rules below: docs/bindings.md.
//
// Picking a binding: by name (binding `name`, else `instance_name`, else `binding_name`);
// with no name asked, the first binding with a tag containing "postgres", else the first
// whose label contains "postgres", leaving out the names in `exclude`.
// Credentials: `uri`|`url` (postgres:// or postgresql://), else `jdbcUrl`, then the
// fields hostname|host|hosts[0], port, name|dbname|database|db, username|user, password.
// Several hosts: `hosts` gives the first (a9s also gives `host`, which wins); a uri or
// jdbcUrl naming several (host1:port1,host2:port2) is refused with one line, as pure pg
// cannot try them in order as libpq and pgjdbc do.
// TLS: sslmode from the URI query, else credentials.sslmode, else the jdbcUrl's sslmode;
// without one, a CA certificate in the credentials means verify-ca, require_ssl: true or a
// jdbcUrl with ssl=true means require, else disable. As in libpq, require with a CA
// certificate verifies the chain (verify-ca). require never checks the certificate.
// Client certificate: sslcert (PEM certificate) with sslkey (PEM private key) in the
// credentials (Cloud SQL via the GCP broker) is presented whenever TLS is on; one without
// the other is not (SAP BTP's sslcert alone).

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const DEFAULT_PORT = 5432;
const SSLMODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
const CA_KEYS = ['sslrootcert', 'ca_cert', 'cacrt', 'ca', 'tls_ca'];
const FIELDS = {
  host: ['hostname', 'host', 'hosts'],
  database: ['name', 'dbname', 'database', 'db'],
  user: ['username', 'user'],
  password: ['password'],
};

// A URL naming several hosts (libpq's host1:port1,host2:port2): refused, see the header.
const MULTI_HOST = /^[a-z:]+\/\/(?:[^@/?]*@)?([^/?]*,[^/?]*)/;

/** Bad or incomplete bindings: the message is the one line to print. */
class BindingError extends Error {}

const bindingName = (b) => b.name ?? b.instance_name ?? b.binding_name ?? null;
const mentionsPostgres = (s) => typeof s === 'string' && s.toLowerCase().includes('postgres');

/** Every binding of a VCAP_SERVICES document (JSON text or parsed), in document order. */
function listBindings(vcap, variable = 'VCAP_SERVICES') {
  let doc = vcap;
  if (typeof vcap === 'string') {
    try {
      doc = JSON.parse(vcap);
    } catch {
      throw new BindingError(`${variable} is not valid JSON`);
    }
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new BindingError(`${variable} must be a JSON object of service arrays`);
  }
  const out = [];
  for (const list of Object.values(doc)) {
    if (!Array.isArray(list)) continue;
    for (const b of list) if (b && typeof b === 'object') out.push(b);
  }
  return out;
}

/** The binding asked for (see the header), or null. */
function findBinding(bindings, { name, exclude = [] } = {}) {
  if (name) return bindings.find((b) => bindingName(b) === name) ?? null;
  const candidates = bindings.filter((b) => !exclude.includes(bindingName(b)));
  return candidates.find((b) => Array.isArray(b.tags) && b.tags.some(mentionsPostgres))
    ?? candidates.find((b) => mentionsPostgres(b.label)) ?? null;
}

/** A postgres URL's parts; null when text is not one. jdbc: URLs take user/password from the query. */
function parseUrl(text) {
  if (typeof text !== 'string') return null;
  const jdbc = text.startsWith('jdbc:');
  const m = /^(?:jdbc:)?(postgres|postgresql):\/\//.exec(text);
  if (!m) return null;
  let u;
  try {
    u = new URL(`postgres://${text.slice(m[0].length)}`);
  } catch {
    return null;
  }
  const q = u.searchParams;
  const dec = (s) => (s ? decodeURIComponent(s) : undefined);
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1') || undefined,
    port: u.port || undefined,
    database: dec(u.pathname.replace(/^\//, '')),
    user: jdbc ? q.get('user') ?? undefined : dec(u.username),
    password: jdbc ? q.get('password') ?? undefined : dec(u.password),
    sslmode: q.get('sslmode') ?? undefined,
    ssl: q.get('ssl') ?? undefined,
    sslrootcert: q.get('sslrootcert') ?? undefined,
    sslcert: q.get('sslcert') ?? undefined,
    sslkey: q.get('sslkey') ?? undefined,
  };
}

function field(creds, keys) {
  for (const k of keys) {
    const v = creds[k];
    if (typeof v === 'string' && v !== '') return v;
    if (Array.isArray(v) && typeof v[0] === 'string' && v[0] !== '') return v[0];
  }
  return undefined;
}

function caOf(creds) {
  for (const k of CA_KEYS) {
    if (typeof creds[k] === 'string' && creds[k].includes('BEGIN CERTIFICATE')) return creds[k];
  }
  const tls = creds.tls;
  if (tls && typeof tls === 'object' && typeof tls.ca === 'string' && tls.ca.includes('BEGIN CERTIFICATE')) return tls.ca;
  return null;
}

/** { cert, key } PEM text of the client certificate, or nulls (see the header). */
function clientCertOf(creds) {
  const cert = typeof creds.sslcert === 'string' && creds.sslcert.includes('BEGIN CERTIFICATE') ? creds.sslcert : null;
  const key = typeof creds.sslkey === 'string' && /BEGIN [A-Z ]*PRIVATE KEY/.test(creds.sslkey) ? creds.sslkey : null;
  return cert && key ? { cert, key } : { cert: null, key: null };
}

function checkPort(source, port) {
  if (port === undefined || port === null || port === '') return DEFAULT_PORT;
  const n = Number(port);
  if (!/^[0-9]{1,5}$/.test(String(port)) || n < 1 || n > 65535) {
    throw new BindingError(`${source}: port must be an integer from 1 to 65535, got ${JSON.stringify(port)}`);
  }
  return n;
}

/** The sslmode the broker asks for (see the header). */
function resolveSslmode(source, explicit, { ca, hinted }) {
  const mode = explicit ?? (ca ? 'verify-ca' : hinted ? 'require' : 'disable');
  if (!SSLMODES.includes(mode)) {
    throw new BindingError(`${source}: sslmode must be one of ${SSLMODES.join(', ')}, got ${JSON.stringify(mode)}`);
  }
  if (mode === 'require' && ca) return 'verify-ca';
  if ((mode === 'verify-ca' || mode === 'verify-full') && !ca) {
    throw new BindingError(`${source}: sslmode ${mode} needs a CA certificate (sslrootcert) in the credentials`);
  }
  return mode;
}

/**
 * Connection settings from one binding: { source, host, port, database, user, password,
 * sslmode, ca, cert, key } (ca, cert, key: PEM text or null). BindingError naming the
 * binding and the field.
 */
function connectionFromBinding(binding) {
  const source = `VCAP_SERVICES binding "${bindingName(binding)}"`;
  const creds = binding.credentials;
  if (!creds || typeof creds !== 'object') throw new BindingError(`${source}: no credentials object`);
  for (const key of ['uri', 'url', 'jdbcUrl', 'jdbc_url']) {
    const m = typeof creds[key] === 'string' && MULTI_HOST.exec(creds[key]);
    if (m) {
      throw new BindingError(`${source}: credentials.${key} names several hosts (${m[1]}); cfscale connects to one: give one host, or hosts (the first is used)`);
    }
  }
  const uriText = field(creds, ['uri', 'url']);
  const uri = parseUrl(uriText);
  if (uriText && !uri) throw new BindingError(`${source}: credentials.uri is not a postgres:// URL`);
  const jdbc = parseUrl(field(creds, ['jdbcUrl', 'jdbc_url']));
  const pick = (what) => uri?.[what] ?? field(creds, FIELDS[what]) ?? jdbc?.[what];
  const conn = { source };
  for (const what of ['host', 'database', 'user', 'password']) {
    conn[what] = pick(what);
    if (conn[what] === undefined) {
      throw new BindingError(`${source}: credentials have no ${what} (uri, jdbcUrl or ${FIELDS[what].join('|')})`);
    }
  }
  conn.port = checkPort(source, uri?.port ?? creds.port ?? jdbc?.port);
  conn.ca = caOf(creds);
  Object.assign(conn, clientCertOf(creds));
  const explicit = uri?.sslmode ?? (typeof creds.sslmode === 'string' ? creds.sslmode : undefined) ?? jdbc?.sslmode;
  const hinted = creds.require_ssl === true || creds.require_ssl === 'true' || jdbc?.ssl === 'true';
  conn.sslmode = resolveSslmode(source, explicit, { ca: conn.ca, hinted });
  return conn;
}

/** Connection settings from a postgres:// URL (DATABASE_URL and the like); sslrootcert, sslcert, sslkey are files. */
function connectionFromUrl(url, source) {
  const u = parseUrl(url);
  if (!u || !u.host) throw new BindingError(`${source} must be a postgres:// URL with a host`);
  const read = (param) => {
    if (!u[param]) return null;
    try {
      return fs.readFileSync(u[param], 'utf8');
    } catch (err) {
      throw new BindingError(`${source}: cannot read ${param} ${u[param]}: ${err.code || err.message}`);
    }
  };
  const ca = read('sslrootcert');
  const cert = read('sslcert');
  const key = read('sslkey');
  if (!cert !== !key) throw new BindingError(`${source}: sslcert and sslkey go together`);
  return {
    cert,
    key,
    source,
    host: u.host,
    port: checkPort(source, u.port),
    database: u.database ?? '',
    user: u.user ?? '',
    password: u.password ?? '',
    ca,
    sslmode: resolveSslmode(source, u.sslmode, { ca, hinted: u.ssl === 'true' }),
  };
}

/**
 * PEM text as a file (libpq reads sslrootcert, sslcert and sslkey from files), written once
 * per content, mode 600 (libpq refuses a key others can read), renamed into place whole.
 */
function pemFile(kind, pem) {
  const file = path.join(os.tmpdir(), `cfscale-${kind}-${crypto.createHash('sha256').update(pem).digest('hex').slice(0, 16)}.pem`);
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, pem, { mode: 0o600 });
    fs.renameSync(tmp, file);
  }
  return file;
}

/** libpq's file parameters for conn's CA and client certificate. */
function libpqFiles(conn) {
  const out = {};
  if (conn.ca) out.sslrootcert = pemFile('ca', conn.ca);
  if (conn.cert) {
    out.sslcert = pemFile('cert', conn.cert);
    out.sslkey = pemFile('key', conn.key);
  }
  return out;
}

/**
 * node-postgres settings for conn: host, port, database, user, password and ssl. The pure
 * JS client gets tls.connect options (require: no verification, verify-ca: the chain,
 * verify-full: chain and host name; cert and key: the client certificate); pg-native gets
 * libpq's sslmode, sslrootcert, sslcert and sslkey (files).
 * allow and prefer are plain connections (pure pg cannot fall back), in both drivers.
 */
function pgConfig(conn, { native = false } = {}) {
  const base = { host: conn.host, port: conn.port, database: conn.database, user: conn.user, password: conn.password };
  const tls = conn.sslmode === 'require' || conn.sslmode.startsWith('verify-');
  if (native) {
    return { ...base, ssl: tls ? { sslmode: conn.sslmode, ...libpqFiles(conn) } : { sslmode: 'disable' } };
  }
  if (!tls) return { ...base, ssl: false };
  const client = conn.cert ? { cert: conn.cert, key: conn.key } : {};
  if (conn.sslmode === 'require') return { ...base, ssl: { rejectUnauthorized: false, ...client } };
  const ssl = { rejectUnauthorized: true, ca: conn.ca, ...client };
  if (conn.sslmode === 'verify-ca') ssl.checkServerIdentity = () => undefined;
  return { ...base, ssl };
}

/**
 * conn as a postgres:// URL that libpq and psql read the same way: sslmode, and
 * sslrootcert, sslcert and sslkey (files) when there is a CA or a client certificate. libpqCompat: for node-postgres' own
 * connectionString parsing, which takes libpq's meaning of sslmode only with
 * uselibpqcompat=true (else require and verify-ca verify the host name too).
 */
function toUrl(conn, { libpqCompat = false } = {}) {
  const enc = encodeURIComponent;
  const h = conn.host.includes(':') ? `[${conn.host}]` : conn.host;
  const auth = conn.user ? `${enc(conn.user)}${conn.password ? `:${enc(conn.password)}` : ''}@` : '';
  const q = [`sslmode=${conn.sslmode}`];
  for (const [k, file] of Object.entries(libpqFiles(conn))) q.push(`${k}=${enc(file)}`);
  if (libpqCompat) q.push('uselibpqcompat=true');
  return `postgres://${auth}${h}:${conn.port}/${enc(conn.database)}?${q.join('&')}`;
}

/** postgres://user:***@host:port/db?sslmode=M — safe to log. */
function describeConnection(conn) {
  if (!conn) return 'none';
  const h = conn.host.includes(':') ? `[${conn.host}]` : conn.host;
  const auth = conn.user ? `${conn.user}${conn.password ? ':***' : ''}@` : '';
  return `postgres://${auth}${h}:${conn.port}/${conn.database}?sslmode=${conn.sslmode}${conn.ca ? ' (CA from credentials)' : ''}${conn.cert ? ' (client certificate)' : ''}`;
}

module.exports = {
  BindingError, listBindings, findBinding, bindingName, connectionFromBinding, connectionFromUrl, pgConfig, toUrl, describeConnection,
};
