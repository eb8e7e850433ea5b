'use strict';
// cc-api-fuzz-cases.js — the table of cc-api-fuzz.test.js: for every write endpoint of the
// local Cloud Controller, the bad bodies it must refuse (GENERIC for any JSON endpoint, then
// its own: CC's documented limits, docs/cf-platform.md §17, §23). ids: the guids of the
// test's app, space, route, service instance, plan, package and droplet.

const MiB = 1024 * 1024;
// nginx's limit for any body, and the package upload's (docs/cf-platform.md §23).
const BODY_LIMIT = 15 * MiB;
const UPLOAD_LIMIT = 1024 * MiB;
const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/x-yaml';

// Bodies every JSON endpoint refuses: not JSON, not an object, not UTF-8, nested past any
// parser's depth, unknown fields, metadata out of CC's limits, and one byte over 15 MiB.
const rel = (name, guid) => ({ [name]: { data: { guid } } });
const GENERIC = () => [
  'not json{', '[]', 'null', '"text"', '12', 'true', '{"a":', `${'['.repeat(100000)}${']'.repeat(100000)}`,
  Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"name":"\xff\xfe"}
  { unknown_field: 1 }, { ['x'.repeat(70000)]: 'long key' }, { metadata: 'labels' }, { metadata: { labels: { 'bad key': 'v' } } },
  { metadata: { labels: { k: 'v'.repeat(64) } } }, { metadata: { annotations: { k: 'a'.repeat(5001) } } },
  { metadata: { labels: [] } }, { metadata: { extra: {} } }, { metadata: { labels: { 'a/b/c': 'v' } } },
  Buffer.alloc(BODY_LIMIT + 1, 0x20),
];

const str = (n, c = 'x') => c.repeat(n);
const CONTROL = 'ctl\u0000\u0001\n';
// [method, path, bodies (objects are sent as JSON; strings and Buffers as they are), content type].
const ENDPOINTS = (ids) => [...appEndpoints(ids), ...routeEndpoints(ids), ...serviceEndpoints(ids), ...bitsEndpoints(ids)];

/** The apps and their processes and droplet. */
function appEndpoints(ids) {
  return [
    ['POST', '/v3/apps', [
      {}, { name: 'a' }, { name: str(200 * 1024), relationships: { space: { data: { guid: ids.space } } } },
      { name: CONTROL, relationships: rel('space', ids.space) }, { name: str(256), relationships: rel('space', ids.space) },
      { name: '', relationships: rel('space', ids.space) }, { name: '   ', relationships: rel('space', ids.space) },
      { name: '\t\n', relationships: rel('space', ids.space) }, { name: 'a\u0007b', relationships: rel('space', ids.space) },
      { name: 'a\u2028b', relationships: rel('space', ids.space) }, { name: 12, relationships: rel('space', ids.space) },
      { name: null, relationships: rel('space', ids.space) }, { name: ['x'], relationships: rel('space', ids.space) },
      { name: { n: 1 }, relationships: rel('space', ids.space) }, { name: true, relationships: rel('space', ids.space) },
      { name: 'tiny', relationships: rel('space', ids.space) }, { name: ' tiny ', relationships: rel('space', ids.space) },
      { name: 'fz', relationships: 'space' }, { name: 'fz', relationships: {} }, { name: 'fz', relationships: { space: ids.space } },
      { name: 'fz', relationships: { space: { data: { guid: 5 } } } }, { name: 'fz', relationships: { space: { data: { guid: str(201) } } } },
      { name: 'fz', relationships: { space: { data: { guid: 'nope' } } } }, { name: 'fz', relationships: { space: { data: {} } } },
      { name: 'fz', relationships: { ...rel('space', ids.space), org: {} } }, { name: 'fz', relationships: rel('space', ids.space), environment_variables: 'x' },
      { name: 'fz', relationships: rel('space', ids.space), environment_variables: { PORT: '1' } },
      { name: 'fz', relationships: rel('space', ids.space), environment_variables: { VCAP_X: '1' } },
      { name: 'fz', relationships: rel('space', ids.space), environment_variables: { '': '1' } },
      { name: 'fz', relationships: rel('space', ids.space), lifecycle: 'buildpack' },
      { name: 'fz', relationships: rel('space', ids.space), lifecycle: { type: 'rkt', data: {} } },
      { name: 'fz', relationships: rel('space', ids.space), lifecycle: { type: 'docker', data: {} } },
      { name: 'fz', relationships: rel('space', ids.space), lifecycle: { type: 'buildpack', data: { buildpacks: 'nodejs' } } },
      { name: 'fz', relationships: rel('space', ids.space), lifecycle: { type: 'buildpack' } },
    ]],
    ['PATCH', `/v3/apps/${ids.app}/environment_variables`, [
      {}, { var: 'x' }, { var: [] }, { var: null }, { var: 12 }, { var: { PORT: '1' } }, { var: { port: '1' } }, { var: { VCAP_SERVICES: '{}' } },
      { var: { vmc_x: '1' } }, { var: { '': 'x' } }, { var: { A: 1 } }, { var: { A: true } }, { var: { A: { b: 1 } } }, { var: { A: ['x'] } },
      { var: { A: 'ok', B: 2 } }, { var: { A: 'x' }, other: 1 }, { vars: { A: 'x' } }, { var: { VCAP_APPLICATION: null } },
      { var: { Port: 'x' } }, { var: { A: 1.5 } }, { var: { [str(10)]: { nested: { deep: 1 } } } },
    ]],
    ['POST', `/v3/processes/${ids.app}/actions/scale`, scaleBodies()],
    ['POST', `/v3/apps/${ids.app}/processes/web/actions/scale`, scaleBodies()],
    ['PATCH', `/v3/processes/${ids.app}`, [
      { command: '' }, { command: str(4097) }, { command: 12 }, { command: ['x'] }, { user: 'root' }, { user: '' }, { user: str(256) },
      { user: 5 }, { health_check: 'http' }, { health_check: { type: 'ping' } }, { health_check: { type: 'http', data: 'x' } },
      { health_check: { data: { timeout: 0 } } }, { health_check: { data: { timeout: -1 } } }, { health_check: { data: { timeout: 'x' } } },
      { health_check: { data: { timeout: 1.5 } } }, { health_check: { data: { timeout: 2 ** 31 } } }, { health_check: { data: { interval: 0 } } },
      { health_check: { data: { invocation_timeout: '0' } } }, { health_check: { data: { endpoint: 'no-slash' } } },
      { health_check: { data: { endpoint: `/${str(255)}` } } }, { health_check: { data: { endpoint: 5 } } },
      { readiness_health_check: { type: 'none' } }, { readiness_health_check: { data: { interval: -5 } } },
      { metadata: { annotations: { 'other.io/x': 'y' } } }, { metadata: { annotations: { 'cfscale.local/cpu-quota': 'abc' } } },
      { metadata: { annotations: { 'cfscale.local/cpu-quota': '0.001' } } }, { metadata: { annotations: { 'cfscale.local/cpu-quota': 2 } } },
      { instances: 2 }, { health_check: { data: { timeout: true } } },
    ]],
    ['PATCH', `/v3/apps/${ids.app}/relationships/current_droplet`, [
      { data: null }, { data: {} }, { data: { guid: null } }, { data: { guid: 'nope' } }, { data: { guid: 5 } }, { data: 'x' },
      { data: { guid: ids.pkg } }, { data: { guid: str(300) } }, { data: [] }, { data: { guid: ['x'] } }, { data: { guid: {} } },
      {}, { guid: ids.droplet }, { data: { guid: '' } }, { data: { guid: true } }, { data: { guid: ids.app } }, { data: { guid: ids.si } },
      { data: { guid: ids.droplet.toUpperCase() } }, { data: { guid: `${ids.droplet} ` } }, { data: { guid: CONTROL } }, { data: 5 },
    ]],
  ];
}

/** The routes and their destinations. */
function routeEndpoints(ids) {
  return [
    ['POST', '/v3/routes', [
      {}, { host: 'x' }, { host: 'fz', relationships: {} }, { host: 'fz', relationships: { ...rel('space', ids.space) } },
      { host: str(64), relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      ...['a b', 'a.b', '../x', 'a/b', 'ä', 'x\u0000', 'a:b', 'a?b', 5, ['x'], { h: 1 }, true].map((host) => ({ host, relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } })),
      { host: 'fz', path: 'x', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', path: '/', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', path: '/a?b', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', path: `/${str(128)}`, relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', path: '/ok', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', port: -1, relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', port: 70000, relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', port: 'x', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', relationships: { ...rel('space', 'nope'), ...rel('domain', ids.domain) } },
      { host: 'fz', relationships: { ...rel('space', ids.space), ...rel('domain', 'nope') } },
      { host: '', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: '*', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'tiny', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fuzz-loose', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', options: { loadbalancing: 'hash' }, relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', options: 'x', relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
      { host: 'fz', options: { weird: '1' }, relationships: { ...rel('space', ids.space), ...rel('domain', ids.domain) } },
    ]],
    ['PATCH', `/v3/routes/${ids.route}`, [
      { options: 'x' }, { options: [] }, { options: { loadbalancing: 'hash' } }, { options: { loadbalancing: 'random' } },
      { options: { loadbalancing: 5 } }, { options: { other: 'x' } }, { host: 'x' }, { path: '/x' }, { options: { loadbalancing: ['round-robin'] } },
      { options: { loadbalancing: 'ROUND-ROBIN' } }, { options: { loadbalancing: `round-robin${'x'.repeat(1000)}` } },
      { options: { loadbalancing: true } }, { options: { loadbalancing: {} } }, { options: 5 }, { options: 'round-robin' },
      { options: { loadbalancing: 'least-connection', hash_header: 'x' } }, { options: { hash_balance: '2' } }, { destinations: [] },
      { metadata: { labels: { [str(64)]: 'v' } } }, { metadata: { annotations: [] } }, { port: 8080 },
    ]],
    ['POST', `/v3/routes/${ids.route}/destinations`, [
      {}, { destinations: 'all' }, { destinations: [] }, { destinations: Array(101).fill({ app: { guid: ids.app } }) }, { destinations: [1] },
      { destinations: [{}] }, { destinations: [{ app: 'x' }] }, { destinations: [{ app: {} }] }, { destinations: [{ app: { guid: 5 } }] },
      { destinations: [{ app: { guid: 'nope' } }] }, { destinations: [{ app: { guid: ids.app }, weight: 50 }] },
      { destinations: [{ app: { guid: ids.app }, port: 80 }] }, { destinations: [{ app: { guid: ids.app }, port: 70000 }] },
      { destinations: [{ app: { guid: ids.app }, protocol: 'http3' }] }, { destinations: [{ app: { guid: ids.app, process: { type: 'worker' } } }] },
      { destinations: [{ app: { guid: ids.app, process: 'web' } }] }, { destinations: [{ app: { guid: ids.app }, extra: 1 }] },
      { destinations: [{ app: { guid: str(201) } }] }, { destinations: [{ app: { guid: ids.app } }], other: 1 },
      { destinations: [{ app: { guid: ids.app, process: { type: '' } } }] }, { destinations: [{ app: { guid: ids.app }, protocol: 'tcp' }] },
      { destinations: { app: { guid: ids.app } } }, { destinations: [null] },
    ]],
  ];
}

/** The service instances and credential bindings. */
function serviceEndpoints(ids) {
  return [
    ['POST', '/v3/service_instances', [
      {}, { type: 'managed' }, { type: 'magic', name: 'fz' }, { type: 'user-provided', name: 'fz', relationships: rel('space', ids.space) },
      ...['', '   ', str(256), 'Bad Name', 'a/b', CONTROL, 'x'.repeat(64), 12, null, ['x']].map((name) => ({
        type: 'managed', name, relationships: { ...rel('space', ids.space), ...rel('service_plan', ids.plan) } })),
      { type: 'managed', name: 'results-db', relationships: { ...rel('space', ids.space), ...rel('service_plan', ids.plan) } },
      { type: 'managed', name: 'fz', relationships: { ...rel('space', ids.space) } },
      { type: 'managed', name: 'fz', relationships: { ...rel('space', ids.space), ...rel('service_plan', 'nope') } },
      { type: 'managed', name: 'fz', relationships: { ...rel('space', 'nope'), ...rel('service_plan', ids.plan) } },
      { type: 'managed', name: 'fz', tags: 'x', relationships: { ...rel('space', ids.space), ...rel('service_plan', ids.plan) } },
      { type: 'managed', name: 'fz', tags: [1], relationships: { ...rel('space', ids.space), ...rel('service_plan', ids.plan) } },
      { type: 'managed', name: 'fz', tags: [str(2049)], relationships: { ...rel('space', ids.space), ...rel('service_plan', ids.plan) } },
      { type: 'managed', name: 'fz', parameters: 'x', relationships: { ...rel('space', ids.space), ...rel('service_plan', ids.plan) } },
      { type: 'managed', name: 'fz', relationships: 'x' },
    ]],
    ['POST', '/v3/service_credential_bindings', [
      {}, { type: 'secret' }, { type: 'key' }, { type: 'key', name: 'k' }, { type: 'key', name: 'k', relationships: rel('service_instance', 'nope') },
      { type: 'key', name: '', relationships: rel('service_instance', ids.si) }, { type: 'key', name: 5, relationships: rel('service_instance', ids.si) },
      { type: 'key', name: str(256), relationships: rel('service_instance', ids.si) },
      { type: 'key', name: 'fuzz-key', relationships: rel('service_instance', ids.si) },
      { type: 'key', name: 'k', parameters: 'x', relationships: rel('service_instance', ids.si) },
      { type: 'key', name: 'k', strategy: 'many', relationships: rel('service_instance', ids.si) },
      { type: 'app', relationships: rel('service_instance', ids.si) }, { type: 'app', relationships: { ...rel('service_instance', ids.si), ...rel('app', 'nope') } },
      { type: 'app', relationships: { ...rel('service_instance', ids.si), ...rel('app', ids.app) } },
      { type: 'app', name: 'a b', relationships: { ...rel('service_instance', ids.si), ...rel('app', ids.app) } },
      { type: 'app', name: str(256), relationships: { ...rel('service_instance', ids.si), ...rel('app', ids.app) } },
      { type: 'app', relationships: { ...rel('service_instance', 'nope'), ...rel('app', ids.app) } },
      { type: 'key', name: 'k', relationships: { service_instance: { data: { guid: [ids.si] } } } },
      { type: 'key', name: 'k', relationships: 'x' }, { type: 'key', name: 'k', relationships: {} },
      { type: 'key', name: 'k', relationships: { ...rel('service_instance', ids.si), extra: {} } }, { type: 5, name: 'k' },
    ]],
  ];
}

/** The packages, uploads, builds, resource matches and manifests. */
function bitsEndpoints(ids) {
  return [
    ['POST', '/v3/packages', [
      {}, { type: 'bits' }, { type: 'docker', relationships: rel('app', ids.app) }, { type: 'zip', relationships: rel('app', ids.app) },
      { type: 'bits', relationships: rel('app', 'nope') }, { type: 'bits', relationships: rel('app', 5) },
      { type: 'bits', data: { image: 'x' }, relationships: rel('app', ids.app) }, { type: 'bits', relationships: 'x' },
      { type: 'bits', relationships: { ...rel('app', ids.app), space: {} } }, { type: 5, relationships: rel('app', ids.app) },
      { type: 'bits', relationships: {} }, { type: 'bits', relationships: { app: ids.app } }, { type: 'bits', relationships: { app: { data: {} } } },
      { type: 'bits', relationships: rel('app', str(201)) }, { type: 'bits', relationships: rel('app', '') }, { type: 'BITS', relationships: rel('app', ids.app) },
      { type: 'bits', data: 'x', relationships: rel('app', ids.app) }, { type: ['bits'], relationships: rel('app', ids.app) },
      { type: 'bits', relationships: rel('app', ids.si) }, { type: 'bits', relationships: rel('app', CONTROL) }, { type: null, relationships: rel('app', ids.app) },
    ]],
    ['POST', `/v3/packages/${ids.pkg}/upload`, [
      ['', 'multipart/form-data; boundary=x'], ['--x--\r\n', 'multipart/form-data; boundary=x'], ['no boundary', 'multipart/form-data'],
      ['--x\r\nContent-Disposition: form-data; name="resources"\r\n\r\nnot json\r\n--x--\r\n', 'multipart/form-data; boundary=x'],
      ['--x\r\nContent-Disposition: form-data; name="bits"\r\n\r\nzip\r\n--x--\r\n', 'multipart/form-data; boundary=x'],
      ['{}', JSON_TYPE], ['bits', 'text/plain'], ['', 'application/zip'], [str(1000), 'application/octet-stream'],
      ['--x\r\nContent-Disposition: form-data; name="resources"\r\n\r\n[]\r\n--x--\r\n', 'multipart/form-data; boundary=x'],
      ['--x\r\nContent-Disposition: form-data; name="other"\r\n\r\n[]\r\n--x--\r\n', 'multipart/form-data; boundary=x'],
      ['--x\r\nno headers\r\n--x--\r\n', 'multipart/form-data; boundary=x'], ['--y\r\n\r\n--y--\r\n', 'multipart/form-data; boundary=x'],
      ['--x\r\nContent-Disposition: form-data; name="bits"; filename="a.zip"\r\n\r\nPK\u0003\u0004garbage\r\n--x--\r\n', 'multipart/form-data; boundary=x'],
      ['--x\r\nContent-Disposition: form-data; name="resources"\r\n\r\n{"a":\r\n--x--\r\n', 'multipart/form-data; boundary="x"'],
      [str(100, '-'), 'multipart/form-data; boundary=-'], ['--x', 'multipart/form-data; boundary=x'],
      ['--x\r\nContent-Disposition: form-data; name="bits"\r\n\r\n\r\n--x--\r\n', 'multipart/form-data; boundary=x'],
      ['--x\r\nContent-Disposition: form-data; name="resources"\r\n\r\n[{"fn":"../../etc/passwd"}]\r\n--x--\r\n', 'multipart/form-data; boundary=x'],
      ['--x\r\n--x\r\n--x--\r\n', 'multipart/form-data; boundary=x'], ['x'.repeat(100), `multipart/form-data; boundary=${str(300)}`],
    ].map(([b, t]) => ({ raw: b, type: t }))],
    ['POST', '/v3/builds', [
      {}, { package: 'x' }, { package: {} }, { package: { guid: 5 } }, { package: { guid: 'nope' } }, { package: { guid: str(201) } },
      { package: { guid: ids.pkg }, staging_memory_in_mb: 0 }, { package: { guid: ids.pkg }, staging_memory_in_mb: 'x' },
      { package: { guid: ids.pkg }, staging_disk_in_mb: -1 }, { package: { guid: ids.pkg }, staging_disk_in_mb: 1.5 },
      { package: { guid: ids.pkg }, lifecycle: 'x' }, { package: { guid: ids.pkg }, lifecycle: { type: 'docker', data: {} } },
      { package: { guid: ids.pkg }, environment_variables: 'x' }, { package: { guid: ids.pkg }, extra: 1 },
      { package: { guid: ids.pkg }, staging_memory_in_mb: '1.5' }, { package: { guid: ids.pkg }, staging_disk_in_mb: [] },
      { package: { guid: ids.pkg }, staging_log_rate_limit_bytes_per_second: -2 }, { package: { guid: ids.pkg }, lifecycle: { type: 'x', data: {} } },
      { package: { guid: ids.pkg }, lifecycle: { type: 'buildpack', data: { buildpacks: [5] } } }, { package: { guid: '' } },
      { package: { guid: ids.app } }, { package: [ids.pkg] },
    ]],
    ['POST', '/v3/resource_matches', [
      {}, { resources: 'x' }, { resources: [] }, { resources: Array(5001).fill({ checksum: { value: str(40, 'a') }, size_in_bytes: 1 }) },
      { resources: [1] }, { resources: [{ checksum: 'x', size_in_bytes: 1 }] }, { resources: [{ checksum: { value: 5 }, size_in_bytes: 1 }] },
      { resources: [{ checksum: { value: 'short' }, size_in_bytes: 1 }] }, { resources: [{ checksum: { value: str(40, 'a') }, size_in_bytes: -1 }] },
      { resources: [{ checksum: { value: str(40, 'a') }, size_in_bytes: '1' }] }, { resources: [{ checksum: { value: str(40, 'a') }, size_in_bytes: 1, mode: 'rwx' }] },
      { resources: [{ checksum: { value: str(40, 'a') }, size_in_bytes: 1, mode: 755 }] }, { resources: [null] }, { resources: [[]] },
      { resources: [{}] }, { resources: [{ checksum: {}, size_in_bytes: 1 }] }, { resources: [{ checksum: { value: str(41, 'a') }, size_in_bytes: 1 }] },
      { resources: [{ checksum: { value: str(40, 'a') }, size_in_bytes: 1.5 }] }, { resources: [{ checksum: { value: str(40, 'a') } }] }, { resources: {} },
      { resources: [{ checksum: { value: str(40, 'a') }, size_in_bytes: 1 }], other: 1 },
    ]],
    ['POST', `/v3/spaces/${ids.space}/actions/apply_manifest`, manifestBodies(), YAML_TYPE],
    ['POST', `/v3/spaces/${ids.space}/manifest_diff`, manifestBodies(), YAML_TYPE],
  ];
}

function scaleBodies() {
  return [
    { instances: -1 }, { instances: 'three' }, { instances: '3.5' }, { instances: 1.5 }, { instances: 2 ** 31 }, { instances: 1e308 },
    { instances: [1] }, { instances: { n: 1 } }, { instances: true }, { instances: ' 3' }, { instances: '0x10' }, { instances: '' },
    { memory_in_mb: 0 }, { memory_in_mb: -64 }, { memory_in_mb: 2 ** 31 }, { memory_in_mb: '64M' }, { disk_in_mb: 0 }, { disk_in_mb: 'lots' },
    { log_rate_limit_in_bytes_per_second: -2 }, { log_rate_limit_in_bytes_per_second: 'x' }, { instances: 1, unknown: 1 },
    { instances: 100000 }, { memory_in_mb: 1024 * 1024 }, { instances: '1e3' }, { instance: 2 },
  ];
}

function manifestBodies() {
  const yaml = (apps) => ({ raw: JSON.stringify({ applications: apps }), type: YAML_TYPE });
  return [
    { raw: 'applications: [', type: YAML_TYPE }, { raw: '- a\n- b\n', type: YAML_TYPE }, { raw: 'just text', type: YAML_TYPE },
    { raw: 'version: 2\napplications: [{name: x}]\n', type: YAML_TYPE }, { raw: 'applications: []\n', type: YAML_TYPE },
    { raw: 'applications: x\n', type: YAML_TYPE }, { raw: 'applications: [5]\n', type: YAML_TYPE },
    { raw: 'a: &a [x]\napplications: [{name: fz, env: *a}]\n', type: YAML_TYPE }, { raw: `applications: [{name: fz}]\n#${str(MiB)}`, type: YAML_TYPE },
    { raw: 'applications: [{name: fz}]\n', type: JSON_TYPE }, { raw: 'applications: [{name: fz}]\n', type: 'text/plain' },
    yaml([{}]), yaml([{ name: '' }]), yaml([{ name: 5 }]), yaml([{ name: str(256) }]), yaml([{ name: CONTROL }]), yaml([{ name: '  ' }]),
    yaml([{ name: 'fz', instances: -1 }]), yaml([{ name: 'fz', instances: 'x' }]), yaml([{ name: 'fz', memory: 'lots' }]),
    yaml([{ name: 'fz', memory: '1X' }]), yaml([{ name: 'fz', disk_quota: '-' }]), yaml([{ name: 'fz', timeout: 0 }]),
    yaml([{ name: 'fz', 'health-check-type': 'ping' }]), yaml([{ name: 'fz', routes: 'x' }]), yaml([{ name: 'fz', routes: ['x'] }]),
    yaml([{ name: 'fz', routes: [{ route: 'a b.localhost' }] }]), yaml([{ name: 'fz', routes: [{ route: 'http://' }] }]),
    yaml([{ name: 'fz', routes: [{ route: `${str(64)}.localhost` }] }]), yaml([{ name: 'fz', routes: [{ route: 'x.localhost', options: 'y' }] }]),
    yaml([{ name: 'fz', routes: [{ route: 'x.localhost', options: { loadbalancing: 'hash' } }] }]),
    yaml([{ name: 'fz', services: 'results-db' }]), yaml([{ name: 'fz', services: [5] }]), yaml([{ name: 'fz', env: 'x' }]),
    yaml([{ name: 'fz', env: { PORT: 1 } }]), yaml([{ name: 'fz', buildpacks: 'x' }]), yaml([{ name: 'fz', buildpack: 'a', buildpacks: ['b'] }]),
    yaml([{ name: 'fz', processes: 'x' }]), yaml([{ name: 'fz', processes: [{ type: 'worker' }] }]), yaml([{ name: 'fz', docker: { image: 'x' } }]),
    yaml([{ name: 'fz', 'random-route': 'yes' }]), yaml([{ name: 'fz' }, { name: CONTROL }]), yaml([{ name: 'fz', command: ['x'] }]),
  ];
}

module.exports = { ENDPOINTS, GENERIC, rel, str, CONTROL, MiB, BODY_LIMIT, UPLOAD_LIMIT, JSON_TYPE, YAML_TYPE };
