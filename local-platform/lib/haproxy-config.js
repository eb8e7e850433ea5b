// haproxy-config.js — the router's configuration, generated from the apps (Gorouter's job
// on CF, docs/cf-platform.md §5): route by Host, round-robin or least-connection per
// app (route-options.js), keep-alive both sides,
// `X-Cf-App-Instance: GUID:INDEX` pins a request to one instance, X-Vcap-Request-Id set on
// request and response, access log as JSON over syslog to the daemon (rtr-log.js).
// Instances changing state are applied through the runtime API (haproxy.js) without a
// reload; a reload happens only when apps, routes or the number of server slots change.
'use strict';

const { appId } = require('./app-id');

const SLOT_BLOCK = 8; // server slots per app come in blocks, so scaling rarely reloads
// Gorouter's defaults: endpoint dial timeout 5 s, request/idle timeouts 900 s.
const TIMEOUT_CONNECT = '5s';
const TIMEOUT_IDLE = '900s';
// HAProxy needs 2 fds per connection; the machine allows 20000 fds per process.
const MAX_CONN = 9000;

// Per request, captured for the access log (index = capture id).
const REQ_CAPTURES = ['Host', 'Referer', 'User-Agent', 'X-Forwarded-For', 'X-Correlation-ID', 'X-Forwarded-Proto', 'Content-Length'];

function slotCount(instances) {
  return Math.max(SLOT_BLOCK, Math.ceil(instances / SLOT_BLOCK) * SLOT_BLOCK);
}

function backendName(app) { return `app_${appId(app.name)}`; }
function pinBackendName(app, index) { return `pin_${appId(app.name)}_${index}`; }
// A shared route's server for instance `index` of its member `k` (router-sync.js sharedRoutes).
function sharedServerName(k, index) { return `m${k}s${index}`; }

// JSON log line: every value in quotes, numbers parsed by rtr-log.js.
function logFormat() {
  const cap = (i) => `%[capture.req.hdr(${i}),json(utf8s)]`;
  const fields = [
    ['ts', '%Ts'], ['ms', '%ms'], ['b', '%b'], ['s', '%s'],
    ['m', '%[capture.req.method,json(utf8s)]'], ['u', '%[capture.req.uri,json(utf8s)]'],
    ['v', '%[capture.req.ver,json(utf8s)]'], ['st', '%ST'], ['bin', cap(6)], ['bout', '%B'],
    ['rcl', '%[capture.res.hdr(0),json(utf8s)]'],
    ['host', cap(0)], ['ref', cap(1)], ['ua', cap(2)], ['xff', cap(3)], ['cid', cap(4)], ['xfp', cap(5)],
    ['ci', '%ci'], ['cp', '%cp'], ['si', '%si'], ['sp', '%sp'], ['id', '%ID'], ['ta', '%Ta'], ['tr', '%Tr'], ['tsc', '%tsc'],
  ];
  return `{${fields.map(([k, v]) => `"${k}":"${v}"`).join(',')}}`;
}

function serverLine(name, inst) {
  const port = inst && inst.port ? inst.port : 1;
  return `  server ${name} 127.0.0.1:${port}${inst && inst.ready ? '' : ' disabled'}`;
}

// apps: [{name, guid, routes[], balance (roundrobin|leastconn, default roundrobin), slots,
//         instances: {slot: {port, ready}}, pins: {index: {port, ready}} (default: instances)}]
/**
 * The `defaults` section of every HAProxy here (the router and the front proxies): HTTP,
 * kept-alive connections on both sides, Gorouter's timeouts. log: the router logs every
 * request; retries: connection attempts again on another server; reuse: which requests may
 * take an idle server connection (`safe`: not a client connection's first request, which gets
 * a connection of its own).
 */
function httpDefaults({ log = false, retries = null, reuse = 'safe' } = {}) {
  return [
    'defaults',
    '  mode http',
    ...(log ? ['  log global'] : []),
    '  option http-keep-alive',
    '  option forwardfor',
    `  http-reuse ${reuse}`,
    `  timeout connect ${TIMEOUT_CONNECT}`,
    `  timeout client ${TIMEOUT_IDLE}`,
    `  timeout server ${TIMEOUT_IDLE}`,
    `  timeout http-keep-alive ${TIMEOUT_IDLE}`,
    '  timeout http-request 60s',
    ...(retries !== null ? [`  retries ${retries}`] : []),
    '',
  ];
}

// shared: [{name, urls[], members: [app name], balance}]: routes mapped to several apps.
// tlsPort, certFile: the HTTPS listener (Gorouter's router.enable_ssl, docs/cf-platform.md §21).
function buildConfig({ routerPort, tlsPort = null, certFile = null, logPort, adminSocket, apps, shared = [] }) {
  const out = [];
  out.push(
    'global',
    `  maxconn ${MAX_CONN}`,
    `  stats socket ${adminSocket} mode 600 level admin`,
    `  log 127.0.0.1:${logPort} len 8192 format raw local0`,
    '',
    // Gorouter's transport hands an idle backend connection to any request, a client
    // connection's first one too (docs/cf-platform.md §15): with `safe`, a client without
    // keep-alive would cost the app a new TCP connection per request, which on CF it does not.
    ...httpDefaults({ log: true, retries: 2, reuse: 'always' }),
    'frontend router',
    `  bind 127.0.0.1:${routerPort}`,
    ...(tlsPort ? [`  bind 127.0.0.1:${tlsPort} ssl crt ${certFile}`] : []),
    `  maxconn ${MAX_CONN}`,
    '  unique-id-format %[uuid()]',
    `  log-format '${logFormat()}'`,
    '  declare capture response len 20',
  );
  for (const h of REQ_CAPTURES) out.push(`  http-request capture req.hdr(${h}) len ${h === 'User-Agent' ? 512 : 256}`);
  out.push(
    '  http-response capture res.hdr(Content-Length) id 0',
    '  http-request set-header X-Vcap-Request-Id %[unique-id]',
    // Gorouter sets the scheme it was reached by when the client sent none (§21).
    '  http-request set-header X-Forwarded-Proto https if { ssl_fc } !{ req.hdr(X-Forwarded-Proto) -m found }',
    '  http-request set-header X-Forwarded-Proto http if !{ ssl_fc } !{ req.hdr(X-Forwarded-Proto) -m found }',
    // Gorouter adds X-Request-Start (ms since the epoch) when the request has none.
    '  http-request set-header X-Request-Start %[date(0,ms)] if !{ req.hdr(X-Request-Start) -m found }',
    // Gorouter copies its id into the response only when the app set none (§5).
    '  http-response set-header X-Vcap-Request-Id %[unique-id] if !{ res.hdr(X-Vcap-Request-Id) -m found }',
    '  acl has_pin req.hdr(X-Cf-App-Instance) -m found',
  );
  const pins = [];
  for (const app of apps) {
    if (!app.routes.length) continue;
    out.push(`  acl host_${appId(app.name)} req.hdr(host),field(1,:),lower -m str ${app.routes.join(' ')}`);
    for (let i = 0; i < app.slots; i++) pins.push(`${app.guid}:${i}`);
  }
  if (pins.length) out.push(`  acl pin_known req.hdr(X-Cf-App-Instance) -m str ${pins.join(' ')}`);
  else out.push('  acl pin_known always_false');
  out.push(
    '  http-request return status 400 content-type text/plain string "400 Bad Request: Invalid X-CF-App-Instance Header" hdr X-Cf-Routererror invalid_cf_app_instance_header if has_pin !pin_known',
  );
  // Pins first (an instance of any app on a shared route), then shared routes, then each
  // app's own routes.
  for (const app of apps) {
    if (!app.routes.length) continue;
    for (let i = 0; i < app.slots; i++) {
      out.push(`  use_backend ${pinBackendName(app, i)} if host_${appId(app.name)} { req.hdr(X-Cf-App-Instance) -m str ${app.guid}:${i} }`);
    }
  }
  for (const g of shared) out.push(`  use_backend ${g.name} if { req.hdr(host),field(1,:),lower -m str ${g.urls.join(' ')} }`);
  for (const app of apps) if (app.routes.length) out.push(`  use_backend ${backendName(app)} if host_${appId(app.name)}`);
  out.push('  default_backend unknown_route', '');
  out.push(
    'backend unknown_route',
    '  http-request return status 404 content-type text/plain lf-string "404 Not Found: Requested route (\'%[req.hdr(host)]\') does not exist.\\n" hdr X-Cf-Routererror unknown_route',
    '',
  );
  for (const app of apps) {
    if (!app.routes.length) continue;
    // Gorouter sets X-CF-ApplicationID on every request to an app.
    const appId = `  http-request set-header X-CF-ApplicationID ${app.guid}`;
    out.push(`backend ${backendName(app)}`, `  balance ${app.balance || 'roundrobin'}`, '  option redispatch 1', appId);
    for (let i = 0; i < app.slots; i++) out.push(serverLine(`s${i}`, app.instances[i]));
    out.push('');
    for (let i = 0; i < app.slots; i++) {
      out.push(`backend ${pinBackendName(app, i)}`, appId, serverLine(`s${i}`, (app.pins || app.instances)[i]), '');
    }
  }
  const byName = new Map(apps.map((a) => [a.name, a]));
  for (const g of shared) {
    // No X-CF-ApplicationID here: HAProxy rewrites a request before it picks the server,
    // Gorouter sets the picked endpoint's app.
    out.push(`backend ${g.name}`, `  balance ${g.balance || 'roundrobin'}`, '  option redispatch 1');
    g.members.forEach((n, k) => {
      const app = byName.get(n);
      for (let i = 0; i < app.slots; i++) out.push(serverLine(sharedServerName(k, i), app.instances[i]));
    });
    out.push('');
  }
  return out.join('\n');
}

module.exports = { buildConfig, httpDefaults, MAX_CONN, slotCount, backendName, pinBackendName, sharedServerName, SLOT_BLOCK };
