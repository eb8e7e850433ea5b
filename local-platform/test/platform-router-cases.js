'use strict';
// platform-router-cases.js — platform.test.js's cases of the router: round-robin by Host,
// HTTPS and WebSockets, a request pinned to an instance, a route's load balancing, the access
// log in Gorouter's layout, the router's own CPU. Each takes { pw (fixtures/platform-world.js),
// guid (the app tiny's) }.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { UUID_RE, until } = require('./fixtures/platform-world');

async function roundRobin({ pw, guid }) {
  const { get } = pw;
  const seen = [];
  for (let i = 0; i < 6; i++) {
    const r = await get('tiny.localhost', '/', { 'X-Correlation-ID': `cid-${i}` });
    assert.equal(r.status, 200);
    assert.match(r.headers['x-vcap-request-id'], UUID_RE);
    assert.equal(r.headers['x-seen-vcap-request-id'], r.headers['x-vcap-request-id']);
    seen.push(r.headers['x-instance-index']);
  }
  assert.deepEqual(new Set(seen), new Set(['0', '1']));
  for (let i = 1; i < seen.length; i++) assert.notEqual(seen[i], seen[i - 1], `alternating: ${seen}`);
  assert.equal((await get('nowhere.localhost', '/')).status, 404);
  const seenHeaders = JSON.parse((await get('tiny.localhost', '/headers')).body);
  assert.equal(seenHeaders['x-cf-applicationid'], guid);
  assert.match(seenHeaders['x-request-start'], /^\d{13}$/);
  assert.equal(seenHeaders['x-forwarded-proto'], 'http');
  assert.equal(seenHeaders['x-forwarded-for'], '127.0.0.1');
}

async function routerHttps({ pw }) {
  const { cflOk, curlJson, CFG } = pw;
  const tls = require('node:tls');
  const https = require('node:https');
  const res = await new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port: CFG.routerTlsPort, path: '/headers', headers: { Host: 'tiny.localhost' }, rejectUnauthorized: false, agent: false }, (r) => {
      const cert = r.socket.getPeerCertificate();
      let body = '';
      r.on('data', (d) => { body += d; });
      r.on('end', () => resolve({ status: r.statusCode, body, cert }));
    }).on('error', reject);
  });
  assert.equal(res.status, 200);
  assert.equal(JSON.parse(res.body)['x-forwarded-proto'], 'https');
  assert.equal(res.cert.subject.CN, 'localhost');
  assert.match(res.cert.subjectaltname, /DNS:\*\.localhost/);
  // Verified, it fails: the certificate is self-signed, as on a dev foundation.
  const verified = await new Promise((resolve) => {
    https.get({ host: '127.0.0.1', port: CFG.routerTlsPort, path: '/', headers: { Host: 'tiny.localhost' } }, () => resolve('ok'))
      .on('error', (e) => resolve(e.code));
  });
  assert.equal(verified, 'DEPTH_ZERO_SELF_SIGNED_CERT');
  // A WebSocket handshake, then bytes both ways through the router.
  const echoed = await new Promise((resolve, reject) => {
    const sock = tls.connect({ host: '127.0.0.1', port: CFG.routerTlsPort, servername: 'tiny.localhost', rejectUnauthorized: false }, () => {
      sock.write('GET /ws HTTP/1.1\r\nHost: tiny.localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n'
        + 'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    });
    let got = '';
    sock.on('data', (d) => {
      got += d;
      if (got.includes('\r\n\r\n') && !got.includes('ping-1')) sock.write('ping-1');
      if (got.includes('ping-1')) { sock.destroy(); resolve(got); }
    });
    sock.on('error', reject);
    sock.setTimeout(5000, () => { sock.destroy(); reject(new Error(`no echo: ${got}`)); });
  });
  assert.match(echoed, /^HTTP\/1\.1 101 /);
  assert.match(echoed, /^x-seen-forwarded-proto: https\r$/mi); // HAProxy sends header names in lower case
  assert.match(echoed, /\r\n\r\nping-1$/);
  const info = await curlJson('/v3/info');
  assert.equal(info.name, 'cfscale-local');
  assert.deepEqual(info.custom, { router_https_url: `https://127.0.0.1:${CFG.routerTlsPort}` });
  assert.equal(await cflOk('router-url', '--https'), `https://127.0.0.1:${CFG.routerTlsPort}`);
}

async function pinnedInstance({ pw, guid }) {
  const { get } = pw;
  for (let i = 0; i < 4; i++) {
    const r = await get('tiny.localhost', '/', { 'X-Cf-App-Instance': `${guid}:1` });
    assert.equal(r.headers['x-instance-index'], '1');
  }
  assert.equal((await get('tiny.localhost', '/', { 'X-Cf-App-Instance': 'nope:0' })).status, 400);
}

async function updateRoute({ pw, guid }) {
  const { ok, get, curlJson, w, CFG } = pw;
  const cfgFile = path.join(CFG.haproxyDir, 'haproxy.cfg');
  const backendOf = (text) => /^backend app_tiny\n {2}balance (\w+)$/m.exec(text)[1];
  assert.equal(backendOf(fs.readFileSync(cfgFile, 'utf8')), 'roundrobin');
  await ok('update-route', 'localhost', '--hostname', 'tiny', '-o', 'loadbalancing=least-connection');
  assert.equal(backendOf(fs.readFileSync(cfgFile, 'utf8')), 'leastconn');
  const routes = await curlJson(`/v3/apps/${guid}/routes`);
  assert.deepEqual(routes.resources.map((r) => [r.host, r.url, r.options]), [['tiny', 'tiny.localhost', { loadbalancing: 'least-connection' }]]);
  assert.equal(JSON.parse(fs.readFileSync(CFG.stateFile, 'utf8')).apps.tiny.routeOptions['tiny.localhost'].loadbalancing, 'least-connection', 'kept in the state');
  for (const i of [0, 1]) assert.equal((await get('tiny.localhost', '/', { 'X-Cf-App-Instance': `${guid}:${i}` })).headers['x-instance-index'], String(i));
  assert.equal((await w.cf('update-route', 'localhost', '--hostname', 'tiny', '-o', 'loadbalancing=hash')).code, 1);
  assert.equal(backendOf(fs.readFileSync(cfgFile, 'utf8')), 'leastconn', 'a refused update changes nothing');
  assert.equal((await w.cf('update-route', 'localhost', '--hostname', 'nope', '-r', 'loadbalancing')).code, 1);
  await ok('update-route', 'localhost', '--hostname', 'tiny', '-r', 'loadbalancing');
  assert.equal(backendOf(fs.readFileSync(cfgFile, 'utf8')), 'roundrobin');
  assert.equal((await get('tiny.localhost', '/')).status, 200);
}

async function routerAccessLog({ pw, guid }) {
  const { ok, get } = pw;
  const r = await get('tiny.localhost', '/rtr', { 'X-Correlation-ID': 'rtr-check' });
  const id = r.headers['x-vcap-request-id'];
  const line = await until('RTR line', async () => (await ok('logs', 'tiny', '--recent')).split('\n').find((l) => l.includes(id)));
  assert.match(line, /^ {3}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\d\+0000 \[RTR\/0\] OUT tiny\.localhost - \[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z\] "GET \/rtr HTTP\/1\.1" 200 /);
  assert.match(line, new RegExp(`vcap_request_id:"${id}" response_time:\\d+\\.\\d{6} gorouter_time:\\d+\\.\\d{6} app_id:"${guid}" app_index:"${r.headers['x-instance-index']}"`));
  assert.match(line, /x_correlation_id:"rtr-check"$/);
  assert.match(await ok('logs', 'tiny', '--recent'), /\[APP\/PROC\/WEB\/\d\] OUT request GET \/rtr/);
}

async function routerUsage({ pw }) {
  const { cflOk, get } = pw;
  const first = JSON.parse(await cflOk('router-usage'));
  const before = first.cpu_ns;
  assert.ok(Number.isInteger(before) && before > 0, `cpu_ns ${before}`);
  assert.equal(first.cpu_quota_cores, null, 'the router runs without a CPU quota');
  for (let i = 0; i < 200; i++) await get('tiny.localhost', '/');
  const after = JSON.parse(await cflOk('router-usage')).cpu_ns;
  assert.ok(after > before, `${before} → ${after}`);
}

module.exports = { roundRobin, routerHttps, pinnedInstance, updateRoute, routerAccessLog, routerUsage };
