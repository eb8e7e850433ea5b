// tls-cert.js — the self-signed certificate of the local platform's HTTPS listeners (the
// router's and the front proxies'): RSA 2048 from openssl for localhost, *.localhost and
// 127.0.0.1, certificate and key in one PEM file as HAProxy's `crt` takes it. Made once per
// file; clients skip verification (--skip-ssl-validation), as on a dev foundation.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');

const CERT_DAYS = 3650;

function openssl(args) {
  return new Promise((resolve, reject) => {
    execFile('openssl', args, { encoding: 'utf8' }, (err, _out, stderr) => {
      if (err) reject(new Error(`openssl ${args[0]}: ${(stderr || err.message).trim()}`));
      else resolve();
    });
  });
}

/** The PEM file `file` (certificate + key, mode 600), made when missing. */
async function ensureSelfSignedCert(file) {
  if (fs.existsSync(file)) return file;
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const key = path.join(dir, `.key-${process.pid}.pem`);
  const crt = path.join(dir, `.crt-${process.pid}.pem`);
  try {
    await openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt,
      '-days', String(CERT_DAYS), '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,DNS:*.localhost,IP:127.0.0.1']);
    fs.writeFileSync(`${file}.new`, fs.readFileSync(crt, 'utf8') + fs.readFileSync(key, 'utf8'), { mode: 0o600 });
    fs.renameSync(`${file}.new`, file);
  } finally {
    fs.rmSync(key, { force: true });
    fs.rmSync(crt, { force: true });
  }
  return file;
}

module.exports = { ensureSelfSignedCert };
