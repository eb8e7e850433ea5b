// Unit tests of the local platform's pure parts: manifest + vars, CF env, java memory,
// HAProxy config (validated by `haproxy -c`), RTR line conversion, stats JSON shapes. The
// settings and the cell's pieces: settings-cell.test.js.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { readManifest, parseMegabytes } = require('../lib/manifest');
const { instanceEnv } = require('../lib/cf-env');
const { memoryOptions } = require('../lib/java-memory');
const { buildConfig } = require('../lib/haproxy-config');
const { RouterSync, sharedRoutes } = require('../lib/router-sync');
const { toRtrLine } = require('../lib/rtr-log');
const { v3Stats } = require('../lib/instance-usage');
const { environmentVariables, curl } = require('../lib/cf-api');
const { Events } = require('../lib/events');

const REPO = path.resolve(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-local-unit-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeManifest(text) {
  const f = path.join(tmp, `m${Math.random().toString(36).slice(2)}.yml`);
  fs.writeFileSync(f, text);
  return f;
}

test('manifest: the repo manifests resolve with vars-local.yml', () => {
  const vars = { varsFiles: [path.join(REPO, 'manifests', 'vars-local.yml')] };
  const [node] = readManifest(path.join(REPO, 'manifests', 'node-app.yml'), vars);
  assert.equal(node.name, 'node-app');
  assert.equal(node.memoryMb, 200);
  assert.equal(node.instances, 1);
  assert.deepEqual(node.routes, ['node-app.localhost']);
  assert.deepEqual(node.services, ['node-db', 'results-db']);
  assert.equal(node.env.DB_POOL_SIZE, '10');
  assert.equal(node.healthCheck.type, 'port');
  assert.equal(node.healthCheck.invocationTimeoutSec, 10);
  assert.equal(node.buildpack, 'nodejs_buildpack');
  const [lg] = readManifest(path.join(REPO, 'manifests', 'loadgen.yml'), vars);
  assert.deepEqual(lg.routes, []);
  assert.equal(lg.healthCheck.type, 'process');
});

test('manifest: missing vars fail like cf push, listing every one', () => {
  const f = writeManifest('applications:\n- name: a\n  memory: ((mem))\n  routes:\n  - route: a.((domain))\n  command: x\n');
  assert.throws(() => readManifest(f, {}), /^Error: Expected to find variables: domain, mem$/);
});

test('manifest: vars keep their type when whole, become text when partial; --var wins', () => {
  const f = writeManifest('applications:\n- name: ((n))\n  path: .\n  command: run\n  instances: ((i))\n  memory: ((m))M\n  env:\n    X: ((i))\n');
  const varsFile = path.join(tmp, 'v.yml');
  fs.writeFileSync(varsFile, 'n: app1\ni: 3\nm: 64\n');
  const [a] = readManifest(f, { varsFiles: [varsFile], vars: ['i=2'] });
  assert.equal(a.name, 'app1');
  assert.equal(a.instances, 2);
  assert.equal(a.memoryMb, 64);
  assert.equal(a.env.X, '2');
});

test('manifest: memory units', () => {
  const cases = [['200M', 200], ['1G', 1024], ['512MB', 512], ['2gb', 2048], ['1048576K', 1024]];
  for (const [v, mb] of cases) assert.equal(parseMegabytes(v, 'memory'), mb, v);
  for (const bad of ['200', 'lots', '-1M', '0M']) assert.throws(() => parseMegabytes(bad, 'memory'), /memory must be/, bad);
});

test('env: VCAP_SERVICES and VCAP_APPLICATION in the CF shape', () => {
  const app = {
    name: 'node-app', guid: 'g-1', version: 'v-1', routes: ['node-app.localhost'], memoryMb: 200, diskMb: 1024,
    env: { NODE_ENV: 'production', PORT: '1' }, services: ['node-db', 'missing'],
  };
  const creds = { uri: 'postgres://u:p@127.0.0.1:5/node-db', hostname: '127.0.0.1', port: '5', name: 'node-db', username: 'u', password: 'p' };
  const services = { 'node-db': { name: 'node-db', guid: 's-1', label: 'postgres', plan: 'local', tags: ['postgres', 'postgresql'], credentials: creds, bindings: { 'node-app': 'b-1' } } };
  const env = instanceEnv(app, { index: 1, guid: 'i-1', port: 61001 }, services, { PATH: '/bin', SECRET: 'no' });
  assert.equal(env.PORT, '61001', 'platform PORT wins over the app env');
  assert.equal(env.CF_INSTANCE_INDEX, '1');
  assert.equal(env.CF_INSTANCE_GUID, 'i-1');
  assert.equal(env.MEMORY_LIMIT, '200m');
  assert.equal(env.NODE_ENV, 'production');
  assert.equal(env.PATH, '/bin');
  assert.equal(env.SECRET, undefined, 'host env is not leaked');
  assert.equal(env.DATABASE_URL, creds.uri);
  const vs = JSON.parse(env.VCAP_SERVICES);
  assert.deepEqual(Object.keys(vs), ['postgres']);
  assert.equal(vs.postgres.length, 1);
  const b = vs.postgres[0];
  assert.equal(b.name, 'node-db');
  assert.equal(b.instance_name, 'node-db');
  assert.deepEqual(b.tags, ['postgres', 'postgresql']);
  assert.deepEqual(b.credentials, creds);
  assert.equal(typeof b.credentials.port, 'string');
  const va = JSON.parse(env.VCAP_APPLICATION);
  for (const k of ['application_id', 'application_name', 'application_uris', 'limits', 'name', 'uris', 'space_name', 'organization_name', 'process_type', 'instance_index', 'instance_id']) {
    assert.ok(k in va, k);
  }
  assert.deepEqual(va.limits, { disk: 1024, fds: 16384, mem: 200 });
  assert.equal(va.application_id, 'g-1');
  assert.equal(env.TMPDIR, undefined, 'no host TMPDIR: instances have their own');
});

test('env: TMPDIR, TMP, TEMP = the instance temp dir; the app env TMPDIR wins', () => {
  const app = { name: 'a', guid: 'g', version: 'v', routes: [], memoryMb: 64, diskMb: 1024, env: {}, services: [] };
  const env = instanceEnv(app, { index: 0, guid: 'i', port: 1, tmpDir: '/h/instances/a/0/tmp' }, {}, { TMPDIR: '/tmp' });
  assert.deepEqual([env.TMPDIR, env.TMP, env.TEMP], ['/h/instances/a/0/tmp', '/h/instances/a/0/tmp', '/h/instances/a/0/tmp']);
  const own = instanceEnv({ ...app, env: { TMPDIR: '/mine' } }, { index: 0, guid: 'i', port: 1, tmpDir: '/h/t' }, {}, {});
  assert.equal(own.TMPDIR, '/mine');
  assert.equal(own.TMP, '/h/t');
});

test('cf-api: environment_variables in the v3 shape, user-provided only', () => {
  const doc = environmentVariables({ guid: 'g-1', env: { BUSY: '0', FOO: 'bar' } });
  assert.deepEqual(doc, {
    var: { BUSY: '0', FOO: 'bar' },
    links: { self: { href: '/v3/apps/g-1/environment_variables' }, app: { href: '/v3/apps/g-1' } },
  });
});

test('cf-api audit events: created_ats takes whole seconds only (CC\'s 400 CF-BadQueryParameter), filters by the exact time', () => {
  const events = new Events({ log: () => {}, resultsCredentials: () => null });
  const app = { guid: 'g-1', name: 'a' };
  for (const [index, at] of [[0, '2026-03-01T12:00:05.400Z'], [1, '2026-03-01T12:00:06.000Z']]) {
    events.record(app, { index, exitDescription: 'APP/PROC/WEB: Exited with status 137', crashCount: 1, oom: false, at: new Date(at) });
  }
  const platform = { state: { apps: {} }, events };
  const get = (query) => curl(platform, `/v3/audit_events?target_guids=g-1&types=audit.app.process.crash&${query}`, {});
  const indexes = (query) => {
    const r = get(query);
    assert.equal(r.status, 200, JSON.stringify(r.doc));
    return r.doc.resources.map((e) => e.data.index);
  };
  const invalid = "The query parameter is invalid: Created ats has an invalid timestamp format. Timestamps should be formatted as 'YYYY-MM-DDThh:mm:ssZ'";
  assert.deepEqual(get('created_ats[gt]=2026-03-01T12:00:05.123Z'),
    { status: 400, doc: { errors: [{ detail: invalid, title: 'CF-BadQueryParameter', code: 10005 }] } });
  assert.deepEqual(get('created_ats[gte]=2026-03-01T12:00:05%2B00:00').status, 400);
  assert.equal(get('created_ats[after]=2026-03-01T12:00:05Z').doc.errors[0].detail,
    "The query parameter is invalid: Created ats Invalid relational operator: 'after'");
  assert.deepEqual(indexes('created_ats[gt]=2026-03-01T12:00:05Z'), [1], 'gt T: after the whole second T');
  assert.deepEqual(indexes('created_ats[gte]=2026-03-01T12:00:05Z'), [0, 1]);
  assert.deepEqual(indexes('created_ats[lt]=2026-03-01T12:00:06Z'), [0]);
  assert.deepEqual(indexes('created_ats[lte]=2026-03-01T12:00:05Z'), [0], 'lte T: up to the end of the second T');
  assert.deepEqual(indexes('created_ats=2026-03-01T12:00:06Z,2026-03-01T12:00:07Z'), [1]);
  assert.deepEqual(get('').doc.resources.map((e) => e.created_at), ['2026-03-01T12:00:05Z', '2026-03-01T12:00:06Z']);
  assert.deepEqual(curl(platform, '/v3/nothing', {}),
    { status: 404, doc: { errors: [{ detail: 'Unknown request', title: 'CF-NotFound', code: 10000 }] } });
});

test('java memory calculator: 800M gives a JVM that fits; too small fails', () => {
  const opts = memoryOptions(800, 6000);
  const get = (re) => { const m = opts.map((o) => re.exec(o)).find(Boolean); return m && Number(m[1]); };
  const heapK = get(/^-Xmx(\d+)K$/);
  const metaK = get(/^-XX:MaxMetaspaceSize=(\d+)K$/);
  assert.ok(heapK > 100 * 1024, `heap ${heapK}K`);
  assert.ok(opts.includes('-XX:ReservedCodeCacheSize=240M'));
  assert.ok(opts.includes('-XX:MaxDirectMemorySize=10M'));
  assert.ok(opts.includes('-Xss1024K'));
  const totalM = (heapK + metaK) / 1024 + 240 + 10 + 250;
  assert.ok(totalM <= 800, `total ${totalM}M`);
  assert.ok(memoryOptions(800, 6000, '-Xmx200M').every((o) => !o.startsWith('-Xmx')), 'a user -Xmx is kept');
  assert.throws(() => memoryOptions(400, 6000), /too small/);
});

const CFG_APPS = [
  { name: 'node-app', guid: '11111111-2222-3333-4444-555555555555', routes: ['node-app.localhost'], slots: 8, instances: { 0: { port: 45901, ready: true }, 1: { port: 45902, ready: false } } },
  { name: 'java-app', guid: '66666666-2222-3333-4444-555555555555', routes: ['java-app.localhost'], slots: 16, instances: {} },
];

test('haproxy config: haproxy -c accepts it; routes by host; pins per instance', () => {
  const text = buildConfig({ routerPort: 45990, logPort: 45991, adminSocket: path.join(tmp, 'admin.sock'), apps: CFG_APPS });
  const f = path.join(tmp, 'haproxy.cfg');
  fs.writeFileSync(f, `${text}\n`);
  execFileSync('haproxy', ['-c', '-q', '-f', f]);
  assert.match(text, /acl host_node-app req\.hdr\(host\),field\(1,:\),lower -m str node-app\.localhost/);
  assert.match(text, /use_backend pin_node-app_1 if host_node-app \{ req\.hdr\(X-Cf-App-Instance\) -m str 11111111-2222-3333-4444-555555555555:1 \}/);
  assert.match(text, /server s0 127\.0\.0\.1:45901\n/);
  assert.match(text, /server s1 127\.0\.0\.1:45902 disabled/);
  assert.match(text, /http-reuse always/, 'an idle app connection serves any request, as Gorouter\'s pool does');
  assert.match(text, /http-response set-header X-Vcap-Request-Id %\[unique-id\] if !\{ res\.hdr\(X-Vcap-Request-Id\) -m found \}/);
  assert.equal((text.match(/^backend pin_java-app_/gm) || []).length, 16);
});

test('haproxy config: a route mapped to two apps is one backend with both apps\' instances, after every pin', () => {
  const apps = [
    { name: 'first', guid: 'g-first', routes: ['first.localhost'], balance: 'roundrobin', slots: 8, instances: { 0: { port: 45901, ready: true } } },
    { name: 'second', guid: 'g-second', routes: ['second.localhost', 'first.localhost'], slots: 8, instances: { 0: { port: 45902, ready: true }, 1: { port: 45903, ready: false } } },
  ];
  const shared = sharedRoutes(apps);
  assert.deepEqual(shared.map((g) => [g.urls, g.members, g.balance]), [[['first.localhost'], ['first', 'second'], 'roundrobin']]);
  const text = buildConfig({ routerPort: 45990, logPort: 45991, adminSocket: path.join(tmp, 'admin.sock'), apps, shared });
  const f = path.join(tmp, 'haproxy-shared.cfg');
  fs.writeFileSync(f, `${text}\n`);
  execFileSync('haproxy', ['-c', '-q', '-f', f]);
  const rules = text.split('\n').filter((l) => l.startsWith('  use_backend'));
  const sharedRule = rules.findIndex((l) => l.includes(shared[0].name));
  assert.equal(sharedRule, rules.filter((l) => l.includes('X-Cf-App-Instance')).length, 'pins first, then the shared route');
  assert.match(rules[sharedRule], /-m str first\.localhost \}$/);
  const backend = text.split(`backend ${shared[0].name}\n`)[1].split('\n\n')[0];
  assert.match(backend, /server m0s0 127\.0\.0\.1:45901\n/);
  assert.match(backend, /server m1s0 127\.0\.0\.1:45902\n/);
  assert.match(backend, /server m1s1 127\.0\.0\.1:45903 disabled/);
  assert.equal(sharedRoutes([apps[0], { ...apps[1], routes: ['second.localhost'] }]).length, 0);
  // The access log's backend and server name the app and instance.
  const sync = new RouterSync({ router: null, log: () => {}, apps: () => apps, instances: (n) => (n === 'second' ? [{ index: 0 }] : []) });
  sync.shared = new Map(shared.map((g) => [g.name, g.members]));
  const t = sync.target({ b: shared[0].name, s: 'm1s0' });
  assert.equal(t.app.name, 'second');
  assert.equal(t.index, 0);
});

test('rtr: HAProxy record → Gorouter access-log line', () => {
  const rec = {
    ts: '1795267940', ms: '045', b: 'app_node-app', s: 's1', m: 'POST', u: '/ads?x=1', v: 'HTTP/1.1', st: '201',
    bin: '42', bout: '300', rcl: '4', host: 'node-app.localhost:45990', ref: '-', ua: 'loadgen/1', xff: '-',
    cid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', xfp: 'http', ci: '127.0.0.1', cp: '50000', si: '127.0.0.1', sp: '45902',
    id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee', ta: '12', tr: '9',
  };
  const line = toRtrLine(rec, { appGuid: 'G', index: 1, instanceGuid: 'I' });
  assert.equal(line, 'node-app.localhost - [2026-11-21T13:32:20.045000000Z] "POST /ads?x=1 HTTP/1.1" 201 42 4 "-" "loadgen/1" '
    + '"127.0.0.1:50000" "127.0.0.1:45902" x_forwarded_for:"127.0.0.1" x_forwarded_proto:"http" '
    + 'vcap_request_id:"aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee" response_time:0.012000 gorouter_time:0.003000 '
    + 'app_id:"G" app_index:"1" instance_id:"I" x_cf_routererror:"-" x_correlation_id:"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"');
  assert.match(toRtrLine({ ...rec, st: '502', tsc: 'SH--' }, null), / x_cf_routererror:"endpoint_failure" /);
  assert.match(toRtrLine({ ...rec, st: '503', s: '<NOSRV>', tsc: 'SC--' }, null), / x_cf_routererror:"no_endpoints" /);
  assert.match(toRtrLine({ ...rec, st: '503', tsc: '----' }, null), / x_cf_routererror:"-" /, 'an app answering 503 is no router error');
  const noServer = toRtrLine({ ...rec, tr: '-1', si: '-', sp: '-', rcl: '-', bin: '-' }, null);
  assert.match(noServer, /"127\.0\.0\.1:50000" "-" /);
  assert.match(noServer, / 201 0 300 /);
  assert.match(noServer, /gorouter_time:0\.012000 app_id:"-"/);
});

test('stats: the v3 shape of CC\'s process stats, with the local quota and throttling', () => {
  const app = { name: 'a', state: 'STARTED', instances: 11, routes: ['a.localhost'], memoryMb: 200, diskMb: 1024 };
  const now = new Date('2026-11-21T13:00:05.123Z');
  const insts = Array.from({ length: 11 }, (_, i) => ({
    index: i, state: i === 3 ? 'CRASHED' : 'RUNNING', guid: `g${i}`, port: 61000 + i, since: now - 10000,
    usage: { cpu: 0.5, mem: 1000 + i, disk: 7 },
  }));
  const all = v3Stats(app, insts, 0.2, now).resources;
  assert.deepEqual(all.map((r) => r.index), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(all[0].state, 'RUNNING');
  assert.equal(all[0].mem_quota, 200 * 1024 * 1024);
  assert.equal(all[0].uptime, 10);
  assert.equal(all[3].state, 'CRASHED');
  // The cgroup's throttling counters, when the sample has them, in both shapes.
  const th = { periods: 9, throttled_periods: 3, throttled_us: 1200 };
  insts[1].usage = { ...insts[1].usage, throttling: th };
  assert.deepEqual(v3Stats(app, insts, 0.2, now).resources[1].cpu_throttling, th);
  insts[1].usage = { cpu: 0.5, mem: 1001, disk: 7 };
  const v3 = v3Stats(app, insts.slice(0, 2), 0.2, now);
  assert.equal(v3.resources.length, 11, 'missing instances are DOWN');
  assert.equal(v3.resources[0].index, 0);
  assert.equal(v3.resources[0].usage.cpu, 0.5);
  assert.equal(v3.resources[0].usage.cpu_entitlement, 2.5);
  assert.equal(v3.resources[0].cpu_quota, 0.2, 'the local quota');
  assert.equal(v3.resources[5].state, 'DOWN');
  assert.deepEqual(v3.resources[5], { type: 'web', index: 5, state: 'DOWN', routable: null, uptime: 0, isolation_segment: null, details: null },
    'a DOWN instance carries only what CC\'s down_instance_stats_hash has');
  assert.equal(v3.resources[0].usage.time, '2026-11-21T13:00:05+00:00', 'CC\'s RFC 3339, whole seconds');
  const starting = v3Stats(app, [{ ...insts[0], state: 'STARTING', usage: null }], 0.2, now).resources[0];
  assert.deepEqual(starting.usage, { time: '2026-11-21T13:00:05+00:00', cpu: 0, cpu_entitlement: 0, mem: 0, disk: 0, log_rate: 0 },
    'before a first sample: zeros, as missing_process_stats');
});

test('v3 stats of a stopped app list its instances DOWN, as CC does (cf apps shows web:0/N)', () => {
  const app = { name: 'a', state: 'STOPPED', instances: 2, memoryMb: 200, diskMb: 1024, routes: [] };
  const v3 = v3Stats(app, [], null, new Date('2026-11-21T13:00:05Z'));
  assert.deepEqual(v3.resources.map((r) => [r.index, r.state]), [[0, 'DOWN'], [1, 'DOWN']]);
  assert.ok(!('cpu_quota' in v3.resources[0]), 'no quota: no key');
});
